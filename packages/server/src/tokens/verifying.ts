import { isCanonicalUuid, tokenTypeFitsKind } from '@realmgate/core';
import { createPublicKey, type JsonWebKey, type KeyObject } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { SigningAlgorithm } from '../keys/material.js';
import type { UserProfile } from '../storage/users.js';
import { findKeyTombstone, findSigningKeyMaterial, findSigningKeyStatus } from '../storage/keys.js';
import { refreshTokenExists } from '../storage/session-tokens.js';
import { findTokenState, type OwnUserRow, type TokenState } from '../storage/sessions.js';
import { claimsOf, TOKEN_KIND, type TokenClaims, type TokenKind } from './claims.js';
import { decodeJws, verifyJws } from './jws.js';
import { verifySubjectAndSession, type SigningKeyRow } from './subject-check.js';
import { tokenFailure as fail, unsignedToken as unsigned, type TokenFailure, type Verification } from './verification.js';

export interface TokenVerifier {
    /** an access token for a request (spec Authentication rule 2; session checked on every call) */
    verifyAccessToken(db: Kysely<Database>, token: string): Promise<Verification>;
    /**
     * signature, key mark, kind and expiry of a refresh token, with its session's and subject's
     * state read in the same query (undefined when the session row is gone); what they mean for a
     * rotation is the grant's to decide
     */
    verifyRefreshToken(db: Kysely<Database>, token: string): Promise<RefreshVerification>;
    /** signature, kind and expiry of an mfa_token; its single use is the redeeming grant's to enforce */
    verifyMfaToken(db: Kysely<Database>, token: string): Promise<Verification>;
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
     * else — a token that does not verify, an id_token or a multi-factor ticket. `profile`: a user
     * subject's profile, read with the token's state.
     */
    inspect(db: Kysely<Database>, token: string): Promise<{ claims: TokenClaims; failure: TokenFailure | null; profile?: UserProfile } | null>;
    /**
     * A token this process has just signed, with its claims and key row: its signature needs no
     * verification when it comes back (tokens/issuing.ts hands over each refresh token).
     */
    rememberSigned(token: string, claims: TokenClaims, key: SigningKeyRow): void;
    /** the realm a token names when its signature is remembered as verified (a grant's realm hint), else undefined */
    rememberedRealmOf(token: string): string | undefined;
}

/** A refresh token that verified, with the state of its session, subject and signing key, read once. */
export type RefreshVerification = { ok: true; claims: TokenClaims; state: TokenState | undefined } | TokenFailure;

/** Verified tokens remembered per process: a few MB at most, more than the live tokens of a busy minute. */
const VERIFIED_TOKENS_CACHED = 10_000;

