import { createHash, randomUUID } from 'node:crypto';
import { ACCESS_TOKEN_JWT_TYPE } from '@realmgate/core';
import { timeOrderedId } from '../db/time-ordered-id.js';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { DialectName } from '../db/values.js';
import type { KeyStore } from '../keys/store.js';
import { createInsertBatcher } from '../storage/insert-batcher.js';
import { sameDatabase, type FailClosedWriter } from '../db/asynchronous-commit.js';
import { insertRefreshTokenRows, refreshTokenRowOf, rotateRefreshToken } from '../storage/session-tokens.js';
import { claimsOf, idTokenAlgorithmOf, ID_TOKEN_KIND, TOKEN_KIND, type ActClaim, type TokenClaims, type TokenSubject } from './claims.js';
import type { SigningKeyRow } from './subject-check.js';
import { issuerOf } from './issuer.js';
import { signJws } from './jws.js';
import { createSigner } from './signer.js';

export interface TokenSettings {
    /** PUBLIC_URL; the issuer of a realm is `<publicUrl>/realms/<name>` (API.md §4) */
    publicUrl: string;
    /** TOKEN_ACCESS_MAX_AGE seconds (spec Authentication rule 13: 15 minutes by default) */
    accessMaxAge: number;
    /** TOKEN_REFRESH_MAX_AGE seconds */
    refreshMaxAge: number;
}

export interface IssueRequest {
    subject: TokenSubject;
    clientId: string | null;
    scope: string;
    sessionId: string;
    /** also issue a refresh token (stored as an auth_session_tokens row) */
    refresh: boolean;
    /** RFC 8707 §2: the resource server the access token is narrowed to (its `aud`); none: the realm's default audience */
    audience?: string | null;
    /**
     * RFC 9068 §2.2: the realm's `defaultAudience`, the `aud` of an access token narrowed to no
     * resource; null: the realm's issuer URL, which stands for every resource server of the realm
     */
    defaultAudience: string | null;
    /** RFC 8707 §2.2: the resource the grant was narrowed to, carried by the refresh token for its next uses */
    grantResource?: string | null;
    /** RFC 8693 §4.1: the actor of a delegated token */
    act?: ActClaim | null;
    /** the latest `exp` (seconds) the access token may have: an exchanged token never outlives its subject token (RFC 8693 §2.1) */
    notAfter?: number | null;
    /** RFC 9449 §6.1: the thumbprint of the DPoP key the access token is bound to (`cnf.jkt`); null or absent: a bearer token */
    accessJkt?: string | null;
    /** RFC 9449 §5: the DPoP key a public client's refresh token is bound to */
    refreshJkt?: string | null;
}

/** Where the issuer hands a token it signed, with its claims and key row (tokens/verifying.ts rememberSigned). */
export type SignedTokenSink = (token: string, claims: TokenClaims, key: SigningKeyRow) => void;

/**
 * A refresh: new access and refresh tokens in the session, the refresh token's row rotated from the
 * spent one's. `session`: its last activity and expiry as read, so the rotation writes them only
 * when due (storage/session-tokens.ts sessionTouchDue); absent: always.
 */
export type RotationRequest = Omit<IssueRequest, 'refresh'> & { spentJti: string; session?: { seenAt: Date | null; expiresAt: Date } };

export interface IdTokenRequest {
    subject: TokenSubject;
    /** the audience: an ID token is always issued to a client */
    clientId: string;
    sessionId: string;
    /** the session's authentication time (`auth_time`, Core §2) */
    authTime: Date;
    /** the profile claims the granted scopes release; absent ones are omitted, never null */
    claims: Record<string, string | number | boolean | string[]>;
    /** the authorization request's `nonce` (Core §3.1.2.1), echoed when it was sent */
    nonce?: string | null;
    /** the access token issued beside it, bound by `at_hash` (Core §3.1.3.6) */
    accessToken?: string;
    /** the authentication strength to state (Core §2 `acr`), when the request asked with acr_values */
    acr?: string | null;
    /** the client's registered id_token_signed_response_alg (null: RS256, OIDC Registration §2) */
    algorithm?: string | null;
}

