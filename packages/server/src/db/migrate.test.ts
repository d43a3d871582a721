import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { sql, type Kysely } from 'kysely';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createTestDatabase, describeEachDialect } from '../../test/databases.js';
import type { TestDatabase } from '../../test/databases.js';
import { createDatabase } from './connect.js';
import type { DatabaseHandle } from './connect.js';
import { MigrationError, migrateDown, migrateToLatest, migrationStatus } from './migrate.js';
import { MIGRATIONS } from './migrations/index.js';
import type { Database } from './schema.js';

const TIMEOUT = 60_000;
const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const MIGRATE_SCRIPT = fileURLToPath(new URL('../../test/migrate.script.ts', import.meta.url));

// Every table of the schema contract (db/schema.ts), checked against what the migration built.
const TABLES: (keyof Database)[] = [
    'auth_realms', 'auth_paths', 'auth_users', 'auth_clients', 'auth_roles', 'auth_permissions',
    'auth_policies', 'auth_permission_policies', 'auth_scopes', 'auth_client_scopes',
    'auth_user_roles', 'auth_client_roles', 'auth_role_permissions', 'auth_user_permissions',
    'auth_client_permissions', 'auth_user_attributes', 'auth_role_attributes', 'auth_keys', 'auth_key_tombstones',
    'auth_sessions', 'auth_session_tokens', 'auth_events', 'auth_event_aggregates',
    'auth_authorization_codes', 'auth_user_consents', 'auth_device_codes',
    'auth_user_authenticators', 'auth_user_recovery_codes', 'auth_mfa_tickets', 'auth_worker_leases',
    'auth_identity_providers', 'auth_identity_provider_attribute_mappings', 'auth_identity_provider_role_mappings',
    'auth_user_identities', 'auth_federated_logins', 'auth_replay_guards', 'auth_initial_access_tokens', 'auth_client_registrations',
    'auth_pushed_requests', 'auth_webauthn_challenges', 'auth_realm_default_roles',
];
/** the tables each migration after the first creates (a migration that only adds columns creates none) */
const TABLES_CREATED_BY: Readonly<Record<string, readonly (keyof Database)[]>> = {
    '0002_key_tombstones': ['auth_key_tombstones'],
    '0003_browser_sign_in': ['auth_authorization_codes', 'auth_user_consents'],
    '0004_device_authorization': ['auth_device_codes'],
    '0005_authenticators': ['auth_user_authenticators', 'auth_user_recovery_codes', 'auth_mfa_tickets'],
    '0008_worker_leases': ['auth_worker_leases'],
    '0010_identity_providers': ['auth_identity_providers', 'auth_identity_provider_attribute_mappings', 'auth_identity_provider_role_mappings',
        'auth_user_identities', 'auth_federated_logins'],
    '0018_client_authentication': ['auth_replay_guards'],
    '0020_pushed_authorization_requests': ['auth_pushed_requests'],
    '0021_dynamic_registration': ['auth_initial_access_tokens', 'auth_client_registrations'],
    '0023_passkeys': ['auth_webauthn_challenges'],
    '0024_realm_default_roles': ['auth_realm_default_roles'],
};
const ALL = Object.keys(MIGRATIONS);

async function columnsOf(handle: DatabaseHandle, name: string): Promise<string[]> {
    const tables = await handle.db.introspection.getTables();
    return tables.find((table) => table.name === name)!.columns.map((column) => column.name);
}

const userColumns = (handle: DatabaseHandle) => columnsOf(handle, 'auth_users');

async function schemaTables(handle: DatabaseHandle): Promise<string[]> {
    const tables = await handle.db.introspection.getTables();
    return tables.map((table) => table.name).filter((name) => name.startsWith('auth_')).sort();
}

