import { createPublicKey, randomUUID, type JsonWebKey, type KeyObject } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { issuerOf } from '../discovery.js';
import { toDbDate, type DialectName } from '../../db/values.js';
import type { SigningAlgorithm } from '../keys/material.js';
import type { KeyStore } from '../keys/store.js';
import { claimsOf, TOKEN_KIND, type TokenClaims, type TokenKind, type TokenSubject } from './claims.js';
import { decodeJws, signJws, verifyJws } from './jws.js';
import { verifySubjectAndSession } from './subject-check.js';

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

export interface IssuedTokens {
    accessToken: string;
    expiresIn: number;
    refreshToken?: string;
    refreshExpiresAt?: Date;
}

/** Why a token is refused; the codes are the API.md §1 401 codes. */
export type TokenFailure = { ok: false; code: 'invalid_token' | 'expired_token' | 'inactive_token'; message: string };
export type Verification = { ok: true; claims: TokenClaims } | TokenFailure;

export interface TokenService {
    readonly settings: TokenSettings;
    issue(db: Kysely<Database>, request: IssueRequest): Promise<IssuedTokens>;
    /** an access token for a request (spec Authentication rule 2; session checked on every call) */
    verifyAccessToken(db: Kysely<Database>, token: string): Promise<Verification>;
    /** signature, kind and expiry of a refresh token; its row and subject are the grant's to check */
    verifyRefreshToken(db: Kysely<Database>, token: string): Promise<Verification>;
    /** removes a refresh token's row; false when it was already used or revoked (a replay) */
    consumeRefreshToken(db: Kysely<Database>, jti: string): Promise<boolean>;
    /**
     * RFC 7009 §2.1: the claims of an unexpired access or refresh token this server signed with a
     * key of the realm it names — a disabled key included, so that re-enabling the key (spec States)
     * cannot revive a revoked token. Null for anything else (§2.2: an invalid token is no error).
     */
    verifyForRevocation(db: Kysely<Database>, token: string): Promise<TokenClaims | null>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const fail = (code: TokenFailure['code'], message: string): TokenFailure => ({ ok: false, code, message });

export function createTokenService(dialect: DialectName, keys: KeyStore, settings: TokenSettings): TokenService {
    // key material never changes under a kid (a new key is a new row): parsed once, status read every time
    const publicKeys = new Map<string, KeyObject>();
    const privateKeys = new Map<string, KeyObject>();

    const publicKeyOf = (kid: string, stored: string | null): KeyObject => {
        let key = publicKeys.get(kid);
        if (!key) {
            key = createPublicKey({ key: JSON.parse(stored ?? '{}') as JsonWebKey, format: 'jwk' });
            publicKeys.set(kid, key);
        }
        return key;
    };

    const signer = async (db: Kysely<Database>, realmId: string) => {
        let active = await keys.activeSigningKey(db, realmId);
        if (!active) {
            // a realm whose keys are all disabled or passive (or that never had one) still issues:
            // a fresh ES256 key is created on demand; the disabled keys' tokens stay inactive (spec States)
            await keys.ensureSigningKey(db, realmId);
            active = await keys.activeSigningKey(db, realmId);
            if (!active) throw new Error(`realm ${realmId} has no active signing key`);
        }
        let key = privateKeys.get(active.kid);
        if (!key) {
            key = await keys.privateKeyFor(db, active.kid);
            if (!key) throw new Error(`signing key ${active.kid} is unavailable`);
            privateKeys.set(active.kid, key);
        }
        return { kid: active.kid, algorithm: active.algorithm, key };
    };

    /** signature and realm of a token; `disabled` reports the key's status mark (spec States) */
    const verifySignature = async (db: Kysely<Database>, token: string): Promise<{ ok: true; claims: TokenClaims; disabled: boolean } | TokenFailure> => {
        const decoded = decodeJws(token);
        const kid = decoded?.header.kid;
        // spec Authentication rule 4: a token without realm_id or with a non-UUID kid is refused
        if (!decoded || typeof kid !== 'string' || !UUID.test(kid)) return fail('invalid_token', 'The token is malformed.');
        const claims = claimsOf(decoded.payload);
        if (!claims) return fail('invalid_token', 'The token is malformed.');
        const row = await db.selectFrom('auth_keys').select(['realm_id', 'algorithm', 'status', 'public_key'])
            .where('id', '=', kid).where('use', '=', 'sig').executeTakeFirst();
        // spec Authentication rule 2: only a key of the realm the token names may vouch for it
        if (!row || row.realm_id !== claims.realm_id) return fail('invalid_token', 'The token is invalid.');
        if (!verifyJws(row.algorithm as SigningAlgorithm, publicKeyOf(kid, row.public_key), decoded)) {
            return fail('invalid_token', 'The token is invalid.');
        }
        return { ok: true, claims, disabled: row.status === 'disabled' };
    };

    const verifySigned = async (db: Kysely<Database>, token: string, kind: TokenKind): Promise<Verification> => {
        const signed = await verifySignature(db, token);
        if (!signed.ok) return signed;
        const claims = signed.claims;
        // spec States: a per-key mark checked on every verification; re-enabling revives the token
        if (signed.disabled) return fail('inactive_token', 'The token is inactive: its signing key is disabled.');
        if (claims.kind !== kind) return fail('invalid_token', `The token is not an ${kind.replace('_', ' ')}.`);
        if (claims.exp * 1000 <= Date.now()) return fail('expired_token', 'The token has expired.');
        return { ok: true, claims };
    };

    return {
        settings,
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
                await db.insertInto('auth_session_tokens').values({
                    id: jti, kind: TOKEN_KIND.REFRESH, session_id: request.sessionId,
                    expires_at: toDbDate(dialect, new Date(exp * 1000)), created_at: toDbDate(dialect, new Date(iat * 1000)),
                }).execute();
                issued.refreshToken = signJws(algorithm, kid, { ...base, kind: TOKEN_KIND.REFRESH, jti, exp }, key);
                issued.refreshExpiresAt = new Date(exp * 1000);
            }
            return issued;
        },
        async verifyAccessToken(db, token) {
            const verified = await verifySigned(db, token, TOKEN_KIND.ACCESS);
            if (!verified.ok) return verified;
            const failure = await verifySubjectAndSession(db, verified.claims);
            return failure ?? verified;
        },
        verifyRefreshToken: (db, token) => verifySigned(db, token, TOKEN_KIND.REFRESH),
        async consumeRefreshToken(db, jti) {
            // one DELETE decides between concurrent uses: exactly one caller removes the row
            const result = await db.deleteFrom('auth_session_tokens').where('id', '=', jti)
                .where('kind', '=', TOKEN_KIND.REFRESH).executeTakeFirst();
            return Number(result.numDeletedRows) > 0;
        },
        async verifyForRevocation(db, token) {
            const signed = await verifySignature(db, token);
            if (!signed.ok) return null;
            const { claims } = signed;
            if (claims.kind !== TOKEN_KIND.ACCESS && claims.kind !== TOKEN_KIND.REFRESH) return null;
            return claims.exp * 1000 > Date.now() ? claims : null;
        },
    };
}