/**
 * OpenID Connect Core §3.1.3.6 `at_hash`: the left half of the hash of the access token's ASCII
 * octets, base64url — SHA-256 for both RS256 and ES256 (the hash of their `alg`).
 */
function accessTokenHash(accessToken: string): string {
    const digest = createHash('sha256').update(accessToken, 'ascii').digest();
    return digest.subarray(0, digest.length / 2).toString('base64url');
}

/** RFC 9449 §6.1 (RFC 7800 §3.1): the `cnf` claim of a token bound to a DPoP key; nothing for a bearer token. */
const confirmation = (jkt: string | null) => (jkt === null ? {} : { cnf: { jkt } });

/** A multi-factor ticket: the password was right, the second factor is pending. */
export interface MfaTokenRequest {
    subject: TokenSubject;
    clientId: string | null;
    scope: string;
    /** the auth_mfa_tickets row id: jti and session_id of the ticket */
    ticketId: string;
    expiresIn: number;
}

export interface IssuedTokens {
    accessToken: string;
    /** RFC 9449 §5: `DPoP` when the access token is bound to a key */
    tokenType: 'Bearer' | 'DPoP';
    expiresIn: number;
    refreshToken?: string;
}

export interface TokenIssuer {
    issue(db: Kysely<Database>, request: IssueRequest): Promise<IssuedTokens>;
    /**
     * RFC 9700 §4.14.2: the successors of a spent refresh token, whose row becomes the new token's,
     * the session extended to its expiry; null when that row was gone already (a replay, or a
     * concurrent use won)
     */
    rotate(db: Kysely<Database>, request: RotationRequest): Promise<IssuedTokens | null>;
    /**
     * An OpenID Connect ID token (Core §2), signed RS256 — the algorithm every relying party
     * supports (Core §15.1) — by the realm's RS256 key, created on demand; ES256 by the realm's
     * ES256 key for a client that registered it (OIDC Registration §2). Its `kind` makes it
     * useless as a bearer, at introspection and at revocation.
     */
    issueIdToken(db: Kysely<Database>, request: IdTokenRequest): Promise<string>;
    /**
     * An mfa_token: the access-token claims with kind `mfa_token`, bound to user, client, scope and
     * realm; useless as a bearer (kind check) and at introspection (bare inactive answer).
     */
    issueMfaToken(db: Kysely<Database>, request: MfaTokenRequest): Promise<string>;
}

/**
 * Signing access, refresh and ID tokens with the realm's active key (API.md §4). `failClosed` says
 * where a new refresh token's row written outside a transaction goes: its loss only makes the
 * refresh token unusable (db/asynchronous-commit.ts); a rotation, which spends a token, runs where it is asked.
 */