/** Verifying this server's tokens: signature by a key of the realm a token names, then its state (spec States). */
export function createTokenVerifier(): TokenVerifier {
    /**
     * Parsed public keys by their stored JWK text: content-addressed, so a kid re-created with
     * other material, or a tombstone beside a live row, can never be answered with another key.
     */
    const publicKeys = new Map<string, KeyObject>();
    const publicKeyOf = (stored: string): KeyObject => {
        let key = publicKeys.get(stored);
        if (!key) {
            key = createPublicKey({ key: JSON.parse(stored) as JsonWebKey, format: 'jwk' });
            publicKeys.set(stored, key);
        }
        return key;
    };

    /**
     * What never changes in one key row: its realm, algorithm, public key and creation stamp. A kid
     * names one row at a time, not one key forever: every use compares the live row's realm and
     * stamp with these (subject-check.ts, verifySignature) and forgets them when they differ. Its
     * status is never cached — it is read on every verification (spec States).
     */
    const keyMaterial = new Map<string, { realmId: string; algorithm: SigningAlgorithm; publicKey: KeyObject; createdAt: number }>();
    /**
     * Tokens whose signature already verified, with their claims and the key row that verified
     * them: a signature stays valid, so re-verifying it on every request (the bulk of an ES256
     * bearer request's CPU) proves nothing new. Only the immutable part is remembered; key status
     * and row, session and subject are read on every use. Bounded; expired tokens drop out when met.
     */
    const verifiedTokens = new Map<string, { claims: TokenClaims; key: SigningKeyRow }>();

    const remember = (token: string, claims: TokenClaims, key: SigningKeyRow): void => {
        if (verifiedTokens.size >= VERIFIED_TOKENS_CACHED) verifiedTokens.delete(verifiedTokens.keys().next().value!);
        verifiedTokens.set(token, { claims, key });
    };

    /** the kid names another row now: nothing remembered under it may vouch for anything again */
    const forgetKey = (kid: string): void => {
        keyMaterial.delete(kid);
        for (const [token, verified] of verifiedTokens) if (verified.key.kid === kid) verifiedTokens.delete(token);
    };

    const materialOf = async (db: Kysely<Database>, kid: string) => {
        let material = keyMaterial.get(kid);
        if (!material) {
            const stored = await findSigningKeyMaterial(db, kid);
            if (!stored?.realmId || !stored.publicKey) return undefined;
            material = { realmId: stored.realmId, algorithm: stored.algorithm as SigningAlgorithm, publicKey: publicKeyOf(stored.publicKey), createdAt: stored.createdAt };
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
            verifyJws(tombstone.algorithm as SigningAlgorithm, publicKeyOf(tombstone.publicKey), decoded)) {
            return fail('inactive_token', 'The token is inactive: its signing key was deleted.');
        }
        return fail('invalid_token', 'The token is invalid.');
    };

    /** the claims and key row of a token whose signature verifies by a key of the realm it names */
    const signatureOf = async (db: Kysely<Database>, token: string): Promise<{ ok: true; claims: TokenClaims; key: SigningKeyRow } | TokenFailure> => {
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
        // RFC 9068 §4: a token typed as an access token is one, and only one (never signed otherwise here)
        if (!tokenTypeFitsKind(decoded.header.typ, claims.kind)) return unsigned('The token type does not match its kind.');
        // spec Authentication rule 2: only a key of the realm the token names may vouch for it
        const vouches = (material: { realmId: string; algorithm: SigningAlgorithm; publicKey: KeyObject }) =>
            material.realmId === claims.realm_id && verifyJws(material.algorithm, material.publicKey, decoded);
        const materialWasRemembered = keyMaterial.has(kid);
        let material = await materialOf(db, kid);
        if (!material) return buried(db, kid, claims, decoded);
        if (!vouches(material)) {
            if (!materialWasRemembered) return unsigned('The token is invalid.');
            // the kid may name a row re-created since its material was remembered: read it once more
            forgetKey(kid);
            material = await materialOf(db, kid);
            if (!material) return buried(db, kid, claims, decoded);
            if (!vouches(material)) return unsigned('The token is invalid.');
        }
        const key = { kid, createdAt: material.createdAt };
        remember(token, claims, key);
        return { ok: true, claims, key };
    };

    /**
     * The token's signature, then `check` against the live rows; when the kid turned out to name
     * a re-created row, what was remembered under it is forgotten and the token verified afresh once.
     */
    const withLiveKey = async <T>(
        db: Kysely<Database>, token: string,
        check: (signed: { claims: TokenClaims; key: SigningKeyRow }) => Promise<T | TokenFailure>,
    ): Promise<T | TokenFailure> => {
        for (let attempt = 0; ; attempt++) {
            const signed = await signatureOf(db, token);
            if (!signed.ok) return signed;
            const result = await check(signed);
            const failure = result as TokenFailure | undefined;
            if (failure?.ok !== false || !failure.keyReplaced) return result;
            forgetKey(signed.key.kid);
            if (attempt > 0) return fail('invalid_token', 'The token is invalid.');
        }
    };

    /** signature and realm of a token; `disabled` reports the key's status mark (spec States) */
    const verifySignature = (db: Kysely<Database>, token: string): Promise<{ ok: true; claims: TokenClaims; disabled: boolean } | TokenFailure> =>
        withLiveKey(db, token, async ({ claims, key }) => {
            const row = await findSigningKeyStatus(db, key.kid);
            if (row === undefined) return fail('inactive_token', 'The token is inactive: its signing key was deleted.');
            if (row.createdAt !== key.createdAt) return { ...fail('invalid_token', 'The token is invalid.'), keyReplaced: true as const };
            if (row.realmId !== claims.realm_id) return fail('invalid_token', 'The token is invalid.');
            return { ok: true as const, claims, disabled: row.status === 'disabled' };
        });

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
        // the same bounded memory as a verified signature: the key row's status, realm and stamp are still read on every use
        rememberSigned: remember,
        rememberedRealmOf: (token) => verifiedTokens.get(token)?.claims.realm_id,
        verifyAccessToken: (db, token) => withLiveKey<Verification>(db, token, async ({ claims, key }) => {
            if (claims.kind !== TOKEN_KIND.ACCESS) return fail('invalid_token', 'The token is not an access token.');
            if (claims.exp * 1000 <= Date.now()) return fail('expired_token', 'The token has expired.');
            // key status and row, session and subject in one query (spec States, Authentication rule 2)
            const seen: { profile?: UserProfile; ownRow?: OwnUserRow } = {};
            const failure = await verifySubjectAndSession(db, claims, key, seen);
            if (failure) return failure;
            const verified: Verification = { ok: true, claims };
            if (seen.profile) verified.profile = seen.profile;
            if (seen.ownRow) verified.ownRow = seen.ownRow;
            return verified;
        }),
        verifyRefreshToken: (db, token) => withLiveKey<RefreshVerification>(db, token, async ({ claims, key }) => {
            // the key's mark and row, the session and the subject in one query (a rotation reads once)
            const state = await findTokenState(db, { subjectKind: claims.sub_kind, subjectId: claims.sub, sessionId: claims.session_id, kid: key.kid });
            // no session row, so no key columns either: the key is read on its own, as verifySigned does
            const keyRow = state ?
                (state.keyId === null ? undefined : { realmId: state.keyRealmId, createdAt: state.keyCreatedAt, status: state.keyStatus }) :
                await findSigningKeyStatus(db, key.kid);
            if (keyRow === undefined) return fail('inactive_token', 'The token is inactive: its signing key was deleted.');
            if (keyRow.createdAt !== key.createdAt) return { ...fail('invalid_token', 'The token is invalid.'), keyReplaced: true as const };
            if (keyRow.realmId !== claims.realm_id) return fail('invalid_token', 'The token is invalid.');
            // spec States: a per-key mark checked on every verification; re-enabling revives the token
            if (keyRow.status === 'disabled') return fail('inactive_token', 'The token is inactive: its signing key is disabled.');
            if (claims.kind !== TOKEN_KIND.REFRESH) return fail('invalid_token', 'The token is not an refresh token.');
            if (claims.exp * 1000 <= Date.now()) return fail('expired_token', 'The token has expired.');
            return { ok: true, claims, state };
        }),
        verifyMfaToken: (db, token) => verifySigned(db, token, TOKEN_KIND.MFA),
        async verifyForRevocation(db, token) {
            const signed = await verifySignature(db, token);
            if (!signed.ok) return null;
            const { claims } = signed;
            if (claims.kind !== TOKEN_KIND.ACCESS && claims.kind !== TOKEN_KIND.REFRESH) return null;
            return claims.exp * 1000 > Date.now() ? claims : null;
        },
        async inspect(db, token) {
            type Inspected = { ok: true; claims: TokenClaims; failure: TokenFailure | null; profile?: UserProfile };
            const inspected = await withLiveKey<Inspected | null>(db, token, async ({ claims, key }) => {
                if (claims.kind !== TOKEN_KIND.ACCESS && claims.kind !== TOKEN_KIND.REFRESH) return null;
                if (claims.exp * 1000 <= Date.now()) return { ok: true, claims, failure: fail('expired_token', 'The token has expired.') };
                if (claims.kind === TOKEN_KIND.REFRESH && !(await refreshTokenExists(db, claims.jti, claims.session_id))) {
                    return { ok: true, claims, failure: fail('inactive_token', 'The refresh token was used or revoked.') };
                }
                // the key's mark and row, session and subject in one query, as for a bearer
                const seen: { profile?: UserProfile } = {};
                const failure = await verifySubjectAndSession(db, claims, key, seen);
                if (failure?.keyReplaced) return failure;
                return seen.profile ? { ok: true, claims, failure, profile: seen.profile } : { ok: true, claims, failure };
            });
            if (!inspected?.ok) return null;
            const { claims, failure, profile } = inspected;
            return profile ? { claims, failure, profile } : { claims, failure };
        },
    };
}
