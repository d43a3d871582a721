import { generateKeyPairSync } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import Provider from 'oidc-provider';
import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import type { TestApp } from './app.js';
import { authorizeParams, browser, hiddenFields, type BrowserWorld } from './browser.js';
import { freePort } from './network.js';

/*
 * An upstream OpenID provider on loopback for the identity-provider tests: oidc-provider
 * with its development sign-in pages (any login name, any password), one confidential client for
 * Realmgate (client_secret_basic, oidc-provider's default and RFC 6749 §2.3.1's must-support
 * method), accounts whose claims carry `groups`, and a switch that tampers with the ID token of
 * the next token answers (one character of its signature changed) — the tampered-token case.
 * Options add clients of their own token endpoint authentication method (each is held to it, as
 * oidc-provider holds every client to its registered method), narrow the methods discovery
 * advertises, and give accounts claims of their own (an unverified email).
 */

export interface OidcUpstream {
    issuer: string;
    clientId: string;
    clientSecret: string;
    /** while true, every token answer's id_token has a broken signature */
    tamper: { on: boolean };
    /** how each token request authenticated its client, in order: a Basic header, a body secret or an assertion */
    tokenAuth: { method: 'client_secret_basic' | 'client_secret_post' | 'private_key_jwt' | 'none'; clientId: string | undefined }[];
    close(): Promise<void>;
}

export interface OidcUpstreamOptions {
    /** more clients, each registered with redirectUri (client_id, token_endpoint_auth_method, client_secret or jwks) */
    clients?: readonly Record<string, unknown>[];
    /** the methods discovery's token_endpoint_auth_methods_supported names (oidc-provider's default: all it supports) */
    clientAuthMethods?: readonly string[];
    /** claims that replace the defaults of the account with this login name */
    accounts?: Readonly<Record<string, Record<string, unknown>>>;
    /** the token endpoint authentication method of the default client (client_secret_basic) */
    defaultClientAuthMethod?: string;
}

export async function startOidcUpstream(redirectUri: string, options: OidcUpstreamOptions = {}): Promise<OidcUpstream> {
    const port = await freePort();
    const issuer = `http://127.0.0.1:${port}`;
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const clientId = 'realmgate';
    const clientSecret = 'upstream-client-secret-0123456789abcdef';
    const tamper = { on: false };
    const tokenAuth: OidcUpstream['tokenAuth'] = [];
    const provider = new Provider(issuer, {
        clients: [{ client_id: clientId, client_secret: clientSecret, token_endpoint_auth_method: options.defaultClientAuthMethod ?? 'client_secret_basic' }, ...options.clients ?? []]
            .map((registered) => ({ grant_types: ['authorization_code'], response_types: ['code'], redirect_uris: [redirectUri], ...registered })),
        ...(options.clientAuthMethods ? { clientAuthMethods: [...options.clientAuthMethods] } : {}),
        // the login name typed on the development page is the account and the subject (`sub`)
        findAccount: async (_ctx: unknown, id: string) => ({
            accountId: id,
            claims: async () => ({
                sub: id, preferred_username: id, name: `${id} Upstream`, email: `${id}@upstream.test`, email_verified: true,
                groups: id.startsWith('admin') ? ['admins', 'staff'] : ['staff'], ...options.accounts?.[id],
            }),
        }),
        claims: { openid: ['sub'], profile: ['preferred_username', 'name'], email: ['email', 'email_verified'], groups: ['groups'] },
        scopes: ['openid', 'profile', 'email', 'groups'],
        jwks: { keys: [{ ...privateKey.export({ format: 'jwk' }), alg: 'RS256', use: 'sig', kid: 'upstream' }] },
        pkce: { required: () => true },
        features: { devInteractions: { enabled: true } },
        cookies: { keys: ['upstream-cookie-key'] },
        // the claims of the ID token itself, so Realmgate reads them without a userinfo call too
        conformIdTokenClaims: false,
    });
    provider.use(async (ctx, next) => {
        await next();
        if (ctx.path === '/token') {
            const params = ctx.oidc?.params ?? {};
            const basic = /^basic /i.test(ctx.get('authorization'));
            const method = basic ? 'client_secret_basic' : params.client_assertion ? 'private_key_jwt' : params.client_secret ? 'client_secret_post' : 'none';
            tokenAuth.push({ method, clientId: ctx.oidc?.client?.clientId });
        }
        const body = ctx.body as { id_token?: string } | undefined;
        if (tamper.on && ctx.path === '/token' && body && typeof body.id_token === 'string') {
            const [header, payload, signature = ''] = body.id_token.split('.');
            const flipped = `${signature[0] === 'A' ? 'B' : 'A'}${signature.slice(1)}`;
            ctx.body = { ...body, id_token: `${header}.${payload}.${flipped}` };
        }
    });
    const server: Server = createServer(provider.callback());
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    return {
        issuer, clientId, clientSecret, tamper, tokenAuth,
        close: () => new Promise<void>((resolve) => {
            server.closeAllConnections();
            server.close(() => resolve());
        }),
    };
}

