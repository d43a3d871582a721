import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMigratedTestDatabase } from '../../test/database-templates.js';
import { describeEachDialect } from '../../test/databases.js';
import type { TestDatabase } from '../../test/databases.js';
import { classifyDbError } from './errors.js';
import type { DialectName } from './values.js';
import { nowForDb, toDbBool } from './values.js';

const TIMEOUT = 60_000;

function stamps(dialect: DialectName) {
    const now = nowForDb(dialect);
    return { created_at: now, updated_at: now };
}

function realmRow(dialect: DialectName, name = `realm-${randomUUID()}`) {
    return { id: randomUUID(), name, display_name: null, description: null, built_in: toDbBool(dialect, false), ...stamps(dialect) };
}

function roleRow(dialect: DialectName, name: string, realmId: string | null, clientId: string | null = null) {
    return {
        id: randomUUID(), name, display_name: null, description: null, built_in: toDbBool(dialect, false),
        client_id: clientId, realm_id: realmId, ...stamps(dialect),
    };
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
    return promise.then(() => { throw new Error('expected the statement to fail'); }, (error: unknown) => error);
}

describe('classifyDbError (driver shapes)', () => {
    it('maps SQLite, PostgreSQL and MySQL codes', () => {
        expect(classifyDbError({ code: 'SQLITE_CONSTRAINT_UNIQUE', message: 'UNIQUE constraint failed: auth_realms.name' }))
            .toEqual({ kind: 'unique', columns: ['auth_realms.name'] });
        expect(classifyDbError({ code: 'SQLITE_CONSTRAINT_FOREIGNKEY', message: 'FOREIGN KEY constraint failed' })).toEqual({ kind: 'foreign_key' });
        expect(classifyDbError({ code: '23505', constraint: 'auth_realms_name_unique' })).toEqual({ kind: 'unique', constraint: 'auth_realms_name_unique' });
        expect(classifyDbError({ code: '23514', constraint: 'c' })).toEqual({ kind: 'check', constraint: 'c' });
        expect(classifyDbError({ code: 'ER_DUP_ENTRY', errno: 1062, message: "Duplicate entry 'x' for key 'auth_realms.auth_realms_name_unique'" }))
            .toEqual({ kind: 'unique', constraint: 'auth_realms_name_unique' });
        expect(classifyDbError({ code: 'ER_BAD_NULL_ERROR', errno: 1048, message: "Column 'name' cannot be null" })).toEqual({ kind: 'not_null', columns: ['name'] });
    });

    it('looks through wrappers and ignores everything else', () => {
        expect(classifyDbError(new Error('wrapped', { cause: { code: '23503' } }))).toEqual({ kind: 'foreign_key' });
        expect(classifyDbError(new Error('boom'))).toBeNull();
        expect(classifyDbError({ code: '42P01' })).toBeNull();
        expect(classifyDbError({ code: 'SQLITE_BUSY' })).toBeNull();
        expect(classifyDbError(null)).toBeNull();
        expect(classifyDbError('text')).toBeNull();
    });
});

