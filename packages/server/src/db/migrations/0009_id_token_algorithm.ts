import type { Kysely } from 'kysely';
import { addColumn } from './context.js';
import type { DialectMigration, MigrationContext } from './context.js';

/*
 * A client's ID token signature algorithm (OpenID Connect Dynamic Client Registration 1.0 §2
 * `id_token_signed_response_alg`): null means RS256, the default every relying party supports
 * (Core §15.1); ES256 is chosen per client, as in Keycloak's "ID token signature algorithm".
 */
async function up(db: Kysely<unknown>, ctx: MigrationContext): Promise<void> {
    await addColumn(db, ctx, 'auth_clients', 'id_token_signed_response_alg', 'varchar(16)');
}

async function down(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('auth_clients').dropColumn('id_token_signed_response_alg').execute();
}

export const migration: DialectMigration = { up, down };
