import type { Kysely } from 'kysely';
import { addColumn } from './context.js';
import type { DialectMigration, MigrationContext } from './context.js';

/*
 * RFC 8707 §2: the resource indicator an authorization request named, kept on its code so the
 * token request can narrow the access token's audience to it (and to nothing else). Null: the
 * request named none, so the token request may name any resource server of the realm.
 */
async function up(db: Kysely<unknown>, ctx: MigrationContext): Promise<void> {
    await addColumn(db, ctx, 'auth_authorization_codes', 'resource', 'varchar(2048)');
}

async function down(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('auth_authorization_codes').dropColumn('resource').execute();
}

export const migration: DialectMigration = { up, down };
