import { createHash, randomBytes } from 'node:crypto';
import { sha256Hex } from '../src/secrets/digests.js';
import type { LightMyRequestResponse } from 'fastify';
import { generate } from 'otplib';
import { expect } from 'vitest';
import type { TestApp } from './app.js';

/*
 * A browser driven through app.inject for the browser sign-in suites: a cookie jar (Set-Cookie in,
 * Cookie out), the hidden fields of a rendered form, PKCE pairs, and the realm, client and user
 * a sign-in needs, created through the API.
 */

class CookieJar {
    readonly cookies = new Map<string, string>();

    /** takes the Set-Cookie headers of an answer (a cleared cookie is dropped) */
    absorb(response: LightMyRequestResponse): this {
        const header = response.headers['set-cookie'];
        for (const line of header === undefined ? [] : [header].flat()) {
            const [pair = ''] = line.split(';');
            const index = pair.indexOf('=');
            const name = pair.slice(0, index).trim();
            const value = pair.slice(index + 1).trim();
            const cleared = /max-age=0/i.test(line) || /expires=thu, 01 jan 1970/i.test(line) || value === '';
            if (cleared) this.cookies.delete(name);
            else this.cookies.set(name, value);
        }
        return this;
    }

    header(): string {
        return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    }
}

/** The Set-Cookie line of one cookie in an answer, if any. */
export function setCookieLine(response: LightMyRequestResponse, name: string): string | undefined {
    const header = response.headers['set-cookie'];
    return (header === undefined ? [] : [header].flat()).find((line) => line.startsWith(`${name}=`));
}

const unescape = (value: string) => value.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');

/** The hidden inputs of a page's form, by name. */
export function hiddenFields(html: string): Record<string, string> {
    const fields: Record<string, string> = {};
    for (const match of html.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)) fields[unescape(match[1]!)] = unescape(match[2]!);
    return fields;
}

function formAction(html: string): string {
    const match = /<form method="post" action="([^"]*)"/.exec(html);
    if (!match) throw new Error(`no form in the page: ${html.slice(0, 300)}`);
    return unescape(match[1]!);
}

/** RFC 7636 §4.1, §4.2: a verifier and its S256 challenge. */
export function pkce(): { verifier: string; challenge: string } {
    const verifier = randomBytes(32).toString('base64url');
    return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}


/** The parameters of a redirect's Location, by name. */
export function locationParams(response: LightMyRequestResponse): { base: string; params: Record<string, string> } {
    expect(response.statusCode, response.body).toBe(303);
    const location = String(response.headers.location);
    const [base = '', query = ''] = location.split('?');
    return { base, params: Object.fromEntries(new URLSearchParams(query)) };
}

export interface BrowserWorld {
    realmId: string;
    realmName: string;
    clientId: string;
    redirectUri: string;
    user: { id: string; name: string; password: string; email: string };
}

let counter = 0;
const unique = (prefix: string) => `${prefix}-${++counter}-${randomBytes(3).toString('hex')}`;

/** A realm with a user (name, email, password) and a public client with a redirect URI. */
export async function browserWorld(app: TestApp, client: Record<string, unknown> = {}): Promise<BrowserWorld> {
    const realmName = unique('realm');
    const realmId = (await app.json<{ data: { id: string } }>({ method: 'POST', url: '/realms', payload: { name: realmName, displayName: `Realm ${realmName}` } }, 201)).data.id;
    const redirectUri = 'https://app.example/callback';
    const clientId = await createBrowserClient(app, realmId, { redirectUri, ...client });
    const name = unique('user');
    const password = `pw-${randomBytes(6).toString('hex')}`;
    const email = `${name}@example.org`;
    const id = (await app.json<{ data: { id: string } }>({ method: 'POST', url: '/users', payload: { name, password, email, realmId } }, 201)).data.id;
    return { realmId, realmName, clientId, redirectUri, user: { id, name, password, email } };
}

