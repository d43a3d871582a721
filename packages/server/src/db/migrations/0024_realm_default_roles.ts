import type { Kysely } from 'kysely';
import { createIndex, createTable, foreignKey, ID, withTimestamps } from './context.js';
import type { DialectMigration, MigrationContext } from './context.js';

/*
 * Realm default roles (API.md §8 `defaultRoleIds`; Keycloak's "default roles"): the roles every new
 * user of a realm receives in the transaction that creates it. A junction rather than a list column:
 * the foreign keys keep the list true by themselves — a role deleted by any path (its own delete, its
 * client's, its realm's) leaves the list in the same statement, so no id in it ever names nothing.
 */
const TABLE = 'auth_realm_default_roles';

async function up(db: Kysely<unknown>, ctx: MigrationContext): Promise<void> {
    let table = withTimestamps(createTable(db, ctx, TABLE)
        .addColumn('id', ID, (col) => col.primaryKey())
        .addColumn('realm_id', ID, (col) => col.notNull())
        .addColumn('role_id', ID, (col) => col.notNull()), ctx);
    table = foreignKey(table, TABLE, 'realm_id', 'auth_realms', 'cascade');
    table = foreignKey(table, TABLE, 'role_id', 'auth_roles', 'cascade');
    await table.execute();
    // the realm's list in one index range; the role's side for the cascade on delete
    await createIndex(db, ctx, TABLE, ['realm_id', 'role_id'], { unique: true });
    await createIndex(db, ctx, TABLE, ['role_id']);
}

async function down(db: Kysely<unknown>): Promise<void> {
    await db.schema.dropTable(TABLE).ifExists().execute();
}

export const migration: DialectMigration = { up, down };
