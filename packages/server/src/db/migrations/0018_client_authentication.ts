import type { Kysely } from 'kysely';
import { addColumn, createTable, timestampType } from './context.js';
import type { DialectMigration, MigrationContext } from './context.js';

/*
 * Modern client registration and realm profiles (API.md §8):
 * - a client's token endpoint authentication method (OIDC Registration §2
 *   `token_endpoint_auth_method`), its public keys inline or by URL (`jwks`, `jwks_uri`), whether it
 *   must push its authorization requests (RFC 9126 §6) or sign them (RFC 9101 §10.5), and the
 *   resource indicator it answers to as a resource server (RFC 8707 §2);
 * - a realm's security profile (FAPI 2.0), its pushed-request requirement and whether dynamic
 *   registration (RFC 7591) is open;
 * - the single-use identifiers of client assertions (RFC 7523 §3 item 7) and DPoP proofs
 *   (RFC 9449 §11.1), shared by every replica: one row per identifier until it could no longer be
 *   accepted, its key a digest that holds no client data.
 */
const CLIENTS = 'auth_clients';
const REALMS = 'auth_realms';
const REPLAY = 'auth_replay_guards';

async function up(db: Kysely<unknown>, ctx: MigrationContext): Promise<void> {
    await addColumn(db, ctx, CLIENTS, 'token_endpoint_auth_method', 'varchar(32)');
    await addColumn(db, ctx, CLIENTS, 'jwks', 'text');
    await addColumn(db, ctx, CLIENTS, 'jwks_uri', 'varchar(2048)');
    await addColumn(db, ctx, CLIENTS, 'require_pushed_authorization_requests', 'boolean', (col) => col.notNull().defaultTo(false));
    await addColumn(db, ctx, CLIENTS, 'require_signed_request_object', 'boolean', (col) => col.notNull().defaultTo(false));
    await addColumn(db, ctx, CLIENTS, 'audience', 'varchar(2048)');

    await addColumn(db, ctx, REALMS, 'security_profile', 'varchar(16)');
    await addColumn(db, ctx, REALMS, 'require_pushed_authorization_requests', 'boolean', (col) => col.notNull().defaultTo(false));
    await addColumn(db, ctx, REALMS, 'dynamic_registration_enabled', 'boolean', (col) => col.notNull().defaultTo(false));

    await createTable(db, ctx, REPLAY)
        .addColumn('id', 'varchar(64)', (col) => col.primaryKey())
        .addColumn('expires_at', timestampType(ctx), (col) => col.notNull())
        .execute();
}

async function down(db: Kysely<unknown>): Promise<void> {
    await db.schema.dropTable(REPLAY).ifExists().execute();
    for (const column of ['dynamic_registration_enabled', 'require_pushed_authorization_requests', 'security_profile']) {
        await db.schema.alterTable(REALMS).dropColumn(column).execute();
    }
    for (const column of ['audience', 'require_signed_request_object', 'require_pushed_authorization_requests', 'jwks_uri', 'jwks', 'token_endpoint_auth_method']) {
        await db.schema.alterTable(CLIENTS).dropColumn(column).execute();
    }
}

export const migration: DialectMigration = { up, down };