export function createTokenIssuer(
    dialect: DialectName, keys: KeyStore, settings: TokenSettings, failClosed: FailClosedWriter = sameDatabase, signed?: SignedTokenSink,
): TokenIssuer {
    const signer = createSigner(keys);
    // outside a transaction, concurrent logins' refresh token rows share one INSERT (one commit), as their sessions do
    const batchedRefreshTokens = createInsertBatcher(insertRefreshTokenRows);

    /**
     * The access token and, with `refresh`, a refresh token signed for the request; the refresh
     * token's row is the caller's to write (inserted for a login, rotated for a refresh).
     */
    const signTokens = async (db: Kysely<Database>, request: Omit<IssueRequest, 'refresh'>, refresh: boolean) => {
        const { kid, algorithm, key, createdAt } = await signer(db, request.subject.realmId);
        const iat = Math.floor(Date.now() / 1000);
        const iss = issuerOf(settings.publicUrl, request.subject.realmName);
        const base = {
            iss,
            sub: request.subject.id,
            sub_kind: request.subject.kind,
            realm_id: request.subject.realmId,
            realm_name: request.subject.realmName,
            ...(request.clientId ? { client_id: request.clientId } : {}),
            scope: request.scope,
            session_id: request.sessionId,
            iat,
        };
        const accessJkt = request.accessJkt ?? null;
        const accessExp = Math.min(iat + settings.accessMaxAge, request.notAfter ?? Number.POSITIVE_INFINITY);
        // RFC 9068 §2.2: iss, exp, aud, sub, client_id (when a client is involved), iat and jti
        const access = {
            ...base, kind: TOKEN_KIND.ACCESS, jti: randomUUID(), exp: accessExp,
            aud: request.audience || request.defaultAudience || iss,
            ...(request.act ? { act: request.act } : {}),
            ...confirmation(accessJkt),
        };
        const issued: IssuedTokens = {
            accessToken: signJws(algorithm, kid, access, key, ACCESS_TOKEN_JWT_TYPE), tokenType: accessJkt === null ? 'Bearer' : 'DPoP', expiresIn: accessExp - iat,
        };
        if (!refresh) return { issued, row: null };
        const jti = timeOrderedId();
        const exp = iat + settings.refreshMaxAge;
        const refreshClaims = {
            ...base, kind: TOKEN_KIND.REFRESH, jti, exp, ...(request.grantResource ? { resource: request.grantResource } : {}), ...confirmation(request.refreshJkt ?? null),
        };
        issued.refreshToken = signJws(algorithm, kid, refreshClaims, key);
        // a refresh token only ever comes back to this server: its next use skips the signature check here
        const remembered = signed && claimsOf(refreshClaims);
        if (remembered) signed(issued.refreshToken, remembered, { kid, createdAt });
        return { issued, row: { id: jti, sessionId: request.sessionId, expiresAt: new Date(exp * 1000), createdAt: new Date(iat * 1000) } };
    };

    return {
        async issue(db, request) {
            const { issued, row } = await signTokens(db, request, request.refresh);
            if (row === null) return issued;
            const stored = refreshTokenRowOf(dialect, row);
            // inside a transaction the row belongs to it and is written at once
            await (db.isTransaction ? insertRefreshTokenRows(db, [stored]) : batchedRefreshTokens(failClosed(db), stored));
            return issued;
        },
        async rotate(db, request) {
            const { issued, row } = await signTokens(db, request, true);
            return (await rotateRefreshToken(db, dialect, request.spentJti, row!, request.session)) ? issued : null;
        },
        async issueMfaToken(db, request) {
            const { kid, algorithm, key } = await signer(db, request.subject.realmId);
            const iat = Math.floor(Date.now() / 1000);
            return signJws(algorithm, kid, {
                iss: issuerOf(settings.publicUrl, request.subject.realmName),
                sub: request.subject.id,
                sub_kind: request.subject.kind,
                kind: TOKEN_KIND.MFA,
                realm_id: request.subject.realmId,
                realm_name: request.subject.realmName,
                ...(request.clientId ? { client_id: request.clientId } : {}),
                scope: request.scope,
                session_id: request.ticketId,
                jti: request.ticketId,
                iat,
                exp: iat + request.expiresIn,
            }, key);
        },
        async issueIdToken(db, request) {
            const { kid, algorithm, key } = await signer(db, request.subject.realmId, idTokenAlgorithmOf(request.algorithm));
            const iat = Math.floor(Date.now() / 1000);
            const claims = {
                // the profile claims first, so no member of them can replace a protocol claim
                ...request.claims,
                iss: issuerOf(settings.publicUrl, request.subject.realmName),
                sub: request.subject.id,
                aud: request.clientId,
                azp: request.clientId,
                kind: ID_TOKEN_KIND,
                realm_id: request.subject.realmId,
                realm_name: request.subject.realmName,
                sid: request.sessionId,
                auth_time: Math.floor(request.authTime.getTime() / 1000),
                // absent, never null (Core §2: a claim without a value is omitted)
                ...(request.nonce ? { nonce: request.nonce } : {}),
                ...(request.acr ? { acr: request.acr } : {}),
                ...(request.accessToken ? { at_hash: accessTokenHash(request.accessToken) } : {}),
                iat,
                exp: iat + settings.accessMaxAge,
            };
            return signJws(algorithm, kid, claims, key);
        },
    };
}
