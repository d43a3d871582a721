import type { Kysely } from 'kysely';
import { addColumn } from './context.js';
import type { DialectMigration, MigrationContext } from './context.js';

/*
 * The strength a browser session was authenticated with (`auth_sessions.acr`: a password, or a
 * password and a second factor — tokens/claims.ts ACR), and the `acr` an authorization code's ID
 * token states (`auth_authorization_codes.acr`: null unless the request asked with `acr_values`,
 * OIDC Core §3.1.2.1 and §2). Null on the rows written before: an unknown strength, stated as
 * the weakest.
 */
async function up(db: Kysely<unknown>, ctx: MigrationContext): Promise<void> {
    await addColumn(db, ctx, 'auth_sessions', 'acr', 'varchar(64)');
    await addColumn(db, ctx, 'auth_authorization_codes', 'acr', 'varchar(64)');
}

async function down(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('auth_authorization_codes').dropColumn('acr').execute();
    await db.schema.alterTable('auth_sessions').dropColumn('acr').execute();
}

export const migration: DialectMigration = { up, down };
