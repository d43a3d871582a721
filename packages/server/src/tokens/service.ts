import { isCanonicalUuid } from '@realmgate/core';
import { createPublicKey, randomUUID, type JsonWebKey, type KeyObject } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { issuerOf } from './issuer.js';
import { toDbDate, type DialectName } from '../db/values.js';
import type { SigningAlgorithm } from '../keys/material.js';
import type { KeyStore } from '../keys/store.js';
import { claimsOf, ID_TOKEN_ALGORITHM, ID_TOKEN_KIND, TOKEN_KIND, type TokenClaims, type TokenKind, type TokenSubject } from './claims.js';
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

export interface IssuedTokens {
    accessToken: string;
    expiresIn: number;
    refreshToken?: string;
    refreshExpiresAt?: Date;
}

/** Why a token is refused; the codes are the API.md §1 401 codes. */
export type TokenFailure = {
    ok: false;
    code: 'invalid_token' | 'expired_token' | 'inactive_token';
    message: string;
    /**
     * not a token this deployment signed: malformed, or a signature a known key refutes (spec
     * Limits counts these). A kid no key row has is not marked: it may be a deleted key's token.
     */
    unsigned?: true;
};
export type Verification = { ok: true; claims: TokenClaims } | TokenFailure;

export interface TokenService {
    readonly settings: TokenSettings;
    issue(db: Kysely<Database>, request: IssueRequest): Promise<IssuedTokens>;
    /**
     * An OpenID Connect ID token (Core §2), signed RS256 — the algorithm every relying party
     * supports (Core §15.1) — by the realm's RS256 key, created on demand. Its `kind` makes it
     * useless as a bearer, at introspection and at revocation.
     */
    issueIdToken(db: Kysely<Database>, request: IdTokenRequest): Promise<string>;
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
    /**
     * RFC 7662 §2.2 and the spec's Introspection response: the claims of an access or refresh token
     * whose signature verifies, with the reason it is inactive (null: active). A refresh token is
     * active while its auth_session_tokens row exists and its session is live. Null for anything
     * else — a token that does not verify, an id_token or a multi-factor ticket.
     */
    inspect(db: Kysely<Database>, token: string): Promise<{ claims: TokenClaims; failure: TokenFailure | null } | null>;
}


/** Verified tokens remembered per process: a few MB at most, more than the live tokens of a busy minute. */
const VERIFIED_TOKENS_CACHED = 10_000;