export async function createBrowserClient(app: TestApp, realmId: string, payload: Record<string, unknown>): Promise<string> {
    return (await app.json<{ data: { id: string } }>({ method: 'POST', url: '/clients', payload: { name: unique('app'), realmId, ...payload } }, 201)).data.id;
}

/**
 * A browser: a cookie jar and the requests of the flow, sent with the cookies and (for posts) the
 * server's Origin, from `remoteAddress` (an address of its own keeps per-address limits apart).
 */
export function browser(app: TestApp, remoteAddress = '127.0.0.1') {
    const jar = new CookieJar();
    const origin = new URL(app.deps.config.publicUrl).origin;
    const send = async (method: 'GET' | 'POST', url: string, form?: Record<string, string>, headers: Record<string, string> = {}) => {
        const sent: Record<string, string> = {
            ...(jar.cookies.size > 0 ? { cookie: jar.header() } : {}),
            ...(method === 'POST' ? { origin } : {}),
            ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
            ...headers,
        };
        const response = await app.request({ method, url, as: null, headers: sent, remoteAddress, ...(form ? { payload: new URLSearchParams(form).toString() } : {}) });
        jar.absorb(response);
        return response;
    };
    return {
        jar,
        origin,
        get: (url: string, headers?: Record<string, string>) => send('GET', url, undefined, headers),
        post: (url: string, form: Record<string, string>, headers?: Record<string, string>) => send('POST', url, form, headers),
        /** GET /authorize?… */
        authorize: (params: Record<string, string>) => send('GET', `/authorize?${new URLSearchParams(params).toString()}`),
        /** submits a page's form with its hidden fields and `extra` */
        submit: (page: LightMyRequestResponse, extra: Record<string, string> = {}, headers?: Record<string, string>) =>
            send('POST', new URL(formAction(page.body)).pathname, { ...hiddenFields(page.body), ...extra }, headers),
    };
}

export type Browser = ReturnType<typeof browser>;

/** The authorization parameters of a public client with PKCE. */
export function authorizeParams(world: BrowserWorld, extra: Record<string, string> = {}) {
    const pair = pkce();
    return {
        pair,
        params: {
            response_type: 'code', client_id: world.clientId, redirect_uri: world.redirectUri, scope: 'openid profile',
            state: `state-${randomBytes(4).toString('hex')}`, nonce: `nonce-${randomBytes(4).toString('hex')}`,
            code_challenge: pair.challenge, code_challenge_method: 'S256', ...extra,
        } as Record<string, string>,
    };
}

/** The stored row of a minted code, found by its digest. */
export async function codeRow(app: TestApp, code: string) {
    return app.deps.db.selectFrom('auth_authorization_codes').selectAll().where('code_digest', '=', sha256Hex(code)).executeTakeFirst();
}

/** A code of the next time step: inside the ±1 step window (RFC 6238 §5.2), later than the confirmation's. */
export const nextTotpCode = (secret: string) => generate({ secret, epoch: Math.floor(Date.now() / 1000) + 30 });

/**
 * Multi-factor on in the world's realm and a confirmed TOTP authenticator for its user, enrolled
 * by the administrator through the API: the seed and the recovery codes, as shown once.
 */
export async function enrolTotp(app: TestApp, world: { realmId: string; user: { id: string } }, settings: { mfaRequired?: boolean } = {}): Promise<{ secret: string; recoveryCodes: string[] }> {
    await app.json({ method: 'POST', url: `/realms/${world.realmId}`, payload: { mfaEnabled: true, ...settings } }, 200);
    const enrolled = await app.json<{ data: { id: string }; meta: { secret: string } }>({
        method: 'POST', url: '/user-authenticators', payload: { name: 'phone', userId: world.user.id },
    }, 201);
    const confirmed = await app.json<{ meta: { recoveryCodes: string[] } }>({
        method: 'POST', url: `/user-authenticators/${enrolled.data.id}/confirm`, payload: { code: await generate({ secret: enrolled.meta.secret }) },
    }, 200);
    return { secret: enrolled.meta.secret, recoveryCodes: confirmed.meta.recoveryCodes };
}
