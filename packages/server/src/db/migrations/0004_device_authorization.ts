import type { Kysely } from 'kysely';
import { ID, createIndex, createTable, foreignKey, timestampType } from './context.js';
import type { DialectMigration, MigrationContext } from './context.js';

/*
 * The device authorization grant (RFC 8628): one row per device authorization request.
 * Both codes are bearer secrets, so only their SHA-256 digests are stored (as the authorization
 * codes of migration 0003; spec Authentication 12).
 */
const DEVICE_CODES = 'auth_device_codes';

async function up(db: Kysely<unknown>, ctx: MigrationContext): Promise<void> {
    let codes = createTable(db, ctx, DEVICE_CODES)
        .addColumn('id', ID, (col) => col.primaryKey())
        .addColumn('device_code_digest', 'varchar(64)', (col) => col.notNull())
        // of the normalised user code (upper case, no dash): what the user types is looked up
        .addColumn('user_code_digest', 'varchar(64)', (col) => col.notNull())
        .addColumn('realm_id', ID, (col) => col.notNull())
        .addColumn('client_id', ID, (col) => col.notNull())
        .addColumn('scope', 'text', (col) => col.notNull())
        // pending → approved | denied (RFC 8628 §3.3), decided once
        .addColumn('status', 'varchar(16)', (col) => col.notNull())
        .addColumn('user_id', ID)
        // the session the user approved in: the code dies with it (spec Authentication 12)
        .addColumn('session_id', ID)
        // seconds between polls; grows by 5 at each slow_down (RFC 8628 §3.5)
        .addColumn('poll_interval', 'integer', (col) => col.notNull())
        .addColumn('polled_at', timestampType(ctx))
        .addColumn('expires_at', timestampType(ctx), (col) => col.notNull())
        // set by the one poll that received the tokens
        .addColumn('consumed_at', timestampType(ctx))
        .addColumn('created_at', timestampType(ctx), (col) => col.notNull());
    codes = foreignKey(codes, DEVICE_CODES, 'realm_id', 'auth_realms', 'cascade');
    codes = foreignKey(codes, DEVICE_CODES, 'client_id', 'auth_clients', 'cascade');
    codes = foreignKey(codes, DEVICE_CODES, 'user_id', 'auth_users', 'cascade');
    codes = foreignKey(codes, DEVICE_CODES, 'session_id', 'auth_sessions', 'cascade');
    await codes.execute();
    await createIndex(db, ctx, DEVICE_CODES, ['device_code_digest'], { unique: true });
    await createIndex(db, ctx, DEVICE_CODES, ['user_code_digest'], { unique: true });
    await createIndex(db, ctx, DEVICE_CODES, ['expires_at']);
    await createIndex(db, ctx, DEVICE_CODES, ['session_id']);
}

async function down(db: Kysely<unknown>): Promise<void> {
    await db.schema.dropTable(DEVICE_CODES).ifExists().execute();
}

export const migration: DialectMigration = { up, down };
