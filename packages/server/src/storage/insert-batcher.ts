import { SqliteAdapter, type Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { markRequestWritten, outsideRequestScope } from '../db/replication.js';

interface PendingInsert<R> {
    row: R;
    done: { resolve(): void; reject(error: unknown): void };
}

/** rows per multi-row INSERT: far below every dialect's bound-parameter limit (14 columns a row) */
const MAX_BATCH = 100;

/** One batcher's rows of a turn, and how to write them (alone, or inside a shared transaction). */
interface QueuedBatch {
    write(db: Kysely<Database>): Promise<void>;
    /** the batch's rows on their own, each caller answered: the path after a shared transaction failed */
    alone(db: Kysely<Database>): Promise<void>;
    settle(error?: unknown): void;
}

/** Per database handle: the batchers with rows queued this turn, each asked for its batches when the turn flushes. */
const turns = new Map<Kysely<Database>, (() => QueuedBatch[])[]>();

/**
 * SQLite has one writer and its commit is the cost (a WAL append and its index, about 80 µs on
 * the development VM against 5–10 µs a row): the batches of different tables that reach the same
 * turn — a DPoP proof's identifier beside another request's session row — share one transaction.
 * The server dialects keep a commit per batch: their pools write concurrently, and a shared
 * transaction would hold one batch's rows locked until another's are written.
 */
const sharesCommit = (db: Kysely<Database>) => db.getExecutor().adapter instanceof SqliteAdapter;

async function flushTurn(db: Kysely<Database>, batches: QueuedBatch[]): Promise<void> {
    if (batches.length === 1 || !sharesCommit(db)) {
        await Promise.all(batches.map((batch) => batch.alone(db)));
        return;
    }
    try {
        await db.transaction().execute(async (tx) => {
            for (const batch of batches) await batch.write(tx);
        });
    } catch {
        // rolled back as a whole: each batch again on its own, so only the row at fault reports its error
        await Promise.all(batches.map((batch) => batch.alone(db)));
        return;
    }
    for (const batch of batches) batch.settle();
}

/** Joins `db`'s next turn: `take` answers the batcher's batches when the turn flushes (after every caller of this turn queued its row). */
function joinTurn(db: Kysely<Database>, take: () => QueuedBatch[]): void {
    let takers = turns.get(db);
    if (!takers) {
        takers = [];
        turns.set(db, takers);
        // the turn holds rows of several requests: it runs in none of their scopes (on the primary)
        outsideRequestScope(() => setImmediate(() => {
            const joined = turns.get(db) ?? [];
            turns.delete(db);
            void flushTurn(db, joined.flatMap((taker) => taker()));
        }));
    }
    takers.push(take);
}

/**
 * Inserts outside a transaction are written together: the callers that reach this point in the
 * same turn of the event loop (or, with `delayMs`, within that many milliseconds of the first)
 * share one multi-row INSERT, so one commit — on SQLite one commit with the other batchers' rows of
 * that turn too (`flushTurn`). A commit costs more than
 * the row on a disk-backed SQLite file (about 150 µs against 20 µs on the development VM,
 * `node packages/server/test/measure/hot-paths.ts`), and logins arrive concurrently. Each caller
 * still gets its own row's outcome, after the commit that makes it durable; when a batch fails,
 * its rows are retried one by one so only the row at fault reports the error.
 */
export function createInsertBatcher<R>(insert: (db: Kysely<Database>, rows: R[]) => Promise<void>, options: { detached?: boolean; delayMs?: number } = {}) {
    const delayMs = options.delayMs ?? 0;
    const queues = new Map<Kysely<Database>, PendingInsert<R>[]>();
    const settle = (pending: PendingInsert<R>[], error?: unknown) => {
        for (const entry of pending) {
            if (error === undefined) entry.done.resolve();
            else entry.done.reject(error);
        }
    };
    const flush = async (db: Kysely<Database>, pending: PendingInsert<R>[]) => {
        try {
            await insert(db, pending.map((entry) => entry.row));
            settle(pending);
        } catch (batchError) {
            if (pending.length === 1) {
                settle(pending, batchError);
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
    const take = (db: Kysely<Database>) => {
        clearTimeout(timers.get(db));
        timers.delete(db);
        const taken = queues.get(db) ?? [];
        queues.delete(db);
        return taken;
    };
    const flushQueue = (db: Kysely<Database>) => {
        const taken = take(db);
        for (let start = 0; start < taken.length; start += MAX_BATCH) void flush(db, taken.slice(start, start + MAX_BATCH));
    };
    /** this turn's rows as batches of the shared turn (delayMs 0) */
    const batchesOf = (db: Kysely<Database>): QueuedBatch[] => {
        const taken = take(db);
        const batches: QueuedBatch[] = [];
        for (let start = 0; start < taken.length; start += MAX_BATCH) {
            const pending = taken.slice(start, start + MAX_BATCH);
            batches.push({
                write: (tx) => insert(tx, pending.map((entry) => entry.row)),
                alone: (target) => flush(target, pending),
                settle: (error) => settle(pending, error),
            });
        }
        return batches;
    };
    return (db: Kysely<Database>, row: R): Promise<void> => new Promise<void>((resolve, reject) => {
        // with read replicas (db/replication.ts): the caller's request reads its own row from the
        // primary from now on, unless the row is detached (the event log: nothing the request reads)
        if (!options.detached) markRequestWritten();
        let queue = queues.get(db);
        if (!queue) {
            queue = [];
            queues.set(db, queue);
            if (delayMs > 0) outsideRequestScope(() => timers.set(db, setTimeout(() => flushQueue(db), delayMs)));
            else joinTurn(db, () => batchesOf(db));
        }
        queue.push({ row, done: { resolve, reject } });
        // a full batch goes at once, whatever the delay
        if (delayMs > 0 && queue.length >= MAX_BATCH) outsideRequestScope(() => flushQueue(db));
    });
}
