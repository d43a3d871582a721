import type { Kysely } from 'kysely';
import { ID, coalescedKey, createIndex, createTable, foreignKey, timestampType, withTimestamps } from './context.js';
import type { DialectMigration, MigrationContext, TableBuilder } from './context.js';

/*
 * The initial schema (db/schema.ts is the contract). Generated columns, never written by the
 * application (spec beta.65 item 3, NULLs coalesced for global rows):
 *   auth_paths.parent_key; auth_roles.client_key, realm_key; auth_permissions.client_key,
 *   realm_key; auth_scopes.realm_key; auth_policies.realm_key; auth_event_aggregates.realm_key.
 * Realm-bound rows go with their realm and junction rows with either side (ON DELETE CASCADE);
 * optional references (a grant's policy, a client's access policy, a folder) are set to NULL.
 * A foreign key whose column leads a unique index needs no index of its own.
 */

/** Creation order; `down` drops in reverse. */
const TABLES = [
    'auth_realms', 'auth_paths', 'auth_policies', 'auth_clients', 'auth_users', 'auth_roles',
    'auth_permissions', 'auth_permission_policies', 'auth_scopes', 'auth_client_scopes',
    'auth_user_roles', 'auth_client_roles', 'auth_role_permissions', 'auth_user_permissions',
    'auth_client_permissions', 'auth_user_attributes', 'auth_role_attributes', 'auth_keys',
    'auth_sessions', 'auth_session_tokens', 'auth_events', 'auth_event_aggregates',
] as const;

type Table = (typeof TABLES)[number];

type Define = (t: TableBuilder, ctx: MigrationContext, table: Table) => TableBuilder;

interface TableSpec {
    define: Define;
    unique?: string[][];
    indexes?: string[][];
}

const realmRef = (t: TableBuilder, table: Table, nullable = false): TableBuilder =>
    foreignKey(t.addColumn('realm_id', ID, (col) => (nullable ? col : col.notNull())), table, 'realm_id', 'auth_realms', 'cascade');

/** A named record with display fields; role, permission, scope and policy share it. */
const described = (t: TableBuilder): TableBuilder => t
    .addColumn('id', ID, (col) => col.primaryKey())
    .addColumn('name', 'varchar(255)', (col) => col.notNull())
    .addColumn('display_name', 'varchar(255)')
    .addColumn('description', 'text')
    .addColumn('built_in', 'boolean', (col) => col.notNull().defaultTo(false));

const junction = (left: [string, string], right: [string, string]): TableSpec => ({
    define: (t, _ctx, table) => {
        let b = t.addColumn('id', ID, (col) => col.primaryKey())
            .addColumn(left[0], ID, (col) => col.notNull())
            .addColumn(right[0], ID, (col) => col.notNull());
        b = foreignKey(b, table, left[0], left[1], 'cascade');
        return foreignKey(b, table, right[0], right[1], 'cascade');
    },
    unique: [[left[0], right[0]]],
    indexes: [[right[0]]],
});

/** role/user/client permission grants: realm reach plus an optional narrowing policy. */
const grant = (holder: [string, string]): TableSpec => {
    const base = junction(holder, ['permission_id', 'auth_permissions']);
    return {
        define: (t, ctx, table) => foreignKey(
            base.define(t, ctx, table)
                .addColumn('realm_scope', 'varchar(16)', (col) => col.notNull().defaultTo('own'))
                .addColumn('policy_id', ID),
            table, 'policy_id', 'auth_policies', 'set null',
        ),
        unique: base.unique,
        indexes: [['permission_id'], ['policy_id']],
    };
};

/** An attribute row carries its owner's realm: null for a global role's attributes. */
const attribute = (owner: [string, string], realmNullable = false): TableSpec => ({
    define: (t, _ctx, table) => realmRef(foreignKey(
        t.addColumn('id', ID, (col) => col.primaryKey())
            .addColumn('name', 'varchar(255)', (col) => col.notNull())
            .addColumn('value', 'text')
            .addColumn(owner[0], ID, (col) => col.notNull()),
        table, owner[0], owner[1], 'cascade',
    ), table, realmNullable),
    unique: [['name', owner[0]]],
    indexes: [[owner[0]], ['realm_id']],
});

