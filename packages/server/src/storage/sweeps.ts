import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { toDbDate, type DialectName } from '../db/values.js';

/** Tables whose rows are dead once `expires_at` has passed, keyed by `id`. */
export type ExpiringTable = 'auth_authorization_codes' | 'auth_device_codes' | 'auth_mfa_tickets' | 'auth_session_tokens' | 'auth_federated_logins' | 'auth_replay_guards'
    | 'auth_initial_access_tokens' | 'auth_pushed_requests' | 'auth_webauthn_challenges';

/**
 * One bounded batch of the expired rows of a table: the ids first, then a DELETE by id, so a
 * batch never holds more than `limit` row locks and MySQL (which cannot DELETE … LIMIT with a
 * subquery on the same table) runs the same two statements as the others. Returns the rows deleted.
 */
export async function deleteExpiredBatch(db: Kysely<Database>, dialect: DialectName, table: ExpiringTable, now: Date, limit: number): Promise<number> {
    // the four tables share (id, expires_at); Kysely cannot narrow a union of table names, so one is named for the types
    const typed = table as 'auth_mfa_tickets';
    const rows = await db.selectFrom(typed).select('id').where('expires_at', '<', toDbDate(dialect, now)).limit(limit).execute();
    if (rows.length === 0) return 0;
    const result = await db.deleteFrom(typed).where('id', 'in', rows.map((row) => row.id)).executeTakeFirst();
    return Number(result.numDeletedRows);
}

/**
 * One bounded batch of expired sessions (console sessions included: they are rows of
 * auth_sessions with a cookie digest). A browser session is kept while an application session
 * signed in through it is still live, so the cascade from a browser session to its children
 * (tokens/sessions.ts) always finds its parent. Their tokens, authorization and device codes
 * follow by the foreign keys' ON DELETE CASCADE; every token of an expired session has expired too.
 */
export async function deleteExpiredSessionsBatch(db: Kysely<Database>, dialect: DialectName, now: Date, limit: number): Promise<number> {
    const cutoff = toDbDate(dialect, now);
    const rows = await db.selectFrom('auth_sessions as s').select('s.id')
        .where('s.expires_at', '<', cutoff)
        .where(({ not, exists, selectFrom }) => not(exists(
            selectFrom('auth_sessions as child').select('child.id').whereRef('child.parent_id', '=', 's.id').where('child.expires_at', '>=', cutoff),
        )))
        .limit(limit).execute();
    if (rows.length === 0) return 0;
    const result = await db.deleteFrom('auth_sessions').where('id', 'in', rows.map((row) => row.id)).executeTakeFirst();
    return Number(result.numDeletedRows);
}