const fail = (code: TokenFailure['code'], message: string): TokenFailure => ({ ok: false, code, message });
const unsigned = (message: string): TokenFailure => ({ ok: false, code: 'invalid_token', message, unsigned: true });

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

    const signer = async (db: Kysely<Database>, realmId: string, algorithm?: SigningAlgorithm) => {
        let active = await keys.activeSigningKey(db, realmId, algorithm);
        if (!active) {
            // a realm whose keys are all disabled or passive (or that never had one) still issues:
            // a fresh key is created on demand; the disabled keys' tokens stay inactive (spec States)
            await keys.ensureSigningKey(db, realmId, algorithm);
            active = await keys.activeSigningKey(db, realmId, algorithm);
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

    /**
     * What never changes under a kid (a new key is a new row): its realm, algorithm and public key.
     * Its status is never cached — it is read on every verification (spec States).
     */
    const keyMaterial = new Map<string, { realmId: string; algorithm: SigningAlgorithm; publicKey: KeyObject }>();
    /**
     * Tokens whose signature already verified, with their claims: a signature stays valid, so
     * re-verifying it on every request (the bulk of an ES256 bearer request's CPU) proves nothing
     * new. Only the immutable part is remembered; key status, session and subject are read on
     * every use. Bounded; expired tokens drop out when met.
     */
    const verifiedTokens = new Map<string, { claims: TokenClaims; kid: string }>();

    const materialOf = async (db: Kysely<Database>, kid: string) => {
        let material = keyMaterial.get(kid);
        if (!material) {
            const row = await db.selectFrom('auth_keys').select(['realm_id', 'algorithm', 'public_key'])
                .where('id', '=', kid).where('use', '=', 'sig').executeTakeFirst();
            if (!row?.realm_id || !row.public_key) return undefined;
            material = { realmId: row.realm_id, algorithm: row.algorithm as SigningAlgorithm, publicKey: publicKeyOf(kid, row.public_key) };
            keyMaterial.set(kid, material);
        }
        return material;
    };

    /**
     * A kid with no key: a token signed by a deleted key of its realm is ours and inactive (spec
     * States, Errors: inactive_token; spec Limits: not a failed authentication); anything else
     * names a key nobody can check — refused, yet not counted either, since a tombstone may have
     * been pruned after the token expired.
     */
    const buried = async (db: Kysely<Database>, kid: string, claims: TokenClaims, decoded: NonNullable<ReturnType<typeof decodeJws>>): Promise<TokenFailure> => {
        const tombstone = await db.selectFrom('auth_key_tombstones').select(['realm_id', 'algorithm', 'public_key'])
            .where('id', '=', kid).executeTakeFirst();
        if (tombstone?.realm_id === claims.realm_id &&
            verifyJws(tombstone.algorithm as SigningAlgorithm, publicKeyOf(kid, tombstone.public_key), decoded)) {
            return fail('inactive_token', 'The token is inactive: its signing key was deleted.');
        }
        return fail('invalid_token', 'The token is invalid.');
    };

    /** the claims and kid of a token whose signature verifies by a key of the realm it names */
    const signatureOf = async (db: Kysely<Database>, token: string): Promise<{ ok: true; claims: TokenClaims; kid: string } | TokenFailure> => {
        const remembered = verifiedTokens.get(token);
        if (remembered) {
            if (remembered.claims.exp * 1000 > Date.now()) return { ok: true, ...remembered };
            verifiedTokens.delete(token);
        }
        const decoded = decodeJws(token);
        const kid = decoded?.header.kid;
        // spec Authentication rule 4: a token without realm_id or with a non-UUID kid is refused
        if (!decoded || typeof kid !== 'string' || !isCanonicalUuid(kid)) return unsigned('The token is malformed.');
        const claims = claimsOf(decoded.payload);
        if (!claims) return unsigned('The token is malformed.');
        const material = await materialOf(db, kid);
        if (!material) return buried(db, kid, claims, decoded);
        // spec Authentication rule 2: only a key of the realm the token names may vouch for it
        if (material.realmId !== claims.realm_id || !verifyJws(material.algorithm, material.publicKey, decoded)) {
            return unsigned('The token is invalid.');
        }
        if (verifiedTokens.size >= VERIFIED_TOKENS_CACHED) verifiedTokens.delete(verifiedTokens.keys().next().value!);
        verifiedTokens.set(token, { claims, kid });
        return { ok: true, claims, kid };
    };

    /** signature and realm of a token; `disabled` reports the key's status mark (spec States) */
    const verifySignature = async (db: Kysely<Database>, token: string): Promise<{ ok: true; claims: TokenClaims; disabled: boolean } | TokenFailure> => {
        const signed = await signatureOf(db, token);
        if (!signed.ok) return signed;
        const row = await db.selectFrom('auth_keys').select('status').where('id', '=', signed.kid).where('use', '=', 'sig').executeTakeFirst();
        if (!row) return fail('inactive_token', 'The token is inactive: its signing key was deleted.');
        return { ok: true, claims: signed.claims, disabled: row.status === 'disabled' };
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
            const signed = await signatureOf(db, token);
            if (!signed.ok) return signed;
            const { claims } = signed;
            if (claims.kind !== TOKEN_KIND.ACCESS) return fail('invalid_token', 'The token is not an access token.');
            if (claims.exp * 1000 <= Date.now()) return fail('expired_token', 'The token has expired.');
            // key status, session and subject in one query (spec States, Authentication rule 2)
            const failure = await verifySubjectAndSession(db, claims, signed.kid);
            return failure ?? { ok: true, claims };
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
        async inspect(db, token) {
            const signed = await signatureOf(db, token);
            if (!signed.ok) return null;
            const { claims } = signed;
            if (claims.kind !== TOKEN_KIND.ACCESS && claims.kind !== TOKEN_KIND.REFRESH) return null;
            if (claims.exp * 1000 <= Date.now()) return { claims, failure: fail('expired_token', 'The token has expired.') };
            if (claims.kind === TOKEN_KIND.REFRESH) {
                const row = await db.selectFrom('auth_session_tokens').select('id').where('id', '=', claims.jti)
                    .where('kind', '=', TOKEN_KIND.REFRESH).where('session_id', '=', claims.session_id).executeTakeFirst();
                if (!row) return { claims, failure: fail('inactive_token', 'The refresh token was used or revoked.') };
            }
            // the key's mark, session and subject in one query, as for a bearer
            return { claims, failure: await verifySubjectAndSession(db, claims, signed.kid) };
        },
    };
}
