import { isCanonicalUuid } from '@realmgate/core';
import type { SigningAlgorithm } from '../keys/material.js';

/**
 * Token claims (API.md §4): access tokens are JWTs with iss, sub, sub_kind, kind, realm_id,
 * realm_name, client_id (when issued to a client), scope, session_id, jti, iat, exp. Refresh tokens
 * carry the same claims with kind `refresh_token`; their jti is the auth_session_tokens row id.
 * A multi-factor ticket (kind `mfa_token`) carries them too, before any session exists:
 * its jti and session_id are its auth_mfa_tickets row id; it is never a bearer, never introspected.
 */
export const TOKEN_KIND = { ACCESS: 'access_token', REFRESH: 'refresh_token', MFA: 'mfa_token' } as const;
export type TokenKind = (typeof TOKEN_KIND)[keyof typeof TOKEN_KIND];

/** OpenID Connect Core §15.1: RS256 is the ID-token algorithm every relying party implements. */
export const ID_TOKEN_ALGORITHM: SigningAlgorithm = 'RS256';
/** the other algorithm a client may register for its ID tokens (OIDC Registration §2) */
export const ID_TOKEN_ES256: SigningAlgorithm = 'ES256';

/**
 * The algorithm of a client's ID and logout tokens: its registered `id_token_signed_response_alg`
 * (OIDC Registration §2), RS256 when it registered none or a value this server does not sign with.
 */
export function idTokenAlgorithmOf(registered: string | null | undefined): SigningAlgorithm {
    return registered === ID_TOKEN_ES256 ? ID_TOKEN_ES256 : ID_TOKEN_ALGORITHM;
}
/**
 * The `acr` an ID token states when the authorization request asked with `acr_values` (OIDC Core
 * §2, §3.1.2.1): one fixed value per authentication strength of the browser session — a password
 * (or an identity provider's sign-in: one factor), and a password with a second factor. Advertised
 * as `acr_values_supported` (oauth2/discovery.ts).
 */
export const ACR = { PASSWORD: 'urn:realmgate:acr:pwd', SECOND_FACTOR: 'urn:realmgate:acr:mfa' } as const;
export type Acr = (typeof ACR)[keyof typeof ACR];

/** The `kind` of an ID token: never accepted as a bearer, at introspection or at revocation. */
export const ID_TOKEN_KIND = 'id_token';

export type SubjectKind = 'user' | 'client';

/** The scope every token issued without a client carries (API.md §4) and the default otherwise. */
export const GLOBAL_SCOPE = 'global';

/**
 * RFC 8693 §4.1: the acting party of a delegated token — its subject and, when it acted through a
 * token that was itself delegated, the prior actor nested inside.
 */
export interface ActClaim {
    sub: string;
    sub_kind: SubjectKind;
    /** the client the actor's token was issued to, when any */
    client_id?: string;
    act?: ActClaim;
}

export interface TokenClaims {
    iss: string;
    sub: string;
    sub_kind: SubjectKind;
    kind: TokenKind;
    realm_id: string;
    realm_name: string;
    client_id?: string;
    scope: string;
    session_id: string;
    jti: string;
    iat: number;
    exp: number;
    /**
     * RFC 9068 §2.2: an access token's audience — the resource server it was narrowed to (RFC 8707
     * §2), else its realm's default audience; absent only on an access token signed before RFC 9068
     */
    aud?: string;
    /** on a refresh token: the resource server its grant was narrowed to (RFC 8707 §2.2), absent when none */
    resource?: string;
    /** RFC 8693 §4.1: a delegated token's actor */
    act?: ActClaim;
    /**
     * RFC 9449 §6.1 (RFC 7800 §3.1): the thumbprint of the DPoP key an access token is bound to; a
     * public client's refresh token carries it too (§5)
     */
    cnf?: { jkt: string };
}

export interface TokenSubject {
    id: string;
    kind: SubjectKind;
    realmId: string;
    realmName: string;
}

/** Whether a space-separated scope value (RFC 6749 §3.3) holds `name`. */
export function hasScope(scope: string, name: string): boolean {
    return scope.split(' ').includes(name);
}


const isConfirmation = (value: unknown): value is { jkt: string } =>
    typeof value === 'object' && value !== null && typeof (value as { jkt?: unknown }).jkt === 'string';

/** The claims of a verified payload, or null when a member is missing or mistyped. */
export function claimsOf(payload: Record<string, unknown>): TokenClaims | null {
    const strings = ['iss', 'sub', 'sub_kind', 'kind', 'realm_id', 'realm_name', 'scope', 'session_id', 'jti'] as const;
    if (!strings.every((name) => typeof payload[name] === 'string')) return null;
    if (typeof payload.iat !== 'number' || typeof payload.exp !== 'number') return null;
    if (payload.client_id !== undefined && typeof payload.client_id !== 'string') return null;
    if ([payload.aud, payload.resource].some((value) => value !== undefined && typeof value !== 'string')) return null;
    if (payload.act !== undefined && (typeof payload.act !== 'object' || payload.act === null)) return null;
    if (payload.sub_kind !== 'user' && payload.sub_kind !== 'client') return null;
    if (payload.cnf !== undefined && !isConfirmation(payload.cnf)) return null;
    // ids go into queries: anything but a canonical UUID is not ours
    if (![payload.sub, payload.realm_id, payload.session_id].every((id) => isCanonicalUuid(id as string))) return null;
    return payload as unknown as TokenClaims;
}