describeEachDialect('db migrations', (dialect) => {
    let database: TestDatabase;

    beforeEach(async () => {
        database = await createTestDatabase(dialect);
    }, TIMEOUT);

    afterEach(async () => {
        await database?.drop();
    }, TIMEOUT);

    it('migrates up, reports status, reverts and migrates up again', async () => {
        const pending = await migrationStatus(database);
        expect(pending).toEqual(Object.keys(MIGRATIONS).map((name) => ({ name, executedAt: null })));

        expect(await migrateToLatest(database)).toEqual(ALL);
        expect(await schemaTables(database)).toEqual([...TABLES].sort());
        const applied = await migrationStatus(database);
        expect(applied[0]?.name).toBe('0001_initial');
        expect(applied[0]?.executedAt).toBeInstanceOf(Date);
        expect(await migrateToLatest(database)).toEqual([]);

        // one step back at a time, newest first: each takes away exactly the tables it created
        let remaining = [...TABLES].sort();
        for (const name of [...ALL].reverse()) {
            expect(await migrateDown(database)).toEqual([name]);
            remaining = remaining.filter((table) => !(TABLES_CREATED_BY[name] ?? []).includes(table));
            expect(await schemaTables(database)).toEqual(name === '0001_initial' ? [] : remaining);
            if (name === '0006_account_codes') expect(await userColumns(database)).not.toContain('activate_at');
        }
        expect((await migrationStatus(database))[0]?.executedAt).toBeNull();

        expect(await migrateToLatest(database)).toEqual(ALL);
        expect(await schemaTables(database)).toEqual([...TABLES].sort());
    }, TIMEOUT);

    it('converts activation and reset codes issued before 0006 to their SHA-256 digest (spec Versioning)', async () => {
        await migrateToLatest(database);
        // back to just before 0006, whatever came after it
        while (!(await migrateDown(database)).includes('0006_account_codes'));
        const now = new Date().toISOString();
        const stamp = dialect === 'sqlite' ? now : new Date(now);
        const realmId = '00000000-0000-4000-8000-000000000001';
        const digest = createHash('sha256').update('already', 'utf8').digest('hex');
        await sql`insert into auth_realms (id, name, built_in, created_at, updated_at) values (${realmId}, 'r', ${dialect === 'postgres' ? false : 0}, ${stamp}, ${stamp})`.execute(database.db);
        const user = (id: string, name: string, reset: string | null, activate: string | null) => sql`insert into auth_users
            (id, name, name_locked, password, reset_hash, activate_hash, email_verified, active, realm_id, created_at, updated_at)
            values (${id}, ${name}, ${dialect === 'postgres' ? true : 1}, null, ${reset}, ${activate}, ${dialect === 'postgres' ? false : 0}, ${dialect === 'postgres' ? true : 1}, ${realmId}, ${stamp}, ${stamp})`;
        await user('00000000-0000-4000-8000-000000000002', 'plain', 'reset-code', 'activation-code').execute(database.db);
        await user('00000000-0000-4000-8000-000000000003', 'digested', digest, null).execute(database.db);
        expect(await migrateToLatest(database)).toEqual(ALL.filter((name) => name >= '0006_account_codes'));
        const rows = await database.db.selectFrom('auth_users').select(['name', 'reset_hash', 'activate_hash']).orderBy('name').execute();
        const sha = (value: string) => createHash('sha256').update(value, 'utf8').digest('hex');
        expect(rows).toEqual([
            { name: 'digested', reset_hash: digest, activate_hash: null },
            { name: 'plain', reset_hash: sha('reset-code'), activate_hash: sha('activation-code') },
        ]);
    }, TIMEOUT);

    it('adds the coalesced key columns as generated columns, on the listed tables only', async () => {
        await migrateToLatest(database);
        expect((await generatedColumns(database)).sort()).toEqual([
            'auth_event_aggregates.realm_key', 'auth_paths.parent_key', 'auth_permissions.client_key',
            'auth_permissions.realm_key', 'auth_policies.realm_key', 'auth_roles.client_key',
            'auth_roles.realm_key', 'auth_scopes.realm_key',
        ]);
    }, TIMEOUT);

    it('0011 drops the seen_at index of auth_sessions and makes user_id and parent_id partial where the dialect can; down restores them', async () => {
        await migrateToLatest(database);
        const partial = dialect === 'mysql' ? '' : ' where not null';
        expect(await sessionIndexes(database)).toEqual([
            'auth_sessions_client_id_idx', 'auth_sessions_expires_at_idx', `auth_sessions_parent_id_idx${partial}`,
            'auth_sessions_realm_id_idx', `auth_sessions_user_id_idx${partial}`,
        ]);
        while (!(await migrateDown(database)).includes('0011_session_indexes'));
        const before = [
            'auth_sessions_client_id_idx', 'auth_sessions_expires_at_idx', 'auth_sessions_parent_id_idx',
            'auth_sessions_realm_id_idx', 'auth_sessions_seen_at_idx', 'auth_sessions_user_id_idx',
        ];
        expect(await sessionIndexes(database)).toEqual(before);
        expect(await migrateToLatest(database)).toEqual(ALL.filter((name) => name >= '0011_session_indexes'));
        expect(await sessionIndexes(database)).toContain(`auth_sessions_user_id_idx${partial}`);
    }, TIMEOUT);

    it('0012 adds auth_events.aggregated: events of the last two aggregated days are counted again, older ones are taken as counted', async () => {
        await migrateToLatest(database);
        while (!(await migrateDown(database)).includes('0012_event_aggregated_flag'));
        const db = database.db as unknown as Kysely<Record<string, Record<string, unknown>>>;
        const at = (text: string) => (dialect === 'sqlite' ? text : new Date(text));
        const days = ['2030-03-01', '2030-03-02', '2030-03-03'];
        await db.insertInto('auth_events').values(days.map((day, index) => ({
            id: `00000000-0000-4000-8000-00000000000${index}`, name: 'user.created', scope: 'api', ref_type: 'user', created_at: at(`${day}T10:00:00.000Z`),
        }))).execute();
        await db.insertInto('auth_event_aggregates').values(days.map((day, index) => ({
            id: `00000000-0000-4000-8000-00000000001${index}`, day, realm_id: null, scope: 'api', name: 'user.created', ref_type: 'user', count: 1,
        }))).execute();
        expect(await migrateToLatest(database)).toEqual(ALL.filter((name) => name >= '0012_event_aggregated_flag'));
        const flags = await db.selectFrom('auth_events').select(['id', 'aggregated']).orderBy('id').execute();
        expect(flags.map((row) => Number(row.aggregated))).toEqual([1, 0, 0]);
        const kept = await db.selectFrom('auth_event_aggregates').select('day').execute();
        expect(kept.map((row) => row.day)).toEqual(['2030-03-01']);
    }, TIMEOUT);

    /** A migration that adds one column: up, down past it (the column gone), and up again. */
    const addsColumnReversibly = async (migration: string, table: string, column: string) => {
        await migrateToLatest(database);
        expect(await columnsOf(database, table)).toContain(column);
        while (!(await migrateDown(database)).includes(migration));
        expect(await columnsOf(database, table)).not.toContain(column);
        expect(await migrateToLatest(database)).toEqual(ALL.filter((name) => name >= migration));
        expect(await columnsOf(database, table)).toContain(column);
    };

    it('0015 adds the token endpoint authentication method of identity providers (null: from discovery); down drops it', async () => {
        await addsColumnReversibly('0015_identity_provider_token_auth', 'auth_identity_providers', 'token_endpoint_auth_method');
    }, TIMEOUT);

    it('0027 adds the jti of a refresh token chain\'s row (null on rows written before: their id is the jti); down drops it', async () => {
        await addsColumnReversibly('0027_refresh_token_jti', 'auth_session_tokens', 'jti');
    }, TIMEOUT);

    it('names the migration that failed', async () => {
        // A table in the way makes 0001 fail on its first statement.
        await sql`create table auth_realms (id varchar(36) primary key)`.execute(database.db);
        const error = await migrateToLatest(database).catch((caught: unknown) => caught);
        expect(error).toBeInstanceOf(MigrationError);
        expect((error as MigrationError).migration).toBe('0001_initial');
        expect((error as MigrationError).message).toMatch(/^migration 0001_initial failed \(up\): /);
        expect((await migrationStatus(database))[0]?.executedAt).toBeNull();
    }, TIMEOUT);

    if (dialect === 'sqlite') {
        // Replicas on one SQLite file boot together too: the write lock taken before the migrator reads
        // what was applied (db/sqlite-migration-lock.ts) lets exactly one apply 0001; the others wait and
        // find everything done. Separate processes, because SQLite's locks are per connection.
        it('applies the schema once when processes migrate one file concurrently', async () => {
            const run = promisify(execFile);
            const start = String(Date.now() + 5_000);
            const outputs = await Promise.all([0, 1, 2].map(() => run(process.execPath, ['--conditions=source', '--import', 'tsx', MIGRATE_SCRIPT, database.location, start], {
                cwd: ROOT, env: { PATH: process.env.PATH ?? '', NODE_ENV: 'test' },
            })));
            const applied = outputs.map(({ stdout }) => JSON.parse(stdout) as string[]);
            expect(applied.flat()).toEqual(ALL);
            expect(applied.filter((names) => names.length > 0)).toHaveLength(1);
            const { rows } = await sql<{ count: number | string }>`select count(*) as count from kysely_migration`.execute(database.db);
            expect(Number(rows[0]?.count)).toBe(ALL.length);
            expect(await schemaTables(database)).toEqual([...TABLES].sort());
        }, TIMEOUT);
    }

    if (dialect !== 'sqlite') {
        // Replicas boot together: Kysely's migration lock lets exactly one apply 0001 (spec beta.67 item 7).
        it('applies the schema once when replicas migrate concurrently', async () => {
            const replicas = await Promise.all([0, 1, 2].map(() => createDatabase({ type: dialect, url: database.location })));
            try {
                const results = await Promise.all(replicas.map((replica) => migrateToLatest(replica)));
                expect(results.flat()).toEqual(ALL);
                const { rows } = await sql<{ count: number | string }>`select count(*) as count from kysely_migration`.execute(database.db);
                expect(Number(rows[0]?.count)).toBe(ALL.length);
                expect(await schemaTables(database)).toEqual([...TABLES].sort());
            } finally {
                await Promise.all(replicas.map((replica) => replica.destroy()));
            }
        }, TIMEOUT);
    }
});

