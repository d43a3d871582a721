import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser } from 'playwright-core';
import { startTestApp, type TestApp } from '../app.js';
import type { DialectName } from '../../src/db/values.js';
import { freePort } from '../network.js';

/**
 * The application side of a browser sign-in, on loopback: the redirect URI the browser lands on,
 * the post-logout page, and the back-channel logout endpoint (OIDC Back-Channel Logout 1.0 §2.5)
 * that records each logout_token it receives. Waiting is by event, never by a fixed delay.
 */
export interface RelyingPartyListener {
    origin: string;
    callback: string;
    loggedOut: string;
    backchannel: string;
    /** serves `html` at `path` of this origin (an attacker's page, for the cross-site attacks) */
    servePage(path: string, html: string): string;
    /** resolves with the first logout_token POSTed to the back-channel endpoint that `matches` */
    logoutToken(matches: (token: string) => boolean): Promise<string>;
    close(): Promise<void>;
}

async function readBody(request: IncomingMessage): Promise<string> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
}

export async function startRelyingParty(): Promise<RelyingPartyListener> {
    const pages = new Map<string, string>();
    const received: string[] = [];
    const waiting: { matches(token: string): boolean; resolve(token: string): void }[] = [];
    const server: Server = createServer((request, response) => {
        void (async () => {
            const url = new URL(request.url ?? '/', 'http://127.0.0.1');
            if (request.method === 'POST' && url.pathname === '/backchannel') {
                const token = new URLSearchParams(await readBody(request)).get('logout_token') ?? '';
                received.push(token);
                for (const waiter of waiting.filter((entry) => entry.matches(token))) {
                    waiting.splice(waiting.indexOf(waiter), 1);
                    waiter.resolve(token);
                }
                response.writeHead(200).end();
                return;
            }
            const page = pages.get(url.pathname);
            if (page !== undefined) {
                response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page);
                return;
            }
            // the callback and the post-logout page: a page the browser can rest on
            response.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><title>${url.pathname}</title><p>${url.pathname}</p>`);
        })();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return {
        origin,
        callback: `${origin}/cb`,
        loggedOut: `${origin}/logged-out`,
        backchannel: `${origin}/backchannel`,
        servePage: (path, html) => {
            pages.set(path, html);
            return `${origin}${path}`;
        },
        logoutToken: (matches) => {
            const ready = received.find(matches);
            if (ready !== undefined) return Promise.resolve(ready);
            return new Promise<string>((resolve) => waiting.push({ matches, resolve }));
        },
        close: () => new Promise<void>((resolve) => server.close(() => resolve())),
    };
}

/** Debian's chromium, headless, driven by playwright-core (DESIGN.md §4). */
export function launchChromium(): Promise<Browser> {
    return chromium.launch({
        executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
        args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu'],
    });
}

/** The app listening on a free loopback port that is also its PUBLIC_URL: browsers and libraries reach it over real HTTP. */
export async function startListeningApp(dialect: DialectName, overrides: { authConsolePath?: string } = {}): Promise<{ app: TestApp; publicUrl: string }> {
    const port = await freePort();
    const publicUrl = `http://127.0.0.1:${port}`;
    const app = await startTestApp(dialect, { publicUrl, ...overrides });
    await app.app.listen({ port, host: '127.0.0.1' });
    return { app, publicUrl };
}
