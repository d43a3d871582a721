import type { Kysely } from 'kysely';
import { createTable, timestampType } from './context.js';
import type { DialectMigration, MigrationContext } from './context.js';

/*
 * Several workers on one database do not run the same sweep twice. A sweep runs
 * only under its lease: one row per sweep name, taken by a conditional UPDATE (one statement, so
 * atomic on all three dialects: PostgreSQL and InnoDB re-check the condition on the row they wait
 * for, SQLite has one writer). A lease row is not data of any realm and holds no personal data.
 */
const LEASES = 'auth_worker_leases';

async function up(db: Kysely<unknown>, ctx: MigrationContext): Promise<void> {
    await createTable(db, ctx, LEASES)
        .addColumn('name', 'varchar(64)', (col) => col.primaryKey())
        .addColumn('holder', 'varchar(64)', (col) => col.notNull())
        .addColumn('expires_at', timestampType(ctx), (col) => col.notNull())
        .execute();
}

async function down(db: Kysely<unknown>): Promise<void> {
    await db.schema.dropTable(LEASES).ifExists().execute();
}

export const migration: DialectMigration = { up, down };
