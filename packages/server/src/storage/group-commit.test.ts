import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { sql, type Kysely } from 'kysely';
import { toDbBool, toDbDate } from '../db/values.js';
import type { Database } from '../db/schema.js';
import { createMigratedTestDatabase } from '../../test/database-templates.js';
import { describeEachDialect, type TestDatabase } from '../../test/databases.js';
import { createGroupCommit } from './group-commit.js';

// Units of work that share a commit keep their own outcomes: the rows and answers are those of the
// same units run one transaction each.
describeEachDialect('createGroupCommit', (dialect) => {
    let database: TestDatabase;
    beforeAll(async () => {
        database = await createMigratedTestDatabase(dialect);
    });
    afterAll(() => database?.drop());

    const insertRealm = async (db: Kysely<Database>, name: string) => {
        const now = toDbDate(dialect, new Date());
        await db.insertInto('auth_realms').values({ id: randomUUID(), name, display_name: null, description: null, built_in: toDbBool(dialect, false), created_at: now, updated_at: now }).execute();
    };
    const transactions = () => {
        let count = 0;
        return {
            count: () => count,
            work: async (tx: Kysely<Database>, name: string) => {
                if (name.endsWith('-fails')) throw new Error(`refused ${name}`);
                // a unit that claims a name another unit already holds answers false, as a spent refresh token does
                const taken = await tx.selectFrom('auth_realms').select('id').where('name', '=', name).executeTakeFirst();
                if (taken) return false;
                await insertRealm(tx, name);
                count += 1;
                return true;
            },
        };
    };

    it('answers each unit of one turn on its own, later units seeing what earlier ones wrote', async () => {
        const { work } = transactions();
        const commit = createGroupCommit(work);
        const prefix = `group-${randomUUID().slice(0, 8)}`;
        const answers = await Promise.all([commit(database.db, `${prefix}-a`), commit(database.db, `${prefix}-a`), commit(database.db, `${prefix}-b`)]);
        expect(answers).toEqual([true, false, true]);
        const rows = await database.db.selectFrom('auth_realms').select('name').where('name', 'like', `${prefix}-%`).orderBy('name').execute();
        expect(rows.map((row) => row.name)).toEqual([`${prefix}-a`, `${prefix}-b`]);
    });

    it('reports a failing unit to its caller alone; the others of its group are written', async () => {
        const { work } = transactions();
        const commit = createGroupCommit(work);
        const prefix = `group-${randomUUID().slice(0, 8)}`;
        const settled = await Promise.allSettled([commit(database.db, `${prefix}-a`), commit(database.db, `${prefix}-fails`), commit(database.db, `${prefix}-b`)]);
        expect(settled.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
        expect((settled[1] as PromiseRejectedResult).reason).toBeInstanceOf(Error);
        const rows = await database.db.selectFrom('auth_realms').select('name').where('name', 'like', `${prefix}-%`).orderBy('name').execute();
        expect(rows.map((row) => row.name)).toEqual([`${prefix}-a`, `${prefix}-b`]);
    });

    it('commits each group before it answers: a unit answered true is in the database', async () => {
        const { work } = transactions();
        const commit = createGroupCommit(work);
        const prefix = `group-${randomUUID().slice(0, 8)}`;
        await Promise.all([commit(database.db, `${prefix}-a`), commit(database.db, `${prefix}-b`)]);
        const counted = await sql<{ count: number | string }>`select count(*) as count from auth_realms where name like ${`${prefix}-%`}`.execute(database.db);
        expect(Number(counted.rows[0]!.count)).toBe(2);
    });
});
