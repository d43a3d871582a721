/**
 * The browser sign-in's benchmark data: a public client of the bench realm (browser sign-in with PKCE), a
 * user bearer issued without a client (what `POST /authorize`, the API form, accepts), a pool of
 * authorization codes minted through `POST /authorize` before each round, and an access token
 * with `openid` for the UserInfo scenario.
 */
import { createHash, randomBytes } from 'node:crypto';
import { basic, inParallel, type Api, type TokenAnswer } from './api.js';
import type { LoadRequest } from './load.js';
import type { Fixtures } from './seed.js';

const REDIRECT_URI = 'https://spa.bench.example/cb';
const CODE_SCOPE = 'openid profile email';
const FORM = 'application/x-www-form-urlencoded';

export interface SignInFixtures {
    /** the public client (no secret: PKCE, token_endpoint_auth_method none), ID tokens ES256 */
    clientId: string;
    /** the same with the default ID token algorithm, RS256 (OIDC Core §15.1) */
    rs256ClientId: string;
    /** `Bearer …` of the bench user, issued without a client (spec Authentication 7) */
    userBearer: string;
    /** the bench user's access token issued to the public client with `openid profile email global` */
    openid: TokenAnswer;
    /** one verifier for every minted code: the server's work per redemption is the same */
    verifier: string;
    challenge: string;
    /** a confidential client with a plain secret (as the client_credentials reference's), pushing its requests (RFC 9126) */
    pusher: { id: string; authorization: string };
}

export async function seedSignIn(api: Api, fixtures: Fixtures): Promise<SignInFixtures> {
    // a client registers its ID token algorithm (OIDC Registration §2); RS256 is the default
    const clientId = await api.create('clients', { realmId: fixtures.realmId, name: 'spa', redirectUri: REDIRECT_URI, idTokenSignedResponseAlg: 'ES256' });
    const rs256ClientId = await api.create('clients', { realmId: fixtures.realmId, name: 'spa-rs256', redirectUri: REDIRECT_URI });
    const login = { username: fixtures.user.name, password: fixtures.user.password, realm_name: fixtures.realmName };
    const user = await api.token({ grant_type: 'password', ...login });
    // `global` too, so the bearer GET /users/@me beside it authorizes exactly as the user's own token does
    const openid = await api.token({ grant_type: 'password', ...login, client_id: clientId, scope: `${CODE_SCOPE} global` });
    const verifier = randomBytes(32).toString('base64url');
    const pusherSecret = randomBytes(32).toString('base64url');
    const pusherId = await api.create('clients', { realmId: fixtures.realmId, name: 'web-par', redirectUri: REDIRECT_URI, secret: pusherSecret });
    return {
        clientId, rs256ClientId, userBearer: `Bearer ${user.access_token}`, openid, verifier,
        challenge: createHash('sha256').update(verifier).digest('base64url'),
        pusher: { id: pusherId, authorization: basic(pusherId, pusherSecret) },
    };
}

/**
 * `POST /par` (RFC 9126 §2.1) of the confidential client: authenticated as at /token, the
 * parameters validated as /authorize validates them, a reference stored; every request a new one.
 */
export function pushRequest(signIn: SignInFixtures): LoadRequest {
    return {
        method: 'POST', path: '/par', headers: { 'content-type': FORM, authorization: signIn.pusher.authorization },
        body: new URLSearchParams({
            response_type: 'code', client_id: signIn.pusher.id, redirect_uri: REDIRECT_URI, scope: CODE_SCOPE,
            state: 'bench-state', nonce: 'bench-nonce', code_challenge: signIn.challenge, code_challenge_method: 'S256',
        }).toString(),
    };
}

