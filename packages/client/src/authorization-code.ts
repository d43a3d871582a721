import { ErrorCode, isErrorCode } from '@realmgate/core';
import type { RealmgateClient } from './client.js';
import { RealmgateError } from './errors.js';
import { requestToken, type ClientCredentials, type TokenSet } from './tokens.js';

/* The authorization code grant with PKCE (RFC 6749 §4.1, RFC 7636) for browser applications, on WebCrypto only. */

function base64Url(bytes: Uint8Array): string {
    let binary = '';
    for (const byte of bytes) binary += String.fromCharCode(byte);
    return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** 32 random bytes, base64url: 43 characters, within RFC 7636 §4.1's 43–128 for the verifier. */
const randomToken = () => base64Url(crypto.getRandomValues(new Uint8Array(32)));

/** The S256 challenge of a verifier (RFC 7636 §4.2). */
export async function codeChallenge(verifier: string): Promise<string> {
    return base64Url(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))));
}

/** What the application keeps (e.g. in sessionStorage) between the redirect and the callback. */
export interface PendingAuthorization {
    url: string;
    /** the realm's issuer the ID token must name */
    issuer: string;
    state: string;
    nonce: string;
    codeVerifier: string;
    redirectUri: string;
    clientId: string;
}

/** The authorization URL to send the browser to, with fresh state, nonce and PKCE verifier. */
export async function createAuthorizationRequest(input: {
    baseUrl: string;
    /** the realm's `issuer` from its discovery document: the ID token and the callback must name it */
    issuer: string;
    /** the realm's `authorization_endpoint` from its discovery document; `<baseUrl>/authorize` when absent */
    authorizationEndpoint?: string;
    clientId: string;
    redirectUri: string;
    scope?: string;
    /** further authorization parameters (prompt, max_age, login_hint) */
    extra?: Record<string, string>;
}): Promise<PendingAuthorization> {
    const state = randomToken();
    const nonce = randomToken();
    const codeVerifier = randomToken();
    const url = new URL(input.authorizationEndpoint ?? `${input.baseUrl.replace(/\/+$/, '')}/authorize`);
    const parameters: Record<string, string> = {
        response_type: 'code',
        client_id: input.clientId,
        redirect_uri: input.redirectUri,
        scope: input.scope ?? 'openid',
        state,
        nonce,
        code_challenge: await codeChallenge(codeVerifier),
        code_challenge_method: 'S256',
        ...input.extra,
    };
    for (const [name, value] of Object.entries(parameters)) url.searchParams.set(name, value);
    return { url: url.toString(), issuer: input.issuer, state, nonce, codeVerifier, redirectUri: input.redirectUri, clientId: input.clientId };
}

/** The claims of a JWT's payload, undecoded signature left alone. */
export function decodeJwtPayload(token: string): Record<string, unknown> {
    const part = token.split('.')[1];
    if (!part) throw new TypeError('not a JWT');
    const binary = atob(part.replace(/-/g, '+').replace(/_/g, '/'));
    return JSON.parse(new TextDecoder().decode(Uint8Array.from(binary, (char) => char.charCodeAt(0)))) as Record<string, unknown>;
}

const refused = (message: string, code: ErrorCode = ErrorCode.INVALID_REQUEST, error?: string) =>
    new RealmgateError({ statusCode: 400, code, message, ...(error ? { error } : {}) });

/** How the ID token is checked. */
export interface IdTokenCheckOptions {
    /** seconds of clock skew allowed on `exp`; default 60 */
    clockToleranceSeconds?: number;
    /** the clock (milliseconds), replaceable for tests */
    now?: () => number;
}

/**
 * The ID token's claims, checked by OpenID Connect Core §3.1.3.7: `iss` is the realm's issuer (rule
 * 2), `aud` contains the client (rule 3) and, naming several, `azp` is the client (rules 4–5),
 * `exp` has not passed (rule 9), `nonce` is the request's (rule 11). The signature is not checked
 * here: the token comes straight from the token endpoint over TLS, which rule 6 accepts instead.
 */
export function checkIdToken(idToken: string, pending: Pick<PendingAuthorization, 'issuer' | 'clientId' | 'nonce'>, options: IdTokenCheckOptions = {}): Record<string, unknown> {
    const claims = decodeJwtPayload(idToken);
    const invalid = (message: string) => refused(`the ID token ${message}`, ErrorCode.INVALID_TOKEN);
    if (!pending.issuer || claims.iss !== pending.issuer) throw invalid('is not from the realm\'s issuer');
    const audiences = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
    if (!audiences.includes(pending.clientId)) throw invalid('is not for this client');
    if (audiences.length > 1 && claims.azp !== pending.clientId) throw invalid('is authorized for another party');
    const now = (options.now ?? Date.now)() / 1000;
    if (typeof claims.exp !== 'number' || claims.exp + (options.clockToleranceSeconds ?? 60) <= now) throw invalid('has expired');
    if (claims.nonce !== pending.nonce) throw invalid('nonce does not match the request');
    return claims;
}

/**
 * The callback: checks `state` (RFC 6749 §10.12) and the issuer it names (RFC 9207 §2.4), surfaces
 * an error answer (§4.1.2.1), redeems the code with the verifier and checks the ID token
 * (checkIdToken).
 */
export async function handleAuthorizationCallback(
    client: RealmgateClient, callbackUrl: string, pending: PendingAuthorization, credentials?: Omit<ClientCredentials, 'clientId'>, options: IdTokenCheckOptions = {},
): Promise<TokenSet> {
    const parameters = new URL(callbackUrl).searchParams;
    if (parameters.get('state') !== pending.state) throw refused('the callback state does not match the request');
    const issuer = parameters.get('iss');
    if (issuer !== null && issuer !== pending.issuer) throw refused('the callback comes from another issuer');
    const error = parameters.get('error');
    if (error) throw refused(parameters.get('error_description') ?? error, isErrorCode(error) ? error : ErrorCode.ACCESS_DENIED, error);
    const code = parameters.get('code');
    if (!code) throw refused('the callback carries no code');
    const tokens = await requestToken(client, {
        grant_type: 'authorization_code', code, redirect_uri: pending.redirectUri, code_verifier: pending.codeVerifier,
    }, { clientId: pending.clientId, ...credentials });
    if (tokens.id_token) checkIdToken(tokens.id_token, pending, options);
    return tokens;
}
