import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { findTokenState } from '../storage/sessions.js';
import type { TokenClaims } from './claims.js';
import { tokenFailure as failure, type TokenFailure } from './verification.js';

/**
 * Spec Authentication rule 2: the subject and the session of a token belong to the realm it names;
 * the session row is read on every call, so a revoked session answers 401 on the next request, on
 * every replica (spec States). With `kid`, the signing key's mark is checked in the same query
 * (disabled or deleted: inactive). Null when the token may be used.
 */
export async function verifySubjectAndSession(db: Kysely<Database>, claims: TokenClaims, kid: string | null = null): Promise<TokenFailure | null> {
    const state = await findTokenState(db, { subjectKind: claims.sub_kind, subjectId: claims.sub, sessionId: claims.session_id, kid });
    if (!state || state.realmId !== claims.realm_id || state.sub !== claims.sub || state.clientId !== (claims.client_id ?? null)) {
        return failure('invalid_token', 'The token is invalid.');
    }
    if (kid !== null) {
        // spec States: a per-key mark checked on every verification; re-enabling revives the token
        // the signature verified by this key earlier in this process: the key was deleted since
        if (state.keyId === null) return failure('inactive_token', 'The token is inactive: its signing key was deleted.');
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