const SPECS: Record<Table, TableSpec> = {
    auth_realms: {
        define: (t) => t
            .addColumn('id', ID, (col) => col.primaryKey())
            .addColumn('name', 'varchar(128)', (col) => col.notNull())
            .addColumn('display_name', 'varchar(255)')
            .addColumn('description', 'text')
            .addColumn('built_in', 'boolean', (col) => col.notNull().defaultTo(false)),
        unique: [['name']],
    },
    auth_paths: {
        define: (t, ctx, table) => realmRef(foreignKey(coalescedKey(
            t.addColumn('id', ID, (col) => col.primaryKey())
                .addColumn('name', 'varchar(128)', (col) => col.notNull())
                .addColumn('parent_id', ID),
            ctx, 'parent_key', 'parent_id',
        ), table, 'parent_id', 'auth_paths', 'cascade'), table),
        unique: [['name', 'parent_key', 'realm_id']],
        indexes: [['parent_id'], ['realm_id']],
    },
    auth_policies: {
        define: (t, ctx, table) => coalescedKey(realmRef(foreignKey(
            t.addColumn('id', ID, (col) => col.primaryKey())
                .addColumn('type', 'varchar(64)', (col) => col.notNull())
                .addColumn('name', 'varchar(255)', (col) => col.notNull())
                .addColumn('display_name', 'varchar(255)')
                .addColumn('description', 'text')
                .addColumn('invert', 'boolean', (col) => col.notNull().defaultTo(false))
                .addColumn('config', 'text', (col) => col.notNull())
                .addColumn('parent_id', ID),
            table, 'parent_id', 'auth_policies', 'cascade',
        ), table, true).addColumn('built_in', 'boolean', (col) => col.notNull().defaultTo(false)), ctx, 'realm_key', 'realm_id'),
        unique: [['name', 'realm_key']],
        indexes: [['parent_id'], ['realm_id']],
    },
    auth_clients: {
        define: (t, _ctx, table) => {
            let b = t.addColumn('id', ID, (col) => col.primaryKey())
                .addColumn('name', 'varchar(255)', (col) => col.notNull())
                .addColumn('display_name', 'varchar(255)')
                .addColumn('description', 'text')
                .addColumn('active', 'boolean', (col) => col.notNull().defaultTo(true))
                .addColumn('built_in', 'boolean', (col) => col.notNull().defaultTo(false))
                // plaintext, bcrypt hash or `enc:` envelope (spec: client secret column 512)
                .addColumn('secret', 'varchar(512)')
                .addColumn('secret_hashed', 'boolean', (col) => col.notNull().defaultTo(false))
                .addColumn('secret_encrypted', 'boolean', (col) => col.notNull().defaultTo(false))
                .addColumn('redirect_uri', 'text')
                .addColumn('post_logout_redirect_uri', 'text')
                .addColumn('grant_types', 'text')
                .addColumn('base_url', 'text')
                .addColumn('backchannel_logout_uri', 'text')
                .addColumn('access_policy_id', ID)
                .addColumn('path_id', ID);
            b = foreignKey(b, table, 'access_policy_id', 'auth_policies', 'set null');
            return realmRef(foreignKey(b, table, 'path_id', 'auth_paths', 'set null'), table);
        },
        unique: [['name', 'realm_id']],
        indexes: [['realm_id'], ['access_policy_id'], ['path_id']],
    },
    auth_users: {
        define: (t, ctx, table) => realmRef(foreignKey(
            t.addColumn('id', ID, (col) => col.primaryKey())
                .addColumn('name', 'varchar(255)', (col) => col.notNull())
                .addColumn('name_locked', 'boolean', (col) => col.notNull().defaultTo(true))
                .addColumn('first_name', 'varchar(255)')
                .addColumn('last_name', 'varchar(255)')
                .addColumn('display_name', 'varchar(255)')
                .addColumn('email', 'varchar(255)')
                .addColumn('password', 'varchar(255)')
                .addColumn('reset_hash', 'varchar(255)')
                .addColumn('reset_at', timestampType(ctx))
                .addColumn('activate_hash', 'varchar(255)')
                .addColumn('email_verified', 'boolean', (col) => col.notNull().defaultTo(false))
                .addColumn('active', 'boolean', (col) => col.notNull().defaultTo(true))
                .addColumn('status', 'varchar(255)')
                .addColumn('status_message', 'varchar(255)')
                .addColumn('path_id', ID),
            table, 'path_id', 'auth_paths', 'set null',
        ), table),
        unique: [['name', 'realm_id']],
        indexes: [['realm_id'], ['path_id']],
    },
    auth_roles: {
        define: (t, ctx, table) => scopedToClient(described(t), ctx, table),
        unique: [['name', 'client_key', 'realm_key']],
        indexes: [['client_id'], ['realm_id']],
    },
    auth_permissions: {
        define: (t, ctx, table) => scopedToClient(
            described(t).addColumn('decision_strategy', 'varchar(32)', (col) => col.notNull()),
            ctx, table,
        ),
        unique: [['name', 'client_key', 'realm_key']],
        indexes: [['client_id'], ['realm_id']],
    },
    auth_permission_policies: junction(['permission_id', 'auth_permissions'], ['policy_id', 'auth_policies']),
    auth_scopes: {
        define: (t, ctx, table) => coalescedKey(realmRef(described(t), table, true), ctx, 'realm_key', 'realm_id'),
        unique: [['name', 'realm_key']],
        indexes: [['realm_id']],
    },
    auth_client_scopes: (() => {
        const base = junction(['client_id', 'auth_clients'], ['scope_id', 'auth_scopes']);
        return { ...base, define: (t, ctx, table) => base.define(t, ctx, table).addColumn('default', 'boolean', (col) => col.notNull().defaultTo(false)) };
    })(),
    auth_user_roles: junction(['user_id', 'auth_users'], ['role_id', 'auth_roles']),
    auth_client_roles: junction(['client_id', 'auth_clients'], ['role_id', 'auth_roles']),
    auth_role_permissions: grant(['role_id', 'auth_roles']),
    auth_user_permissions: grant(['user_id', 'auth_users']),
    auth_client_permissions: grant(['client_id', 'auth_clients']),
    auth_user_attributes: attribute(['user_id', 'auth_users']),
    auth_role_attributes: attribute(['role_id', 'auth_roles'], true),
    auth_keys: {
        define: (t, _ctx, table) => realmRef(
            t.addColumn('id', ID, (col) => col.primaryKey())
                .addColumn('type', 'varchar(32)', (col) => col.notNull())
                .addColumn('use', 'varchar(16)', (col) => col.notNull())
                .addColumn('algorithm', 'varchar(32)', (col) => col.notNull())
                .addColumn('status', 'varchar(32)', (col) => col.notNull())
                .addColumn('priority', 'integer', (col) => col.notNull().defaultTo(0))
                .addColumn('public_key', 'text')
                .addColumn('private_key', 'text'),
            table,
        ),
        indexes: [['realm_id']],
    },
    auth_sessions: {
        define: (t, ctx, table) => {
            let b = t.addColumn('id', ID, (col) => col.primaryKey())
                .addColumn('sub', ID, (col) => col.notNull())
                .addColumn('sub_kind', 'varchar(16)', (col) => col.notNull())
                .addColumn('user_id', ID)
                .addColumn('client_id', ID)
                .addColumn('ip_address', 'varchar(64)')
                .addColumn('user_agent', 'text')
                .addColumn('seen_at', timestampType(ctx))
                .addColumn('expires_at', timestampType(ctx), (col) => col.notNull())
                .addColumn('revoked_at', timestampType(ctx));
            b = foreignKey(b, table, 'user_id', 'auth_users', 'cascade');
            return realmRef(foreignKey(b, table, 'client_id', 'auth_clients', 'cascade'), table);
        },
        // expires_at serves the worker's expiry sweep
        indexes: [['realm_id'], ['user_id'], ['client_id'], ['seen_at'], ['expires_at']],
    },
    auth_session_tokens: {
        define: (t, ctx, table) => foreignKey(
            t.addColumn('id', ID, (col) => col.primaryKey())
                .addColumn('kind', 'varchar(32)', (col) => col.notNull())
                .addColumn('session_id', ID, (col) => col.notNull())
                .addColumn('expires_at', timestampType(ctx), (col) => col.notNull())
                .addColumn('created_at', timestampType(ctx), (col) => col.notNull()),
            table, 'session_id', 'auth_sessions', 'cascade',
        ),
        indexes: [['session_id'], ['expires_at']],
    },
    auth_events: {
        // Deleting a realm deletes its events and aggregates (spec Events item 3); entries that
        // must outlive the realm (its own created/deleted entries) carry realm_id NULL.
        define: (t, ctx, table) => realmRef(
            t.addColumn('id', ID, (col) => col.primaryKey())
                .addColumn('name', 'varchar(128)', (col) => col.notNull())
                .addColumn('scope', 'varchar(64)', (col) => col.notNull())
                .addColumn('ref_type', 'varchar(64)', (col) => col.notNull())
                .addColumn('ref_id', 'varchar(255)')
                .addColumn('actor_type', 'varchar(32)')
                .addColumn('actor_id', 'varchar(255)')
                .addColumn('request_ip', 'varchar(64)')
                .addColumn('request_method', 'varchar(16)')
                .addColumn('request_path', 'text')
                .addColumn('data', 'text')
                .addColumn('created_at', timestampType(ctx), (col) => col.notNull()),
            table, true,
        ),
        indexes: [['realm_id', 'created_at'], ['created_at']],
    },
    auth_event_aggregates: {
        define: (t, ctx, table) => coalescedKey(realmRef(
            t.addColumn('id', ID, (col) => col.primaryKey())
                .addColumn('day', 'varchar(10)', (col) => col.notNull())
                .addColumn('scope', 'varchar(64)', (col) => col.notNull())
                .addColumn('name', 'varchar(128)', (col) => col.notNull())
                .addColumn('ref_type', 'varchar(64)', (col) => col.notNull())
                .addColumn('count', 'integer', (col) => col.notNull().defaultTo(0)),
            table, true,
        ), ctx, 'realm_key', 'realm_id'),
        // one count per day, realm, scope, event name and entity type (spec: event aggregate)
        unique: [['day', 'realm_key', 'scope', 'name', 'ref_type']],
        indexes: [['realm_id']],
    },
};

