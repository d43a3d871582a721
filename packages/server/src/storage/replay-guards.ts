import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { toDbDate, type DialectName } from '../db/values.js';

/**
 * Records a single-use identifier (migration 0018) unless it is already recorded: true for the
 * first use, false for a replay. One INSERT that ignores a duplicate key — atomic on every dialect
 * and across replicas sharing the database. Written on the request pool (synchronous commit):
 * losing this row in a crash would let a replay through, so it may not commit asynchronously.
 */
export async function recordIdentifier(db: Kysely<Database>, dialect: DialectName, id: string, expiresAt: Date): Promise<boolean> {
    const insert = db.insertInto('auth_replay_guards').values({ id, expires_at: toDbDate(dialect, expiresAt) });
    const result = await (dialect === 'mysql' ? insert.ignore() : insert.onConflict((conflict) => conflict.column('id').doNothing())).executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0n) === 1;
}
