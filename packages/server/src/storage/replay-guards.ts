import type { Kysely } from 'kysely';
import { classifyDbError } from '../db/errors.js';
import type { Database, DbDate } from '../db/schema.js';
import { toDbDate, type DialectName } from '../db/values.js';
import { createInsertBatcher } from './insert-batcher.js';
import { prepareInsert } from './prepared-insert.js';

/**
 * Concurrent claims share one multi-row INSERT (insert-batcher.ts: one commit for many requests,
 * the cost that dominates on SQLite). A batch holding an identifier already recorded — or the same
 * one twice — fails on the primary key and is retried row by row, so each claim still learns
 * whether its own row went in. The INSERT's text is compiled once per row count (prepared-insert.ts).
 */
const insertIdentifiers = createInsertBatcher<{ id: string; expires_at: DbDate }>(prepareInsert('auth_replay_guards', ['id', 'expires_at']));

/**
 * Records a single-use identifier (migration 0018) unless it is already recorded: true for the
 * first use, false for a replay. The primary key decides — atomic on every dialect and across
 * replicas sharing the database. Written on the request pool (synchronous commit): losing this
 * row in a crash would let a replay through, so it may not commit asynchronously.
 */
export async function recordIdentifier(db: Kysely<Database>, dialect: DialectName, id: string, expiresAt: Date): Promise<boolean> {
    try {
        await insertIdentifiers(db, { id, expires_at: toDbDate(dialect, expiresAt) });
        return true;
    } catch (error) {
        if (classifyDbError(error)?.kind === 'unique') return false;
        throw error;
    }
}
