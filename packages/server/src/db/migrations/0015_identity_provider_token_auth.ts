import type { Kysely } from 'kysely';
import { addColumn } from './context.js';
import type { DialectMigration, MigrationContext } from './context.js';

/*
 * How Realmgate authenticates at an upstream provider's token endpoint (RFC 6749 §2.3; OIDC Core
 * §9): `client_secret_basic`, `client_secret_post` or `private_key_jwt` (RFC 7523 §2.2, signed with
 * the realm's signing key). Null: from the upstream's discovery, client_secret_basic first.
 */
async function up(db: Kysely<unknown>, ctx: MigrationContext): Promise<void> {
    await addColumn(db, ctx, 'auth_identity_providers', 'token_endpoint_auth_method', 'varchar(32)');
}

async function down(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('auth_identity_providers').dropColumn('token_endpoint_auth_method').execute();
}

export const migration: DialectMigration = { up, down };
