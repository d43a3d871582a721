import { afterAll, beforeAll, expect, it } from 'vitest';
import { createMigratedTestDatabase } from '../../test/database-templates.js';
import { describeEachDialect, type TestDatabase } from '../../test/databases.js';
import { prepareQuery } from './prepared.js';
import { toDbBool, toDbDate } from './values.js';

const REALM_BY_NAME = prepareQuery((db, param) => db.selectFrom('auth_realms').select(['id', 'name']).where('name', '=', param(0)));
// parameters out of order, and a constant the builder fixes itself
const REALMS_BETWEEN = prepareQuery((db, param) => db.selectFrom('auth_realms').select('name')
    .where('name', '>=', param(1)).where('name', '<=', param(0)).where('name', '!=', 'excluded').orderBy('name').limit(10));

describeEachDialect('prepared queries', (dialect) => {
    let database: TestDatabase;

    beforeAll(async () => {
        // a copy of the run's migrated template (test/database-templates.ts): the migrations are migrate.test.ts's
        database = await createMigratedTestDatabase(dialect);
        const now = toDbDate(dialect, new Date());
        await database.db.insertInto('auth_realms').values(['prep-a', 'prep-b', 'prep-c', 'excluded'].map((name, index) => ({
            id: `00000000-0000-4000-8000-00000000000${index}`, name, display_name: null, description: null, built_in: toDbBool(dialect, false), created_at: now, updated_at: now,
        }))).execute();
    }, 60_000);
    afterAll(async () => {
        await database?.drop();
    });

    it('runs the compiled query again with new values, in the order the builder placed them', async () => {
        expect(await REALM_BY_NAME.first(database.db, ['prep-b'])).toEqual({ id: '00000000-0000-4000-8000-000000000001', name: 'prep-b' });
        expect(await REALM_BY_NAME.first(database.db, ['prep-c'])).toMatchObject({ name: 'prep-c' });
        expect(await REALM_BY_NAME.first(database.db, ['missing'])).toBeUndefined();
        expect((await REALMS_BETWEEN.all(database.db, ['prep-z', 'prep-b'])).map((row) => row.name)).toEqual(['prep-b', 'prep-c']);
        expect((await REALMS_BETWEEN.all(database.db, ['zzz', 'a'])).map((row) => row.name)).not.toContain('excluded');
    });

    it('runs inside a transaction on the transaction connection', async () => {
        const now = toDbDate(dialect, new Date());
        await database.db.transaction().execute(async (trx) => {
            await trx.insertInto('auth_realms').values({ id: '00000000-0000-4000-8000-000000000009', name: 'prep-tx', display_name: null, description: null, built_in: toDbBool(dialect, false), created_at: now, updated_at: now }).execute();
            expect(await REALM_BY_NAME.first(trx, ['prep-tx'])).toMatchObject({ name: 'prep-tx' });
        });
    });

    it('binds a value containing what looks like SQL as a value', async () => {
        expect(await REALM_BY_NAME.first(database.db, ["prep-a' OR '1'='1"])).toBeUndefined();
    });
});
