import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { markRequestWritten, outsideRequestScope } from '../db/replication.js';

interface PendingInsert<R> {
    row: R;
    done: { resolve(): void; reject(error: unknown): void };
}

/** rows per multi-row INSERT: far below every dialect's bound-parameter limit (14 columns a row) */
const MAX_BATCH = 100;

/**
 * Inserts outside a transaction are written together: the callers that reach this point in the
 * same turn of the event loop (or, with `delayMs`, within that many milliseconds of the first)
 * share one multi-row INSERT, so one commit. A commit costs more than
 * the row on a disk-backed SQLite file (about 150 µs against 20 µs on the development VM,
 * `node packages/server/test/measure/hot-paths.ts`), and logins arrive concurrently. Each caller
 * still gets its own row's outcome; when a batch fails, its rows are retried one by one so only the
 * row at fault reports the error.
 */
export function createInsertBatcher<R>(insert: (db: Kysely<Database>, rows: R[]) => Promise<void>, options: { detached?: boolean; delayMs?: number } = {}) {
    const delayMs = options.delayMs ?? 0;
    const queues = new Map<Kysely<Database>, PendingInsert<R>[]>();
    const flush = async (db: Kysely<Database>, pending: PendingInsert<R>[]) => {
        try {
            await insert(db, pending.map((entry) => entry.row));
            for (const entry of pending) entry.done.resolve();
        } catch (batchError) {
            if (pending.length === 1) {
                pending[0]!.done.reject(batchError);
                return;
            }
            await Promise.all(pending.map(async (entry) => {
                try {
                    await insert(db, [entry.row]);
                    entry.done.resolve();
                } catch (error) {
                    entry.done.reject(error);
                }
            }));
        }
    };
    const timers = new Map<Kysely<Database>, ReturnType<typeof setTimeout>>();
    const flushQueue = (db: Kysely<Database>) => {
        clearTimeout(timers.get(db));
        timers.delete(db);
        const taken = queues.get(db) ?? [];
        queues.delete(db);
        for (let start = 0; start < taken.length; start += MAX_BATCH) void flush(db, taken.slice(start, start + MAX_BATCH));
    };
    return (db: Kysely<Database>, row: R): Promise<void> => new Promise<void>((resolve, reject) => {
        // with read replicas (db/replication.ts): the caller's request reads its own row from the
        // primary from now on, unless the row is detached (the event log: nothing the request reads)
        if (!options.detached) markRequestWritten();
        let queue = queues.get(db);
        if (!queue) {
            queue = [];
            queues.set(db, queue);
            // the batch holds rows of several requests: it runs in none of their scopes (on the primary)
            outsideRequestScope(() => {
                if (delayMs > 0) timers.set(db, setTimeout(() => flushQueue(db), delayMs));
                else setImmediate(() => flushQueue(db));
            });
        }
        queue.push({ row, done: { resolve, reject } });
        // a full batch goes at once, whatever the delay
        if (delayMs > 0 && queue.length >= MAX_BATCH) outsideRequestScope(() => flushQueue(db));
    });
}