/** One code from `POST /authorize` (API form, API.md §7 contract: 200 `{ url, code, … }`), or the failed answer. */
async function mintCode(baseUrl: string, signIn: SignInFixtures, clientId: string): Promise<{ code: string } | { status: number; body: string }> {
    const response = await fetch(`${baseUrl}/authorize`, {
        method: 'POST',
        headers: { authorization: signIn.userBearer, 'content-type': 'application/json' },
        body: JSON.stringify({
            response_type: 'code', client_id: clientId, redirect_uri: REDIRECT_URI, scope: CODE_SCOPE,
            state: randomBytes(8).toString('hex'), nonce: randomBytes(8).toString('hex'),
            code_challenge: signIn.challenge, code_challenge_method: 'S256',
        }),
    });
    const body = await response.text();
    if (response.status !== 200) return { status: response.status, body };
    return { code: (JSON.parse(body) as { code: string }).code };
}

/**
 * Codes are single use (spec Authentication 12) and live 5 minutes: every round spends fresh ones,
 * minted just before it. The pool is sized from the best redemption rate seen so far, with a
 * margin; a request that finds it dry replays a spent code (a 400, counted as an error).
 */
export function codePool(baseUrl: string, signIn: SignInFixtures, clientId: string) {
    const pool: string[] = [];
    const state = { rate: 3000, dry: 0, spent: '' };
    return {
        state,
        /** the first mint: a route that is not merged yet answers 404 */
        async probe(): Promise<string | undefined> {
            const minted = await mintCode(baseUrl, signIn, clientId);
            if ('code' in minted) {
                pool.push(minted.code);
                return undefined;
            }
            return `POST /authorize answered ${minted.status} ${minted.body.slice(0, 120)}`;
        },
        /** tops the pool up for `seconds` of load at the best rate seen, ×1.5 */
        async fill(seconds: number): Promise<void> {
            // a previous round's leftovers may be near their 5 minutes (spec Authentication 12), or
            // already expired and swept by the worker: every round spends codes minted for it
            pool.length = 0;
            const wanted = Math.ceil(state.rate * seconds * 1.5) + 200;
            const missing = Math.max(0, wanted - pool.length);
            await inParallel(Array.from({ length: missing }), 8, async () => {
                const minted = await mintCode(baseUrl, signIn, clientId);
                if (!('code' in minted)) throw new Error(`POST /authorize answered ${minted.status}: ${minted.body.slice(0, 200)}`);
                pool.push(minted.code);
            });
        },
        /** the best rate of a round, so the next fill is sized for it */
        observe(requestsPerSecond: number): void {
            state.rate = Math.max(state.rate, requestsPerSecond);
        },
        /** `POST /token` grant_type=authorization_code, a fresh code per request, the public client + PKCE */
        request(): LoadRequest {
            return {
                method: 'POST', path: '/token', headers: { 'content-type': FORM },
                setupRequest(request) {
                    let code = pool.shift();
                    if (code === undefined) {
                        state.dry++;
                        code = state.spent;
                    }
                    state.spent = code;
                    return {
                        ...request,
                        body: new URLSearchParams({
                            grant_type: 'authorization_code', code, client_id: clientId, redirect_uri: REDIRECT_URI, code_verifier: signIn.verifier,
                        }).toString(),
                    };
                },
            };
        },
    };
}

/** oidc-provider's access token for its UserInfo (`GET /me`), minted at its boot (references/oidc-provider.mjs). */
export async function oidcUserinfoToken(oidcUrl: string): Promise<string> {
    const response = await fetch(`${oidcUrl}/bench/userinfo-token`);
    if (response.status !== 200) throw new Error(`oidc-provider /bench/userinfo-token answered ${response.status}`);
    return ((await response.json()) as TokenAnswer).access_token;
}

/**
 * `GET /authorize` of a browser without a session (the "sign-in page" figure): the request
 * is validated and the sign-in form rendered, with its CSRF cookie.
 */
export function signInPagePath(signIn: SignInFixtures): string {
    return `/authorize?${new URLSearchParams({
        response_type: 'code', client_id: signIn.clientId, redirect_uri: REDIRECT_URI, scope: CODE_SCOPE,
        state: 'bench-state', nonce: 'bench-nonce', code_challenge: signIn.challenge, code_challenge_method: 'S256',
    }).toString()}`;
}
