import { randomUUID } from 'node:crypto';
import { ErrorCode } from '@realmgate/core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { toDbBool, toDbDate } from '../db/values.js';
import { AppError } from '../errors/app-error.js';
import { createMigratedTestDatabase } from '../../test/database-templates.js';
import { describeEachDialect, type TestDatabase } from '../../test/databases.js';
import { writeTransaction, type WriteTransactionDeps, type WriteTx } from './write-transaction.js';

// The write ritual on real databases (DESIGN.md §7.5): the order of its steps is what keeps SQLite
// from deadlocking and the catalog from caching a rolled-back write.
describeEachDialect('writeTransaction', (dialect) => {
    let database: TestDatabase;
    let events: string[];
    let deps: WriteTransactionDeps;

    beforeAll(async () => {
        // a copy of the run's migrated template (test/database-templates.ts): the migrations are migrate.test.ts's
        database = await createMigratedTestDatabase(dialect);
    });
    afterAll(() => database?.drop());

    const setUp = () => {
        events = [];
        deps = { handle: database, db: database.db, catalog: { invalidate: () => events.push('invalidate') } };
    };

    const realmRow = (name: string) => {
        const now = toDbDate(dialect, new Date());
        return { id: randomUUID(), name, display_name: null, description: null, built_in: toDbBool(dialect, false), created_at: now, updated_at: now };
    };
    const insertRealm = (tx: WriteTx, name: string) => tx.insertInto('auth_realms').values(realmRow(name)).execute();
    const realmNamed = (name: string) => database.db.selectFrom('auth_realms').select('id').where('name', '=', name).executeTakeFirst();

    it('runs the preload to completion, on the database, before the transaction opens', async () => {
        setUp();
        const preload = async () => {
            // a query on deps.db inside the transaction would wait forever on SQLite's one connection
            await database.db.selectFrom('auth_realms').select('id').execute();
            await new Promise((resolve) => setTimeout(resolve, 20));
            events.push('preloaded');
        };
        await writeTransaction(deps, { preload }, async () => {
            events.push('work');
        });
        expect(events).toEqual(['preloaded', 'work']);
    });

    it('locks rows on the server dialects only', async () => {
        setUp();
        const lock = await writeTransaction(deps, { preload: async () => undefined }, async (_tx, rowLock) => rowLock);
        expect(lock.forUpdate).toBe(dialect !== 'sqlite');
    });

    it('invalidates the catalog after the commit, when the write asks for it', async () => {
        setUp();
        const name = `committed-${randomUUID().slice(0, 8)}`;
        deps.catalog.invalidate = () => {
            events.push('invalidate');
            // after the commit: a read outside the transaction already sees the row
            void realmNamed(name).then((row) => events.push(row ? 'visible' : 'invisible'));
        };
        await writeTransaction(deps, { preload: async () => undefined, invalidatesCatalog: true }, async (tx) => {
            await insertRealm(tx, name);
            events.push('written');
        });
        await new Promise((resolve) => setTimeout(resolve, 50));
        expect(events).toEqual(['written', 'invalidate', 'visible']);
        expect(await realmNamed(name)).toBeDefined();
    });

    it('leaves the catalog alone when the write does not ask for it', async () => {
        setUp();
        await writeTransaction(deps, { preload: async () => undefined }, (tx) => insertRealm(tx, `plain-${randomUUID().slice(0, 8)}`));
        expect(events).toEqual([]);
    });

    it('rolls back and keeps the catalog on an AppError, which passes as thrown', async () => {
        setUp();
        const name = `rolled-back-${randomUUID().slice(0, 8)}`;
        const refusal = new AppError(ErrorCode.PERMISSION_DENIED, 'no');
        await expect(writeTransaction(deps, { preload: async () => undefined, invalidatesCatalog: true }, async (tx) => {
            await insertRealm(tx, name);
            throw refusal;
        })).rejects.toBe(refusal);
        expect(events).toEqual([]);
        expect(await realmNamed(name)).toBeUndefined();
    });

    it('maps a unique violation to 409, and invalidates nothing', async () => {
        setUp();
        const name = `taken-${randomUUID().slice(0, 8)}`;
        await writeTransaction(deps, { preload: async () => undefined }, (tx) => insertRealm(tx, name));
        const error = await writeTransaction(deps, { preload: async () => undefined, invalidatesCatalog: true }, (tx) => insertRealm(tx, name))
            .then(() => null, (thrown: unknown) => thrown);
        expect(error).toBeInstanceOf(AppError);
        expect((error as AppError).statusCode).toBe(409);
        // the log learns what collided; never the value
        expect((error as AppError).detail).toMatch(/^unique violation: \S+/);
        expect((error as AppError).detail).not.toContain(name);
        expect(events).toEqual([]);
    });

    it('maps a foreign-key violation to 400 invalid_reference', async () => {
        setUp();
        const now = toDbDate(dialect, new Date());
        const error = await writeTransaction(deps, { preload: async () => undefined }, (tx) => tx.insertInto('auth_paths').values({
            id: randomUUID(), name: 'orphan', parent_id: null, realm_id: randomUUID(), created_at: now, updated_at: now,
        }).execute()).then(() => null, (thrown: unknown) => thrown);
        expect(error).toBeInstanceOf(AppError);
        expect((error as AppError).statusCode).toBe(400);
        expect((error as AppError).issues?.[0]?.code).toBe('invalid_reference');
    });

    it('a write inside another joins its transaction: one rollback undoes both, invalidation waits for the commit', async () => {
        setUp();
        const inner = `inner-${randomUUID().slice(0, 8)}`;
        const failure = new Error('the outer write fails after the inner one');
        await expect(writeTransaction(deps, { preload: async () => undefined }, async (tx) => {
            await writeTransaction({ ...deps, db: tx }, { preload: async () => undefined, invalidatesCatalog: true }, (joined) => insertRealm(joined, inner));
            expect(events).toEqual([]);
            throw failure;
        })).rejects.toBe(failure);
        expect(await realmNamed(inner)).toBeUndefined();
        expect(events).toEqual([]);

        await writeTransaction(deps, { preload: async () => undefined }, async (tx) => {
            await writeTransaction({ ...deps, db: tx }, { preload: async () => undefined, invalidatesCatalog: true }, (joined) => insertRealm(joined, inner));
            expect(events).toEqual([]);
        });
        expect(await realmNamed(inner)).toBeDefined();
        expect(events).toEqual(['invalidate']);
    });

    it('rethrows an error that is no constraint violation', async () => {
        setUp();
        const failure = new Error('disk on fire');
        await expect(writeTransaction(deps, { preload: async () => undefined }, async () => {
            throw failure;
        })).rejects.toBe(failure);
    });
});
