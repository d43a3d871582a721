import { randomUUID, type KeyObject } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { DialectName } from '../db/values.js';
import type { SigningAlgorithm } from '../keys/material.js';
import type { KeyStore } from '../keys/store.js';
import { insertRefreshToken } from '../storage/session-tokens.js';
import { ID_TOKEN_ALGORITHM, ID_TOKEN_KIND, TOKEN_KIND, type TokenSubject } from './claims.js';
import { issuerOf } from './issuer.js';
import { signJws } from './jws.js';

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
}

export interface IdTokenRequest {
    subject: TokenSubject;
    /** the audience: an ID token is always issued to a client */
    clientId: string;
    sessionId: string;
    /** the session's authentication time (`auth_time`, Core §2) */
    authTime: Date;
    /** the profile claims the granted scopes release; absent ones are omitted, never null */
    claims: Record<string, string | number | boolean | string[]>;
}

/** A multi-factor ticket (issue 14): the password was right, the second factor is pending. */
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
    expiresIn: number;
    refreshToken?: string;
    refreshExpiresAt?: Date;
}

export interface TokenIssuer {
    issue(db: Kysely<Database>, request: IssueRequest): Promise<IssuedTokens>;
    /**
     * An OpenID Connect ID token (Core §2), signed RS256 — the algorithm every relying party
     * supports (Core §15.1) — by the realm's RS256 key, created on demand. Its `kind` makes it
     * useless as a bearer, at introspection and at revocation.
     */
    issueIdToken(db: Kysely<Database>, request: IdTokenRequest): Promise<string>;
    /**
     * An mfa_token: the access-token claims with kind `mfa_token`, bound to user, client, scope and
     * realm; useless as a bearer (kind check) and at introspection (bare inactive answer).
     */
    issueMfaToken(db: Kysely<Database>, request: MfaTokenRequest): Promise<string>;
}

/** Signing access, refresh and ID tokens with the realm's active key (API.md §4). */
export function createTokenIssuer(dialect: DialectName, keys: KeyStore, settings: TokenSettings): TokenIssuer {
    /**
     * Private keys unwrapped and parsed once per key row: keyed by realm, kid and the row's
     * creation stamp, since a kid names one row at a time — a row re-created under an old kid
     * (another realm's, or the same realm's later) never signs with the material it replaced.
     */
    const privateKeys = new Map<string, KeyObject>();

    const signer = async (db: Kysely<Database>, realmId: string, algorithm?: SigningAlgorithm) => {
        let active = await keys.activeSigningKey(db, realmId, algorithm);
        if (!active) {
            // a realm whose keys are all disabled or passive (or that never had one) still issues:
            // a fresh key is created on demand; the disabled keys' tokens stay inactive (spec States)
            await keys.ensureSigningKey(db, realmId, algorithm);
            active = await keys.activeSigningKey(db, realmId, algorithm);
            if (!active) throw new Error(`realm ${realmId} has no active signing key`);
        }
        const cacheKey = `${realmId}/${active.kid}/${active.createdAt}`;
        let key = privateKeys.get(cacheKey);
        if (!key) {
            key = await keys.privateKeyFor(db, active.kid);
            if (!key) throw new Error(`signing key ${active.kid} is unavailable`);
            privateKeys.set(cacheKey, key);
        }
        return { kid: active.kid, algorithm: active.algorithm, key };
    };

    return {
        async issue(db, request) {
            const { kid, algorithm, key } = await signer(db, request.subject.realmId);
            const iat = Math.floor(Date.now() / 1000);
            const base = {
                iss: issuerOf(settings.publicUrl, request.subject.realmName),
                sub: request.subject.id,
                sub_kind: request.subject.kind,
                realm_id: request.subject.realmId,
                realm_name: request.subject.realmName,
                ...(request.clientId ? { client_id: request.clientId } : {}),
                scope: request.scope,
                session_id: request.sessionId,
                iat,
            };
            const access = { ...base, kind: TOKEN_KIND.ACCESS, jti: randomUUID(), exp: iat + settings.accessMaxAge };
            const issued: IssuedTokens = { accessToken: signJws(algorithm, kid, access, key), expiresIn: settings.accessMaxAge };
            if (request.refresh) {
                const jti = randomUUID();
                const exp = iat + settings.refreshMaxAge;
                await insertRefreshToken(db, dialect, {
                    id: jti, sessionId: request.sessionId, expiresAt: new Date(exp * 1000), createdAt: new Date(iat * 1000),
                });
                issued.refreshToken = signJws(algorithm, kid, { ...base, kind: TOKEN_KIND.REFRESH, jti, exp }, key);
                issued.refreshExpiresAt = new Date(exp * 1000);
            }
            return issued;
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
            const { kid, algorithm, key } = await signer(db, request.subject.realmId, ID_TOKEN_ALGORITHM);
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
                iat,
                exp: iat + settings.accessMaxAge,
            };
            return signJws(algorithm, kid, claims, key);
        },
    };
}
