import type { Kysely } from 'kysely';
import { addColumn } from './context.js';
import type { DialectMigration, MigrationContext } from './context.js';

/*
 * A refresh token's row keeps its id for the life of the chain, and `jti` names the one token of the
 * chain that is usable now (RFC 9700 §4.14.2 rotation). A rotation then rewrites columns no index
 * holds instead of the primary key: one page written per commit rather than three (the primary-key
 * index twice and the expiry index). The session_id index finds the row, as the token names its
 * session. Null: a row written before this migration, whose id is its token's jti.
 */
async function up(db: Kysely<unknown>, ctx: MigrationContext): Promise<void> {
    await addColumn(db, ctx, 'auth_session_tokens', 'jti', 'varchar(36)');
}

async function down(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('auth_session_tokens').dropColumn('jti').execute();
}

export const migration: DialectMigration = { up, down };