function scopedToClient(t: TableBuilder, ctx: MigrationContext, table: Table): TableBuilder {
    let b = foreignKey(t.addColumn('client_id', ID), table, 'client_id', 'auth_clients', 'cascade');
    b = realmRef(b, table, true);
    return coalescedKey(coalescedKey(b, ctx, 'client_key', 'client_id'), ctx, 'realm_key', 'realm_id');
}

/** Tables whose rows carry created_at/updated_at (schema.ts `Timestamps`). */
const WITHOUT_TIMESTAMPS = new Set<Table>(['auth_session_tokens', 'auth_events', 'auth_event_aggregates']);

async function up(db: Kysely<unknown>, ctx: MigrationContext): Promise<void> {
    for (const table of TABLES) {
        const spec = SPECS[table];
        let builder = spec.define(createTable(db, ctx, table), ctx, table);
        if (!WITHOUT_TIMESTAMPS.has(table)) builder = withTimestamps(builder, ctx);
        await builder.execute();
        for (const columns of spec.unique ?? []) {
            const name = table === 'auth_event_aggregates' ? `${table}_key_unique` : undefined;
            await createIndex(db, ctx, table, columns, name ? { unique: true, name } : { unique: true });
        }
        for (const columns of spec.indexes ?? []) await createIndex(db, ctx, table, columns);
    }
}

async function down(db: Kysely<unknown>): Promise<void> {
    for (const table of [...TABLES].reverse()) await db.schema.dropTable(table).ifExists().execute();
}

export const migration: DialectMigration = { up, down };
