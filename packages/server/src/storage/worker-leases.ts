import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { toDbDate, type DialectName } from '../db/values.js';

/**
 * Takes or renews the lease `name` for `holder` until `until` (migration 0008). The row is created
 * expired when missing (insert-or-ignore: two workers creating it at once both go on), then taken
 * by one conditional UPDATE: only when it has expired or is already ours. The UPDATE is the atomic
 * step on every dialect — PostgreSQL (read committed) and InnoDB re-evaluate the condition on the
 * row version they waited for, SQLite has a single writer — so of several workers racing for an
 * expired lease exactly one sees a row updated.
 */
export async function takeLease(db: Kysely<Database>, dialect: DialectName, name: string, holder: string, now: Date, until: Date): Promise<boolean> {
    const expired = toDbDate(dialect, new Date(0));
    const insert = db.insertInto('auth_worker_leases').values({ name, holder: '', expires_at: expired });
    await (dialect === 'mysql' ? insert.ignore() : insert.onConflict((conflict) => conflict.column('name').doNothing())).execute();
    const result = await db.updateTable('auth_worker_leases')
        .set({ holder, expires_at: toDbDate(dialect, until) })
        .where('name', '=', name)
        .where((eb) => eb.or([eb('expires_at', '<=', toDbDate(dialect, now)), eb('holder', '=', holder)]))
        .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
}

/** Gives the lease up early (a worker shutting down), so another takes it on its next pass. */
export async function releaseLeases(db: Kysely<Database>, holder: string): Promise<void> {
    await db.deleteFrom('auth_worker_leases').where('holder', '=', holder).execute();
}
