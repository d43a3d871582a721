import type { Kysely } from 'kysely';
import { addColumn } from './context.js';
import type { DialectMigration, MigrationContext } from './context.js';

/*
 * A realm's branding of its sign-in pages (API.md §8 realm fields `logoUrl`, `primaryColor`): the
 * logo's address (an https URL or a path on this server) and the primary colour (`#rrggbb`).
 * Both nullable: a realm without them keeps the default look. The display name shown beside them
 * is the realm's existing `display_name`.
 */
const COLUMNS = [['logo_url', 'varchar(2048)'], ['primary_color', 'varchar(7)']] as const;

async function up(db: Kysely<unknown>, ctx: MigrationContext): Promise<void> {
    for (const [column, type] of COLUMNS) await addColumn(db, ctx, 'auth_realms', column, type);
}

async function down(db: Kysely<unknown>): Promise<void> {
    for (const [column] of [...COLUMNS].reverse()) await db.schema.alterTable('auth_realms').dropColumn(column).execute();
}

export const migration: DialectMigration = { up, down };