describeEachDialect('db constraints', (dialect) => {
    let database: TestDatabase;

    beforeAll(async () => {
        // a copy of the run's migrated template (test/database-templates.ts): the migrations are migrate.test.ts's
        database = await createMigratedTestDatabase(dialect);
    }, TIMEOUT);

    afterAll(async () => {
        await database?.drop();
    }, TIMEOUT);

    it('refuses two global roles with one name (NULLs coalesced, spec beta.65 item 3)', async () => {
        const db = database.db;
        await db.insertInto('auth_roles').values(roleRow(dialect, 'auditor', null)).execute();
        const error = await failure(db.insertInto('auth_roles').values(roleRow(dialect, 'auditor', null)).execute());
        expect(classifyDbError(error)).toMatchObject({ kind: 'unique' });
        if (dialect !== 'sqlite') expect(classifyDbError(error)?.constraint).toBe('auth_roles_name_client_key_realm_key_unique');
    });

    it('accepts one name in two realms and globally', async () => {
        const db = database.db;
        const [first, second] = [realmRow(dialect), realmRow(dialect)];
        await db.insertInto('auth_realms').values([first, second]).execute();
        await db.insertInto('auth_roles').values([
            roleRow(dialect, 'editor', first.id), roleRow(dialect, 'editor', second.id), roleRow(dialect, 'editor', null),
        ]).execute();
        const error = await failure(db.insertInto('auth_roles').values(roleRow(dialect, 'editor', first.id)).execute());
        expect(classifyDbError(error)).toMatchObject({ kind: 'unique' });
    });

    it('refuses duplicate global scopes and policies too', async () => {
        const db = database.db;
        const scope = () => ({ id: randomUUID(), name: 'openid', display_name: null, description: null, built_in: toDbBool(dialect, true), realm_id: null, ...stamps(dialect) });
        await db.insertInto('auth_scopes').values(scope()).execute();
        expect(classifyDbError(await failure(db.insertInto('auth_scopes').values(scope()).execute()))).toMatchObject({ kind: 'unique' });
        const policy = () => ({
            id: randomUUID(), type: 'composite', name: 'system.default', display_name: null, description: null,
            invert: toDbBool(dialect, false), config: '{}', parent_id: null, realm_id: null, built_in: toDbBool(dialect, true), ...stamps(dialect),
        });
        await db.insertInto('auth_policies').values(policy()).execute();
        expect(classifyDbError(await failure(db.insertInto('auth_policies').values(policy()).execute()))).toMatchObject({ kind: 'unique' });
    });

    it('classifies a dangling reference as foreign_key', async () => {
        const error = await failure(database.db.insertInto('auth_roles').values(roleRow(dialect, 'orphan', randomUUID())).execute());
        expect(classifyDbError(error)).toMatchObject({ kind: 'foreign_key' });
        if (dialect !== 'sqlite') expect(classifyDbError(error)?.constraint).toBe('auth_roles_realm_id_fk');
    });

    it('classifies a missing required value as not_null', async () => {
        const error = await failure(sql`insert into auth_realms (id, name, built_in, created_at, updated_at)
            values (${randomUUID()}, null, ${toDbBool(dialect, false)}, ${nowForDb(dialect)}, ${nowForDb(dialect)})`.execute(database.db));
        expect(classifyDbError(error)).toMatchObject({ kind: 'not_null' });
    });

    it('cascades a realm deletion to its rows and junctions, and nulls optional references', async () => {
        const db = database.db;
        const realm = realmRow(dialect);
        await db.insertInto('auth_realms').values(realm).execute();
        const globalRole = roleRow(dialect, `global-${realm.id}`, null);
        const role = roleRow(dialect, 'member', realm.id);
        await db.insertInto('auth_roles').values([globalRole, role]).execute();
        const policyId = randomUUID();
        await db.insertInto('auth_policies').values({
            id: policyId, type: 'realm_match', name: 'own realm', display_name: null, description: null,
            invert: toDbBool(dialect, false), config: '{}', parent_id: null, realm_id: realm.id, built_in: toDbBool(dialect, false), ...stamps(dialect),
        }).execute();
        const permissionId = randomUUID();
        await db.insertInto('auth_permissions').values({
            id: permissionId, name: 'user_read', display_name: null, description: null, built_in: toDbBool(dialect, false),
            decision_strategy: 'unanimous', client_id: null, realm_id: null, ...stamps(dialect),
        }).execute();
        await db.insertInto('auth_role_permissions').values([
            { id: randomUUID(), role_id: globalRole.id, permission_id: permissionId, realm_scope: 'own', policy_id: policyId, ...stamps(dialect) },
            { id: randomUUID(), role_id: role.id, permission_id: permissionId, realm_scope: 'own', policy_id: policyId, ...stamps(dialect) },
        ]).execute();

        const duplicate = await failure(db.insertInto('auth_role_permissions')
            .values({ id: randomUUID(), role_id: role.id, permission_id: permissionId, realm_scope: 'any', policy_id: null, ...stamps(dialect) }).execute());
        expect(classifyDbError(duplicate)).toMatchObject({ kind: 'unique' });

        await db.deleteFrom('auth_realms').where('id', '=', realm.id).execute();
        const grants = await db.selectFrom('auth_role_permissions').select(['role_id', 'policy_id']).where('permission_id', '=', permissionId).execute();
        expect(grants).toEqual([{ role_id: globalRole.id, policy_id: null }]);
        expect(await db.selectFrom('auth_roles').select('id').where('id', '=', role.id).execute()).toEqual([]);
    });
});
