import { ErrorCode, isUuid } from '@realmgate/core';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { AppError } from '../../errors/app-error.js';
import { findAuthorizationClient, type AuthorizationClient } from '../../storage/authorize-lookups.js';
import type { BoundedCache } from '../../cache/bounded-cache.js';
import { issuerOf } from '../../tokens/issuer.js';
import { profileOf } from '../security-profile.js';
import { resolveScope, scopeNames } from '../grants/scope.js';
import { registeredResource } from '../resource-indicators.js';
import { authorizationError, type AuthorizationResponse, type ResponseTarget } from './response.js';

/** The parameters of an authorization request (RFC 6749 §4.1.1, RFC 7636 §4.3, OIDC Core §3.1.2.1). */
export const AUTHORIZATION_PARAMETERS = [
    'response_type', 'client_id', 'redirect_uri', 'scope', 'state', 'nonce', 'code_challenge', 'code_challenge_method',
    'prompt', 'max_age', 'login_hint', 'response_mode', 'acr_values',
    // OIDC Core §3.1.2.1: the languages of the pages, carried through the whole sign-in like the rest
    'ui_locales',
    // RFC 8707 §2.1
    'resource',
    // RFC 9449 §10
    'dpop_jkt',
] as const;

/** OIDC Core §5.4 and §11: the scopes every client may ask for, whatever its scope bindings. */
const OPENID_SCOPES: ReadonlySet<string> = new Set(['openid', 'profile', 'email', 'offline_access']);

export type Prompt = 'none' | 'login' | 'consent';

/** A validated authorization request. */
export interface AuthorizationRequest {
    client: AuthorizationClient;
    redirectUri: string;
    responseMode: 'query' | 'form_post';
    state: string | undefined;
    /** the granted scope, space-delimited, and as names */
    scope: string;
    scopes: readonly string[];
    nonce: string | null;
    codeChallenge: string | null;
    codeChallengeMethod: 'S256' | null;
    prompt: ReadonlySet<Prompt>;
    maxAge: number | null;
    loginHint: string | undefined;
    /** OIDC Core §3.1.2.1 `ui_locales`: space-separated language tags in order of preference (views/locale.ts) */
    uiLocales: string | undefined;
    /** OIDC Core §3.1.2.1 `acr_values`, in order of preference; null when not sent */
    acrValues: readonly string[] | null;
    /** RFC 8707 §2.1: the resource server the tokens are for, kept on the code; null when none was named */
    resource: string | null;
    /** RFC 9449 §10: the thumbprint of the DPoP key the code is bound to; null when none was sent */
    dpopJkt: string | null;
    /** RFC 9207: the issuer of the client's realm, sent as `iss` with every response */
    issuer: string;
    /**
     * what the forms carry to resume the request (the sign-in, second-factor and consent pages, an
     * upstream round trip): the parameters as received, or — for a pushed or signed request —
     * `client_id` and the sealed parameters (oauth2/authorize/carried-request.ts)
     */
    params: Readonly<Record<string, string>>;
}

/** Where the parameters of a request came from: RFC 9126 (pushed) and RFC 9101 (a verified request object). */
export interface RequestOrigin {
    pushed: boolean;
    signed: boolean;
}

/** Where the responses of a validated request go. */
export function targetOf(request: AuthorizationRequest): ResponseTarget {
    return { redirectUri: request.redirectUri, responseMode: request.responseMode, state: request.state, issuer: request.issuer, realm: request.client.realm };
}

/** Before the redirect URI is trusted, an error is shown to the user and never redirected (RFC 6749 §4.1.2.1). */
export interface UntrustedRedirectError {
    error: ErrorCode;
    message: string;
    realm: AuthorizationClient['realm'] | null;
}

export type Validation =
    | { ok: true; request: AuthorizationRequest }
    | { ok: false; page: UntrustedRedirectError }
    | { ok: false; redirect: AuthorizationResponse };

/** A parameter value longer than this is refused: no legitimate request carries one. */
const MAX_VALUE_LENGTH = 4096;
/**
 * A base64url SHA-256 digest without padding is 43 characters: a PKCE S256 challenge (RFC 7636
 * §4.2) and a `dpop_jkt` JWK thumbprint (RFC 9449 §10, RFC 7638 §3) alike.
 */
const BASE64URL_SHA256 = /^[A-Za-z0-9_-]{43}$/;

/** The authorization parameters of a query string or form body: strings, each once (RFC 6749 §3.1); repeated names collected. */
export function readAuthorizationParams(source: unknown): { params: Record<string, string>; repeated: string[] } {
    const params: Record<string, string> = {};
    const repeated: string[] = [];
    if (typeof source !== 'object' || source === null) return { params, repeated };
    const sent = source as Record<string, unknown>;
    for (const name of AUTHORIZATION_PARAMETERS) {
        const value = sent[name];
        if (value === undefined) continue;
        if (typeof value !== 'string') {
            repeated.push(name);
            continue;
        }
        params[name] = value;
    }
    return { params, repeated };
}

