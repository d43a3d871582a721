import type { Kysely } from 'kysely';
import { createIndex, createTable, foreignKey, ID, timestampType, withTimestamps } from './context.js';
import type { DialectMigration, MigrationContext } from './context.js';

/*
 * Dynamic client registration (RFC 7591, RFC 7592):
 * - initial access tokens (RFC 7591 §1.2, §3): a realm administrator hands one to a developer; it
 *   authorizes a bounded number of registrations until it expires. Stored as the SHA-256 digest of
 *   the token, never the token itself;
 * - registration access tokens (RFC 7592 §1.1): one per registered client, the bearer of its
 *   management at the registration client URI, stored as a digest. The row also marks the client
 *   as registered dynamically; it goes with the client (and the realm).
 */
const INITIAL = 'auth_initial_access_tokens';
const REGISTRATIONS = 'auth_client_registrations';

async function up(db: Kysely<unknown>, ctx: MigrationContext): Promise<void> {
    let initial = withTimestamps(createTable(db, ctx, INITIAL)
        .addColumn('id', ID, (col) => col.primaryKey())
        .addColumn('realm_id', ID, (col) => col.notNull())
        .addColumn('token_digest', 'varchar(64)', (col) => col.notNull())
        .addColumn('uses_allowed', 'integer', (col) => col.notNull())
        .addColumn('uses_remaining', 'integer', (col) => col.notNull())
        .addColumn('expires_at', timestampType(ctx), (col) => col.notNull()), ctx);
    initial = foreignKey(initial, INITIAL, 'realm_id', 'auth_realms', 'cascade');
    await initial.execute();
    await createIndex(db, ctx, INITIAL, ['token_digest'], { unique: true });
    await createIndex(db, ctx, INITIAL, ['realm_id']);
    // the worker's sweep of expired tokens
    await createIndex(db, ctx, INITIAL, ['expires_at']);

    let registrations = withTimestamps(createTable(db, ctx, REGISTRATIONS)
        .addColumn('client_id', ID, (col) => col.primaryKey())
        .addColumn('realm_id', ID, (col) => col.notNull())
        .addColumn('token_digest', 'varchar(64)', (col) => col.notNull()), ctx);
    registrations = foreignKey(registrations, REGISTRATIONS, 'client_id', 'auth_clients', 'cascade');
    registrations = foreignKey(registrations, REGISTRATIONS, 'realm_id', 'auth_realms', 'cascade');
    await registrations.execute();
    await createIndex(db, ctx, REGISTRATIONS, ['token_digest'], { unique: true });
    await createIndex(db, ctx, REGISTRATIONS, ['realm_id']);
}

async function down(db: Kysely<unknown>): Promise<void> {
    await db.schema.dropTable(REGISTRATIONS).ifExists().execute();
    await db.schema.dropTable(INITIAL).ifExists().execute();
}

export const migration: DialectMigration = { up, down };
