import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import { ErrorCode } from '@realmgate/core';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { ADMIN_CONSOLE_CLIENT, consoleUrl, type ConsoleName } from '../config/consoles.js';

/** Where `npm run build` writes the consoles: apps/console/dist, from src/http or dist/http alike. */
const CONSOLE_DIST = fileURLToPath(new URL('../../../../apps/console/dist', import.meta.url));

export interface ConsoleServing {
    names: readonly ConsoleName[];
    /** PUBLIC_URL: where the API answers */
    apiUrl: string;
    /**
     * `session`: served by the API's own listener, the console uses the console-session cookie of
     * the auth pages (same origin); `token`: standalone on its own origin, code + PKCE as admin-console
     */
    mode: 'session' | 'token';
    /** the origin the console is served at (PUBLIC_URL, or CONSOLE_PUBLIC_URL standalone) */
    consoleUrl: string;
    /** apps/console/dist unless a test names another build */
    distDirectory?: string;
}

/** What the console reads at start (`console-config.json` beside its index.html): no inline script needed. */
export interface ConsoleRuntimeConfig {
    console: ConsoleName;
    apiUrl: string;
    mode: 'session' | 'token';
    clientId: string;
    redirectUri: string;
}

/** ws: / wss: form of an http(s) origin, for connect-src (socket.io's WebSocket transport). */
const socketOrigin = (origin: string): string => origin.replace(/^http/, 'ws');

/**
 * The console documents' policy (OWASP CSP Cheat Sheet, strict policy): scripts and styles only
 * from the console's own origin (Vite emits files, never inline code), API calls and the realtime
 * socket only to the console's and the API's origins, no framing (RFC 9700 §4.16), no <base>.
 */
export function consolePolicy(consoleOrigin: string, apiOrigin: string): string {
    const connect = [...new Set(["'self'", consoleOrigin, socketOrigin(consoleOrigin), apiOrigin, socketOrigin(apiOrigin)])];
    return [
        "default-src 'none'", "script-src 'self'", "style-src 'self'", "img-src 'self' data:", "font-src 'self'",
        `connect-src ${connect.join(' ')}`, "manifest-src 'self'", "base-uri 'none'", "form-action 'self'", "frame-ancestors 'none'",
    ].join('; ');
}

function notBuilt(reply: FastifyReply, distDirectory: string): FastifyReply {
    return reply.status(503).header('cache-control', 'no-store').send({
        statusCode: 503,
        code: ErrorCode.TEMPORARILY_UNAVAILABLE,
        message: `The consoles are not built (no ${distDirectory}): run \`npm run build\` (or \`npm run build -w @realmgate/console\`), then restart.`,
    });
}

/**
 * Serves the built consoles: `/console/assets/*` are Vite's content-hashed files,
 * cached for a year as immutable; every other path under `/console/<name>/` that is not a file is
 * one of the console's client-side routes and answers its index.html (history fallback), never
 * cached (`no-cache`), so a new build is picked up at the next navigation. Without a build the
 * routes answer 503 naming the command to run; the server itself starts regardless.
 * `GET /` sends a browser to the first console (API.md §7).
 */
export async function registerConsoles(app: FastifyInstance, serving: ConsoleServing): Promise<void> {
    const dist = serving.distDirectory ?? CONSOLE_DIST;
    const assets = join(dist, 'assets');
    const policy = consolePolicy(new URL(serving.consoleUrl).origin, new URL(serving.apiUrl).origin);
    const hidden = { schema: { hide: true }, config: { auth: 'none' as const } };
    if (existsSync(assets)) {
        await app.register(fastifyStatic, {
            root: assets, prefix: '/console/assets/', decorateReply: false, index: false, wildcard: true,
            // Vite names every asset by its content hash (build.assetsDir): a changed file is a new URL
            immutable: true, maxAge: '365d', cacheControl: true,
            schemaHide: true,
        });
    } else {
        app.get('/console/assets/*', hidden, (_request, reply) => notBuilt(reply, dist));
    }
    await app.register(fastifyStatic, { root: dist, serve: false, decorateReply: true });

    const first = serving.names[0];
    // the query goes along: `/?realm=<name>` is the realm-scoped entry of the first console
    const query = (url: string) => { const at = url.indexOf('?'); return at === -1 ? '' : url.slice(at); };
    if (first) app.get('/', hidden, (request, reply) => reply.redirect(`/console/${first}/${query(request.url)}`, 302));
    for (const name of serving.names) {
        const base = `/console/${name}`;
        const index = join(dist, name, 'index.html');
        const runtime: ConsoleRuntimeConfig = {
            console: name, apiUrl: serving.apiUrl, mode: serving.mode, clientId: ADMIN_CONSOLE_CLIENT.id, redirectUri: consoleUrl(serving.consoleUrl, name),
        };
        const page = (reply: FastifyReply): FastifyReply | Promise<FastifyReply> => {
            if (!existsSync(index)) return notBuilt(reply, dist);
            return reply.headers({
                'content-security-policy': policy,
                'cache-control': 'no-cache',
                'referrer-policy': 'same-origin',
            }).sendFile(`${name}/index.html`, { cacheControl: false });
        };
        app.get(base, hidden, (request, reply) => reply.redirect(`${base}/${query(request.url)}`, 301));
        app.get(`${base}/console-config.json`, hidden, (_request, reply) => reply.header('cache-control', 'no-cache').send(runtime));
        app.get(`${base}/`, hidden, (_request, reply) => page(reply));
        // every client-side route of the console (history fallback)
        app.get(`${base}/*`, hidden, (_request, reply) => page(reply));
    }
}
