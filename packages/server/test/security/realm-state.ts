import { sql } from 'kysely';
import type { TableName } from '../../src/db/schema.js';
import type { TestApp } from '../app.js';
import type { Kind, RealmWorld } from './realm-world.js';

/*
 * Everything of one realm that a write from outside it could touch, read straight from the
 * database (a test helper; the server's own statements stay in src/storage/): its rows, every
 * column; how many rows each table holds in it; how many bindings refer to its rows.
 */

const TABLE_OF: Record<Kind, TableName> = {
    'realms': 'auth_realms', 'paths': 'auth_paths', 'users': 'auth_users', 'clients': 'auth_clients', 'roles': 'auth_roles',
    'permissions': 'auth_permissions', 'scopes': 'auth_scopes', 'policies': 'auth_policies', 'keys': 'auth_keys',
    'sessions': 'auth_sessions', 'session-tokens': 'auth_session_tokens', 'user-attributes': 'auth_user_attributes',
    'role-attributes': 'auth_role_attributes', 'user-roles': 'auth_user_roles', 'client-roles': 'auth_client_roles',
    'role-permissions': 'auth_role_permissions', 'user-permissions': 'auth_user_permissions', 'client-permissions': 'auth_client_permissions',
    'client-scopes': 'auth_client_scopes', 'permission-policies': 'auth_permission_policies',
};

const IN_REALM: TableName[] = [
    'auth_paths', 'auth_users', 'auth_clients', 'auth_roles', 'auth_permissions', 'auth_policies', 'auth_scopes', 'auth_user_attributes',
    'auth_role_attributes', 'auth_keys', 'auth_key_tombstones', 'auth_sessions', 'auth_events',
];

/** binding tables and the columns that refer to a row of some realm */
const REFERENCES: [TableName, string, Kind][] = [
    ['auth_user_roles', 'user_id', 'users'], ['auth_user_roles', 'role_id', 'roles'],
    ['auth_client_roles', 'client_id', 'clients'], ['auth_client_roles', 'role_id', 'roles'],
    ['auth_role_permissions', 'role_id', 'roles'], ['auth_role_permissions', 'permission_id', 'permissions'],
    ['auth_user_permissions', 'user_id', 'users'], ['auth_user_permissions', 'permission_id', 'permissions'],
    ['auth_client_permissions', 'client_id', 'clients'], ['auth_client_permissions', 'permission_id', 'permissions'],
    ['auth_client_scopes', 'client_id', 'clients'], ['auth_client_scopes', 'scope_id', 'scopes'],
    ['auth_permission_policies', 'permission_id', 'permissions'], ['auth_permission_policies', 'policy_id', 'policies'],
    ['auth_session_tokens', 'session_id', 'sessions'],
];

async function count(app: TestApp, table: TableName, column: string, values: readonly string[]): Promise<number> {
    const result = await sql<{ n: unknown }>`select count(*) as n from ${sql.table(table)} where ${sql.ref(column)} in (${sql.join(values)})`.execute(app.deps.db);
    return Number(result.rows[0]?.n);
}

export async function realmState(app: TestApp, world: RealmWorld): Promise<Record<string, unknown>> {
    // the event log writes sign-in and token entries detached, up to 50 ms after their request:
    // a snapshot counts them only once they are written, or a setup's late entries read as a change
    await app.deps.events.settled();
    const state: Record<string, unknown> = {};
    for (const [kind, ids] of Object.entries(world.ids) as [Kind, string[]][]) {
        if (ids.length === 0) continue;
        const rows = await sql`select * from ${sql.table(TABLE_OF[kind])} where id in (${sql.join(ids)}) order by id`.execute(app.deps.db);
        state[`rows ${kind}`] = JSON.stringify(rows.rows);
    }
    for (const table of IN_REALM) state[`in realm ${table}`] = await count(app, table, 'realm_id', [world.realmId]);
    for (const [table, column, kind] of REFERENCES) state[`${table}.${column}`] = await count(app, table, column, world.ids[kind]);
    return state;
}

/** the members of `before` that `after` changed */
export function stateChanges(before: Record<string, unknown>, after: Record<string, unknown>): string[] {
    return Object.keys(before).filter((key) => before[key] !== after[key]).map((key) => `${key} changed`);
}