function allowsCodeGrant(client: AuthorizationClient): boolean {
    if (client.grantTypes === null) return true;
    try {
        const grants = JSON.parse(client.grantTypes) as unknown;
        return Array.isArray(grants) && grants.includes('authorization_code');
    } catch {
        return false;
    }
}

/** The exact-match rule of RFC 9700 §4.1.3 (and RFC 6749 §3.1.2.3): one of the registered URIs, character for character. */
export function isRegisteredUri(list: string | null, uri: string): boolean {
    return list !== null && list.split(/\s+/).some((registered) => registered.length > 0 && registered === uri);
}

function parsePrompt(value: string | undefined): Set<Prompt> | null {
    const prompts = new Set<Prompt>();
    for (const name of scopeNames(value ?? '')) {
        if (name !== 'none' && name !== 'login' && name !== 'consent') return null;
        prompts.add(name);
    }
    // OIDC Core §3.1.2.1: none with any other value is an error
    if (prompts.has('none') && prompts.size > 1) return null;
    return prompts;
}

/**
 * The active client an authorization request names by `client_id`, if any: through `remembered`
 * when given (wire.ts: emptied on every replica by the bus before a client or realm write answers,
 * so a deactivated client or a realm switched to FAPI 2.0 applies to the next request).
 */
export async function findRequestClient(
    db: Kysely<Database>, clientId: string | undefined, remembered?: BoundedCache<AuthorizationClient>,
): Promise<AuthorizationClient | undefined> {
    if (clientId === undefined || !isUuid(clientId)) return undefined;
    const id = clientId.toLowerCase();
    const client = remembered ? await remembered.through(id, () => findAuthorizationClient(db, id)) : await findAuthorizationClient(db, id);
    return client?.active ? client : undefined;
}

/** An error shown on the page (the redirect URI is not established). */
export function pageError(message: string, realm: AuthorizationClient['realm'] | null = null, error: ErrorCode = ErrorCode.INVALID_REQUEST): Validation {
    return { ok: false, page: { error, message, realm } };
}

/**
 * Validates the parameters of an authorization request (RFC 6749 §4.1.1, RFC 7636 §4.3, OIDC Core §3.1.2.1) for the client they name
 * (found by the caller), whatever carried them (oauth2/authorize/request-source.ts): the query or
 * form, a pushed request or a request object. Until the redirect URI is established, errors go to
 * an error page; after, to the redirect URI with `state` and `iss` (RFC 6749 §4.1.2.1, RFC 9207).
 * `carried` is what the forms carry on; `origin` says whether the client's requirements of a pushed
 * (RFC 9126 §6) or signed (RFC 9101 §10.5) request are met.
 */