async function generatedColumns(handle: DatabaseHandle): Promise<string[]> {
    type Row = { name: string };
    if (handle.dialect === 'postgres') {
        const { rows } = await sql<Row>`select table_name || '.' || column_name as name from information_schema.columns
            where table_schema = current_schema() and is_generated = 'ALWAYS'`.execute(handle.db);
        return rows.map((row) => row.name);
    }
    if (handle.dialect === 'mysql') {
        const { rows } = await sql<Row>`select concat(table_name, '.', column_name) as name from information_schema.columns
            where table_schema = database() and extra like '%GENERATED%'`.execute(handle.db);
        return rows.map((row) => row.name);
    }
    // table_xinfo marks generated columns hidden = 2 (virtual) or 3 (stored); table_info omits them.
    const names: string[] = [];
    for (const table of TABLES) {
        const { rows } = await sql<Row>`select name from pragma_table_xinfo(${table}) where hidden in (2, 3)`.execute(handle.db);
        names.push(...rows.map((row) => `${table}.${row.name}`));
    }
    return names;
}

/** The secondary indexes of auth_sessions by name, ` where not null` marking a partial one. */
async function sessionIndexes(handle: DatabaseHandle): Promise<string[]> {
    type Row = { name: string; partial: number | boolean | string };
    let rows: Row[];
    if (handle.dialect === 'postgres') {
        rows = (await sql<Row>`select c.relname as name, i.indpred is not null as partial from pg_index i
            join pg_class c on c.oid = i.indexrelid join pg_class t on t.oid = i.indrelid
            where t.relname = 'auth_sessions' and t.relnamespace = current_schema()::regnamespace and not i.indisprimary`.execute(handle.db)).rows;
    } else if (handle.dialect === 'mysql') {
        rows = (await sql<Row>`select distinct index_name as name, 0 as partial from information_schema.statistics
            where table_schema = database() and table_name = 'auth_sessions' and index_name <> 'PRIMARY'`.execute(handle.db)).rows;
    } else {
        rows = (await sql<Row>`select name, partial from pragma_index_list('auth_sessions') where origin = 'c'`.execute(handle.db)).rows;
    }
    return rows.map((row) => `${row.name}${row.partial === true || Number(row.partial) === 1 ? ' where not null' : ''}`).sort();
}