/** The upstream's side of a browser: its own cookies, no redirects followed, a form POSTed when given. */
export function upstreamBrowser(): (url: string | URL, form?: Record<string, string>) => Promise<Response> {
    const jar = new Map<string, string>();
    return async (url, form) => {
        const response = await fetch(url, {
            method: form ? 'POST' : 'GET', redirect: 'manual',
            headers: { cookie: [...jar].map(([name, value]) => `${name}=${value}`).join('; '), ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
            ...(form ? { body: new URLSearchParams(form).toString() } : {}),
        });
        for (const line of response.headers.getSetCookie()) {
            const [pair = ''] = line.split(';');
            const index = pair.indexOf('=');
            jar.set(pair.slice(0, index), pair.slice(index + 1));
        }
        return response;
    };
}

/**
 * A browser at the upstream without a browser: follows the authorization request's redirects with
 * a cookie jar, answers the development login page with `login` (any password) and its consent
 * page, and returns the URL the upstream finally sends the browser to (the callback with `code`
 * and `state`, or an error answer).
 */
async function signInAtUpstream(authorizationUrl: string, login: string): Promise<URL> {
    const send = upstreamBrowser();
    const start = new URL(authorizationUrl);
    let url = start;
    let response = await send(url);
    for (let hop = 0; hop < 12; hop += 1) {
        const location = response.headers.get('location');
        if (location) {
            url = new URL(location, url);
            // back at the relying party: the upstream's answer
            if (url.origin !== start.origin) return url;
            response = await send(url);
            continue;
        }
        const page = await response.text();
        const prompt = /name="prompt" value="(login|consent)"/.exec(page)?.[1];
        if (!prompt) throw new Error(`the upstream answered ${response.status} without a redirect or a form: ${page.slice(0, 300)}`);
        response = await send(url, prompt === 'login' ? { prompt, login, password: 'anything' } : { prompt });
    }
    throw new Error('the upstream sign-in did not come back within 12 redirects');
}

/**
 * A federated sign-in through the pages: the sign-in page's provider button, the upstream's login
 * as `login` (test/oidc-upstream.ts), and Realmgate's answer at its callback.
 */
export async function federatedSignIn(app: TestApp, world: BrowserWorld, providerId: string, login: string): Promise<LightMyRequestResponse> {
    const b = browser(app);
    const page = await b.authorize(authorizeParams(world).params);
    expect(page.statusCode, page.body).toBe(200);
    const started = await b.post('/authorize/federated', { ...hiddenFields(page.body), provider_id: providerId });
    expect(started.statusCode, started.body).toBe(303);
    const back = await signInAtUpstream(String(started.headers.location), login);
    expect(back.searchParams.get('code'), back.href).toBeTruthy();
    return b.get(`${back.pathname}${back.search}`);
}
