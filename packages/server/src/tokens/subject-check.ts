import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { findTokenState, type OwnUserRow } from '../storage/sessions.js';
import type { UserProfile } from '../storage/users.js';
import type { TokenClaims } from './claims.js';
import { tokenFailure as failure, type TokenFailure } from './verification.js';

/** The signing key row a token's signature was verified with: its kid and creation stamp (ms). */
export interface SigningKeyRow {
    kid: string;
    createdAt: number;
}

/**
 * Spec Authentication rule 2: the subject and the session of a token belong to the realm it names;
 * the session row is read on every call, so a revoked session answers 401 on the next request, on
 * every replica (spec States). With `key`, the signing key's mark, realm and row are checked in the
 * same query (disabled or deleted: inactive; another realm's or a re-created row: invalid). Null when the token may be used.
 */
export async function verifySubjectAndSession(
    db: Kysely<Database>, claims: TokenClaims, key: SigningKeyRow | null = null,
    /** receives a user subject's profile, read in the same query (userinfo, introspection) */
    seen?: { profile?: UserProfile | undefined; ownRow?: OwnUserRow | undefined },
): Promise<TokenFailure | null> {
    const kid = key?.kid ?? null;
    const state = await findTokenState(db, { subjectKind: claims.sub_kind, subjectId: claims.sub, sessionId: claims.session_id, kid });
    if (seen && state?.profile) seen.profile = state.profile;
    if (seen && state?.subjectRow) seen.ownRow = state.subjectRow;
    if (!state || state.realmId !== claims.realm_id || state.sub !== claims.sub || state.clientId !== (claims.client_id ?? null)) {
        return failure('invalid_token', 'The token is invalid.');
    }
    if (key !== null) {
        // spec States: a per-key mark checked on every verification; re-enabling revives the token
        // the signature verified by this key earlier in this process: the key was deleted since
        if (state.keyId === null) return failure('inactive_token', 'The token is inactive: its signing key was deleted.');
        // spec Authentication rule 2: only a key of the token's realm vouches for it, and only the
        // very row whose material verified the signature (a kid re-created since names new material)
        if (state.keyCreatedAt !== key.createdAt) return { ...failure('invalid_token', 'The token is invalid.'), keyReplaced: true };
        if (state.keyRealmId !== claims.realm_id) return failure('invalid_token', 'The token is invalid.');
        if (state.keyStatus === 'disabled') return failure('inactive_token', 'The token is inactive: its signing key is disabled.');
    }
    if (state.subjectRealmId === null || state.subjectRealmId !== claims.realm_id) return failure('invalid_token', 'The token is invalid.');
    // spec States: deactivating the user or client ends its sessions
    if (!state.subjectActive) return failure('inactive_token', 'The token is inactive: its subject is inactive.');
    if (state.clientId !== null && !state.clientActive) return failure('inactive_token', 'The token is inactive: its client is inactive.');
    if (state.revoked) return failure('inactive_token', 'The token is inactive: its session has ended.');
    if (state.expiresAt.getTime() <= Date.now()) return failure('inactive_token', 'The token is inactive: its session has expired.');
    return null;
}
