import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { outsideRequestScope } from '../db/replication.js';

interface PendingWork<I, O> {
    item: I;
    done: { resolve(value: O): void; reject(error: unknown): void };
}

/** units of work per shared transaction: a bound on how long one commit keeps its callers waiting */
const MAX_GROUP = 64;

/**
 * Small write transactions that reach this point in the same turn of the event loop share one
 * transaction, so one commit. On SQLite a commit writes every page the transaction dirtied to the
 * WAL, and a refresh rotation's commit (two rows, their indexes) costs more than its two UPDATEs;
 * the one connection runs the units one after the other anyway, so sharing the commit changes no
 * unit's outcome: each still sees the rows as the units before it left them and gets its own
 * answer, after the commit that makes it durable. When the shared transaction fails (one unit threw,
 * a busy database), it rolled back as a whole and every unit runs again in a transaction of its own,
 * so only the unit at fault reports its error.
 */
export function createGroupCommit<I, O>(work: (tx: Kysely<Database>, item: I) => Promise<O>) {
    const queues = new Map<Kysely<Database>, PendingWork<I, O>[]>();
    const alone = (db: Kysely<Database>, entry: PendingWork<I, O>) =>
        db.transaction().execute((tx) => work(tx, entry.item)).then(entry.done.resolve, entry.done.reject);
    const run = async (db: Kysely<Database>, group: PendingWork<I, O>[]) => {
        if (group.length === 1) return alone(db, group[0]!);
        let results: O[];
        try {
            results = await db.transaction().execute(async (tx) => {
                const answers: O[] = [];
                for (const entry of group) answers.push(await work(tx, entry.item));
                return answers;
            });
        } catch {
            for (const entry of group) await alone(db, entry);
            return;
        }
        group.forEach((entry, index) => entry.done.resolve(results[index]!));
    };
    const flush = (db: Kysely<Database>) => {
        const taken = queues.get(db) ?? [];
        queues.delete(db);
        for (let start = 0; start < taken.length; start += MAX_GROUP) void run(db, taken.slice(start, start + MAX_GROUP));
    };
    return (db: Kysely<Database>, item: I): Promise<O> => new Promise<O>((resolve, reject) => {
        let queue = queues.get(db);
        if (!queue) {
            queue = [];
            queues.set(db, queue);
            // the group holds units of several requests: it runs in none of their scopes
            outsideRequestScope(() => setImmediate(() => flush(db)));
        }
        queue.push({ item, done: { resolve, reject } });
    });
}
