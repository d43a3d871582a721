import type { Kysely } from 'kysely';
import { ID, createIndex, createTable, foreignKey, timestampType } from './context.js';
import type { DialectMigration, MigrationContext } from './context.js';

/*
 * The public half of each deleted signing key, kept while tokens it signed could still be
 * presented (spec States, Errors: a token whose signing key was deleted is inactive, code
 * inactive_token — not a forgery). Without it a deleted key's tokens could not be told apart
 * from tokens this deployment never signed. Rows go with their realm.
 */
const TABLE = 'auth_key_tombstones';

async function up(db: Kysely<unknown>, ctx: MigrationContext): Promise<void> {
    let builder = createTable(db, ctx, TABLE)
        .addColumn('id', ID, (col) => col.primaryKey())
        .addColumn('algorithm', 'varchar(32)', (col) => col.notNull())
        .addColumn('public_key', 'text', (col) => col.notNull())
        .addColumn('realm_id', ID, (col) => col.notNull())
        .addColumn('deleted_at', timestampType(ctx), (col) => col.notNull());
    builder = foreignKey(builder, TABLE, 'realm_id', 'auth_realms', 'cascade');
    await builder.execute();
    await createIndex(db, ctx, TABLE, ['realm_id']);
    await createIndex(db, ctx, TABLE, ['deleted_at']);
}

async function down(db: Kysely<unknown>): Promise<void> {
    await db.schema.dropTable(TABLE).ifExists().execute();
}

export const migration: DialectMigration = { up, down };