export async function validateAuthorizationParameters(
    db: Kysely<Database>,
    publicUrl: string,
    client: AuthorizationClient,
    read: { params: Record<string, string>; repeated: readonly string[] },
    origin: RequestOrigin,
    carried: (params: Record<string, string>) => Promise<Record<string, string>>,
): Promise<Validation> {
    const { params, repeated } = read;
    const page = (message: string, realm: AuthorizationClient['realm'] | null = null): Validation => pageError(message, realm);
    const redirectUri = params.redirect_uri;
    if (!redirectUri) return page('redirect_uri is required.', client.realm);
    // RFC 9700 §4.1.1: an unregistered or altered redirect URI is never redirected to
    if (!isRegisteredUri(client.redirectUri, redirectUri)) return page('redirect_uri is not registered for this client.', client.realm);

    const issuer = issuerOf(publicUrl, client.realm.name);
    const mode = params.response_mode;
    const responseMode = mode === 'form_post' ? 'form_post' : 'query';
    const target = { redirectUri, responseMode, state: params.state, issuer, realm: client.realm } as const;
    const fail = (error: ErrorCode, message: string): Validation => ({ ok: false, redirect: authorizationError(target, error, message) });

    // RFC 8707 §2: one resource server per request here, so several are a target this server cannot serve
    if (repeated.includes('resource')) return fail(ErrorCode.INVALID_TARGET, 'Only one resource may be requested.');
    if (repeated.length > 0) return fail(ErrorCode.INVALID_REQUEST, `The parameter ${repeated[0]} is repeated.`);
    // RFC 9126 §6: a client (or realm) that requires pushed requests has every other one refused
    const profile = profileOf(client.realm);
    // RFC 9126 §6: the client's own requirement, its realm's, or the realm's FAPI 2.0 profile (FAPI 2.0 §5.3.2.2 item 2)
    if ((client.requirePushedAuthorizationRequests || profile.requirePushedRequests) && !origin.pushed) {
        return fail(ErrorCode.INVALID_REQUEST, 'The client must push its authorization requests (RFC 9126).');
    }
    // RFC 9101 §10.5 require_signed_request_object
    if (client.requiresSignedRequestObject && !origin.signed) return fail(ErrorCode.INVALID_REQUEST, 'The client must send its authorization requests as signed request objects (RFC 9101).');
    const tooLong = Object.entries(params).find(([, value]) => value.length > MAX_VALUE_LENGTH || value.includes('\u0000'));
    if (tooLong) return fail(ErrorCode.INVALID_REQUEST, `The parameter ${tooLong[0]} is malformed.`);
    if (mode !== undefined && mode !== 'query' && mode !== 'form_post') return fail(ErrorCode.INVALID_REQUEST, 'response_mode must be query or form_post.');
    if (!params.response_type) return fail(ErrorCode.INVALID_REQUEST, 'response_type is required.');
    if (params.response_type !== 'code') return fail(ErrorCode.UNSUPPORTED_RESPONSE_TYPE, 'Only response_type=code is supported.');
    if (!allowsCodeGrant(client)) return fail(ErrorCode.UNAUTHORIZED_CLIENT, 'The client may not use the authorization code grant.');

    // RFC 7636 §4.3 and RFC 9700 §2.1.1: S256 only (plain is refused); required of a public client
    const challenge = params.code_challenge;
    const method = params.code_challenge_method;
    if (challenge === undefined) {
        if (method !== undefined) return fail(ErrorCode.INVALID_REQUEST, 'code_challenge_method without code_challenge.');
        if (!client.hasSecret) return fail(ErrorCode.INVALID_REQUEST, 'A public client must send a PKCE code_challenge (S256).');
        // FAPI 2.0 Security Profile §5.3.2.2 item 4: PKCE S256 for every client
        if (profile.requirePkce) return fail(ErrorCode.INVALID_REQUEST, 'The realm\'s FAPI 2.0 profile requires a PKCE code_challenge (S256).');
    } else {
        if (method !== 'S256') return fail(ErrorCode.INVALID_REQUEST, 'code_challenge_method must be S256 (plain is not supported).');
        if (!BASE64URL_SHA256.test(challenge)) return fail(ErrorCode.INVALID_REQUEST, 'code_challenge must be 43 base64url characters.');
    }

    // RFC 9449 §10: the key the code is bound to, as its SHA-256 JWK thumbprint
    const dpopJkt = params.dpop_jkt ?? null;
    if (dpopJkt !== null && !BASE64URL_SHA256.test(dpopJkt)) return fail(ErrorCode.INVALID_REQUEST, 'dpop_jkt must be a base64url SHA-256 JWK thumbprint (43 characters, RFC 9449 §10).');

    const prompt = parsePrompt(params.prompt);
    if (prompt === null) return fail(ErrorCode.INVALID_REQUEST, 'prompt must be none, or login and/or consent.');
    let maxAge: number | null = null;
    if (params.max_age !== undefined) {
        if (!/^\d{1,10}$/.test(params.max_age)) return fail(ErrorCode.INVALID_REQUEST, 'max_age must be a non-negative integer.');
        maxAge = Number(params.max_age);
    }

    let scope: string;
    let resource: string | null = null;
    try {
        scope = await grantedScope(db, client, params.scope);
        if (params.resource !== undefined) resource = await registeredResource(db, client.realm.id, params.resource);
    } catch (error) {
        // RFC 6749 §4.1.2.1, RFC 8707 §2: answered at the redirect URI
        if (error instanceof AppError && (error.code === ErrorCode.INVALID_SCOPE || error.code === ErrorCode.INVALID_TARGET)) return fail(error.code, error.message);
        throw error;
    }
    return {
        ok: true,
        request: {
            client, redirectUri, responseMode, state: params.state, scope, scopes: scope.split(' ').filter(Boolean),
            nonce: params.nonce ?? null, codeChallenge: challenge ?? null, codeChallengeMethod: challenge === undefined ? null : 'S256',
            prompt, maxAge, loginHint: params.login_hint, uiLocales: params.ui_locales, acrValues: params.acr_values ? scopeNames(params.acr_values) : null, resource, dpopJkt, issuer,
            params: await carried(params),
        },
    };
}

/**
 * The scope of the request: the OpenID Connect names as asked, the rest by the client's scope
 * bindings (oauth2/grants/scope.ts: bound names only, the default bindings when nothing else is asked).
 */
async function grantedScope(db: Kysely<Database>, client: AuthorizationClient, requested: string | undefined): Promise<string> {
    const names = scopeNames(requested ?? '');
    const openid = names.filter((name) => OPENID_SCOPES.has(name));
    const others = names.filter((name) => !OPENID_SCOPES.has(name));
    if (openid.length > 0 && others.length === 0) return openid.join(' ');
    const resolved = await resolveScope(db, client.realm.id, others.length > 0 ? others.join(' ') : undefined, client.id);
    return [...openid, ...scopeNames(resolved)].join(' ');
}
