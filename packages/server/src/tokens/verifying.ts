import { isCanonicalUuid } from '@realmgate/core';
import { createPublicKey, type JsonWebKey, type KeyObject } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { SigningAlgorithm } from '../keys/material.js';
import { findKeyTombstone, findSigningKeyMaterial, findSigningKeyStatus } from '../storage/keys.js';
import { refreshTokenExists } from '../storage/session-tokens.js';
import { claimsOf, TOKEN_KIND, type TokenClaims, type TokenKind } from './claims.js';
import { decodeJws, verifyJws } from './jws.js';
import { verifySubjectAndSession } from './subject-check.js';
import { tokenFailure as fail, unsignedToken as unsigned, type TokenFailure, type Verification } from './verification.js';

export interface TokenVerifier {
    /** an access token for a request (spec Authentication rule 2; session checked on every call) */
    verifyAccessToken(db: Kysely<Database>, token: string): Promise<Verification>;
    /** signature, kind and expiry of a refresh token; its row and subject are the grant's to check */
    verifyRefreshToken(db: Kysely<Database>, token: string): Promise<Verification>;
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

/** Verifying this server's tokens: signature by a key of the realm a token names, then its state (spec States). */
export function createTokenVerifier(): TokenVerifier {
    // key material never changes under a kid (a new key is a new row): parsed once, status read every time
    const publicKeys = new Map<string, KeyObject>();
    const publicKeyOf = (kid: string, stored: string | null): KeyObject => {
        let key = publicKeys.get(kid);
        if (!key) {
            key = createPublicKey({ key: JSON.parse(stored ?? '{}') as JsonWebKey, format: 'jwk' });
            publicKeys.set(kid, key);
        }
        return key;
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
            const stored = await findSigningKeyMaterial(db, kid);
            if (!stored?.realmId || !stored.publicKey) return undefined;
            material = { realmId: stored.realmId, algorithm: stored.algorithm as SigningAlgorithm, publicKey: publicKeyOf(kid, stored.publicKey) };
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
        const tombstone = await findKeyTombstone(db, kid);
        if (tombstone?.realmId === claims.realm_id &&
            verifyJws(tombstone.algorithm as SigningAlgorithm, publicKeyOf(kid, tombstone.publicKey), decoded)) {
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
        const status = await findSigningKeyStatus(db, signed.kid);
        if (status === undefined) return fail('inactive_token', 'The token is inactive: its signing key was deleted.');
        return { ok: true, claims: signed.claims, disabled: status === 'disabled' };
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
        verifyRefreshToken: (db, token) => verifySigned(db, token, TOKEN_KIND.REFRESH),
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
            if (claims.kind === TOKEN_KIND.REFRESH && !(await refreshTokenExists(db, claims.jti, claims.session_id))) {
                return { claims, failure: fail('inactive_token', 'The refresh token was used or revoked.') };
            }
            // the key's mark, session and subject in one query, as for a bearer
            return { claims, failure: await verifySubjectAndSession(db, claims, signed.kid) };
        },
    };
}
