import { ErrorCode, isUuid } from '@realmgate/core';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { AppError } from '../../errors/app-error.js';
import { findAuthorizationClient, type AuthorizationClient } from '../../storage/authorize-lookups.js';
import { issuerOf } from '../../tokens/issuer.js';
import { resolveScope, scopeNames } from '../grants/scope.js';
import { registeredResource } from '../resource-indicators.js';
import { authorizationError, type AuthorizationResponse, type ResponseTarget } from './response.js';

/** The parameters of an authorization request (RFC 6749 §4.1.1, RFC 7636 §4.3, OIDC Core §3.1.2.1). */
const AUTHORIZATION_PARAMETERS = [
    'response_type', 'client_id', 'redirect_uri', 'scope', 'state', 'nonce', 'code_challenge', 'code_challenge_method',
    'prompt', 'max_age', 'login_hint', 'response_mode', 'acr_values',
    // RFC 8707 §2.1
    'resource',
] as const;

/**
 * OIDC Core §6 and RFC 9101: a request object by value (`request`) or by reference (`request_uri`).
 * Not supported yet; ignoring one would drop the `state` and `nonce` inside it, so its presence is
 * answered with the error OIDC Core §6.3 names (discovery advertises both as unsupported).
 */
const REQUEST_OBJECT_PARAMETERS = [
    ['request', ErrorCode.REQUEST_NOT_SUPPORTED, 'Request objects (the request parameter) are not supported.'],
    ['request_uri', ErrorCode.REQUEST_URI_NOT_SUPPORTED, 'Request objects by reference (the request_uri parameter) are not supported.'],
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
    /** OIDC Core §3.1.2.1 `acr_values`, in order of preference; null when not sent */
    acrValues: readonly string[] | null;
    /** RFC 8707 §2.1: the resource server the tokens are for, kept on the code; null when none was named */
    resource: string | null;
    /** RFC 9207: the issuer of the client's realm, sent as `iss` with every response */
    issuer: string;
    /** the parameters as received (the authorization parameters only), carried by the forms */
    params: Readonly<Record<string, string>>;
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
/** RFC 7636 §4.2: BASE64URL(SHA256(verifier)) is 43 characters. */
const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

/**
 * The parameters of a query string or form body: strings, each once (RFC 6749 §3.1); repeated names
 * collected, and the request-object parameters sent in any shape.
 */
function readAuthorizationParams(source: unknown): { params: Record<string, string>; repeated: string[]; requestObject: (typeof REQUEST_OBJECT_PARAMETERS)[number] | undefined } {
    const params: Record<string, string> = {};
    const repeated: string[] = [];
    if (typeof source !== 'object' || source === null) return { params, repeated, requestObject: undefined };
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
    return { params, repeated, requestObject: REQUEST_OBJECT_PARAMETERS.find(([name]) => sent[name] !== undefined) };
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
 * Validates an authorization request (issue 13 item 3). Until the client and redirect URI are
 * established, errors go to an error page; after, to the redirect URI with `state` and `iss`
 * (RFC 6749 §4.1.2.1, RFC 9207).
 */
export async function validateAuthorizationRequest(db: Kysely<Database>, publicUrl: string, source: unknown): Promise<Validation> {
    const { params, repeated, requestObject } = readAuthorizationParams(source);
    const page = (message: string, realm: AuthorizationClient['realm'] | null = null): Validation =>
        ({ ok: false, page: { error: ErrorCode.INVALID_REQUEST, message, realm } });
    if (repeated.includes('client_id') || repeated.includes('redirect_uri')) return page('client_id and redirect_uri must each be sent once.');
    const clientId = params.client_id;
    if (!clientId) return page('client_id is required.');
    const client = isUuid(clientId) ? await findAuthorizationClient(db, clientId.toLowerCase()) : undefined;
    if (!client?.active) return page('The client is unknown or inactive.');
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
    // before any other member is judged: a request object carries them in place of the query (OIDC Core §6.1)
    if (requestObject) return fail(requestObject[1], requestObject[2]);
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
    } else {
        if (method !== 'S256') return fail(ErrorCode.INVALID_REQUEST, 'code_challenge_method must be S256 (plain is not supported).');
        if (!S256_CHALLENGE.test(challenge)) return fail(ErrorCode.INVALID_REQUEST, 'code_challenge must be 43 base64url characters.');
    }

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
            prompt, maxAge, loginHint: params.login_hint, acrValues: params.acr_values ? scopeNames(params.acr_values) : null, resource, issuer, params,
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
