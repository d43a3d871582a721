import { randomUUID } from 'node:crypto';
import { Kysely } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createMigratedTestDatabase } from '../../test/database-templates.js';
import { describeEachDialect, type TestDatabase } from '../../test/databases.js';
import { classifyDbError } from '../db/errors.js';
import type { Database, DbDate } from '../db/schema.js';
import { toDbDate } from '../db/values.js';
import { createInsertBatcher } from './insert-batcher.js';
import { prepareInsert } from './prepared-insert.js';

/**
 * The insert batcher: the rows of one turn share one INSERT per batcher, and on SQLite the batchers
 * of that turn share one transaction (one commit). Each caller still learns its own row's outcome:
 * a row at fault fails alone, after the shared transaction rolled back, and every other row of the
 * turn — of its own batcher or another — is written.
 */
describeEachDialect('insert batcher', (dialect) => {
    let database: TestDatabase;
    beforeAll(async () => {
        database = await createMigratedTestDatabase(dialect);
    }, 60_000);
    afterAll(async () => database?.drop());

    const insertRows = prepareInsert('auth_replay_guards', ['id', 'expires_at']);
    // two batchers over one table: what matters is that they are two queues of the same turn
    const first = createInsertBatcher<{ id: string; expires_at: DbDate }>(insertRows);
    const second = createInsertBatcher<{ id: string; expires_at: DbDate }>(insertRows);
    const row = (id = randomUUID()) => ({ id, expires_at: toDbDate(dialect, new Date(Date.now() + 60_000)) });
    const stored = async (ids: string[]) => (await database.db.selectFrom('auth_replay_guards').select('id').where('id', 'in', ids).execute()).map((found) => found.id).sort();

    /** counts the transactions begun on `db` while `work` runs */
    async function transactionsDuring(work: () => Promise<unknown>): Promise<number> {
        const original = Kysely.prototype.transaction;
        let begun = 0;
        Kysely.prototype.transaction = function (this: Kysely<Database>) {
            begun++;
            return original.call(this);
        } as typeof original;
        try {
            await work();
        } finally {
            Kysely.prototype.transaction = original;
        }
        return begun;
    }

    it('writes the rows of two batchers queued in one turn, in one transaction on SQLite only', async () => {
        const rows = [row(), row(), row(), row()];
        const begun = await transactionsDuring(() => Promise.all([
            first(database.db, rows[0]!), second(database.db, rows[1]!), first(database.db, rows[2]!), second(database.db, rows[3]!),
        ]));
        expect(begun).toBe(dialect === 'sqlite' ? 1 : 0);
        expect(await stored(rows.map((entry) => entry.id))).toEqual(rows.map((entry) => entry.id).sort());
    });

    it('fails only the row at fault: a duplicate in one batcher leaves the turn\'s other rows written', async () => {
        const taken = row();
        await first(database.db, taken);
        const others = [row(), row(), row()];
        const outcomes = await Promise.allSettled([
            first(database.db, others[0]!), second(database.db, { ...taken }), second(database.db, others[1]!), first(database.db, others[2]!),
        ]);
        expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
        expect(classifyDbError((outcomes[1] as PromiseRejectedResult).reason)?.kind).toBe('unique');
        expect(await stored(others.map((entry) => entry.id))).toEqual(others.map((entry) => entry.id).sort());
    });

    it('callers of two turns are each answered once their own turn is written', async () => {
        const early = row();
        const pending = first(database.db, early);
        await new Promise((resolve) => setImmediate(resolve));
        const late = row();
        await Promise.all([pending, second(database.db, late)]);
        expect(await stored([early.id, late.id])).toEqual([early.id, late.id].sort());
    });
});
