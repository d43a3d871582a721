import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { prepareQuery } from '../db/prepared.js';
import { fromDbBool, fromDbDate } from '../db/values.js';
import type { TokenClaims } from './claims.js';
import type { TokenFailure } from './service.js';

const failure = (code: TokenFailure['code'], message: string): TokenFailure => ({ ok: false, code, message });

/** The subject row of a token: a user or a client, by sub_kind. */
export async function findSubject(db: Kysely<Database>, claims: Pick<TokenClaims, 'sub' | 'sub_kind'>) {
    const table = claims.sub_kind === 'user' ? 'auth_users' : 'auth_clients';
    return db.selectFrom(table).select(['realm_id', 'active']).where('id', '=', claims.sub).executeTakeFirst();
}

/** The state query of a token, prepared once per subject table (the SQL only varies by sub_kind). */
function stateQuery(subjectTable: 'auth_users' | 'auth_clients') {
    return prepareQuery((db, param) => db.selectFrom('auth_sessions')
        .leftJoin('auth_clients as session_client', 'session_client.id', 'auth_sessions.client_id')
        // both subject tables have id, realm_id and active
        .leftJoin(`${subjectTable as 'auth_users'} as subject`, (join) => join.on('subject.id', '=', param(0)))
        .leftJoin('auth_keys as signing_key', (join) => join.on('signing_key.id', '=', param(1)).on('signing_key.use', '=', 'sig'))
        .select([
            'auth_sessions.sub', 'auth_sessions.realm_id', 'auth_sessions.client_id', 'auth_sessions.expires_at',
            'auth_sessions.revoked_at', 'session_client.active as client_active',
            'subject.realm_id as subject_realm_id', 'subject.active as subject_active',
            'signing_key.status as key_status', 'signing_key.id as key_id',
        ])
        .where('auth_sessions.id', '=', param(2)));
}
const STATE_OF_USER_TOKEN = stateQuery('auth_users');
const STATE_OF_CLIENT_TOKEN = stateQuery('auth_clients');

/**
 * Everything that can end a token after it was signed, read in one query on every use: the
 * session row, the session's client, the subject, and — when `kid` is given — the signing key's
 * status mark (spec States). One round trip instead of four on the bearer hot path.
 */
function tokenState(db: Kysely<Database>, claims: TokenClaims, kid: string | null) {
    const query = claims.sub_kind === 'user' ? STATE_OF_USER_TOKEN : STATE_OF_CLIENT_TOKEN;
    return query.first(db, [claims.sub, kid ?? '', claims.session_id]);
}

/**
 * Spec Authentication rule 2: the subject and the session of a token belong to the realm it names;
 * the session row is read on every call, so a revoked session answers 401 on the next request, on
 * every replica (spec States). With `kid`, the signing key's mark is checked in the same query
 * (disabled or deleted: inactive). Null when the token may be used.
 */
export async function verifySubjectAndSession(db: Kysely<Database>, claims: TokenClaims, kid: string | null = null): Promise<TokenFailure | null> {
    const state = await tokenState(db, claims, kid);
    if (!state || state.realm_id !== claims.realm_id || state.sub !== claims.sub || state.client_id !== (claims.client_id ?? null)) {
        return failure('invalid_token', 'The token is invalid.');
    }
    if (kid !== null) {
        // spec States: a per-key mark checked on every verification; re-enabling revives the token
        // the signature verified by this key earlier in this process: the key was deleted since
        if (state.key_id === null) return failure('inactive_token', 'The token is inactive: its signing key was deleted.');
        if (state.key_status === 'disabled') return failure('inactive_token', 'The token is inactive: its signing key is disabled.');
    }
    if (state.subject_realm_id === null || state.subject_realm_id !== claims.realm_id) return failure('invalid_token', 'The token is invalid.');
    // spec States: deactivating the user or client ends its sessions
    if (!fromDbBool(state.subject_active!)) return failure('inactive_token', 'The token is inactive: its subject is inactive.');
    if (state.client_id !== null && !fromDbBool(state.client_active!)) return failure('inactive_token', 'The token is inactive: its client is inactive.');
    if (state.revoked_at !== null) return failure('inactive_token', 'The token is inactive: its session has ended.');
    if (fromDbDate(state.expires_at).getTime() <= Date.now()) return failure('inactive_token', 'The token is inactive: its session has expired.');
    return null;
}
