import type { Kysely } from 'kysely';
import { ID, createIndex, createTable, foreignKey, timestampType } from './context.js';
import type { DialectMigration, MigrationContext } from './context.js';

/*
 * Pushed authorization requests (RFC 9126): one row per `request_uri` handed out by `POST /par`,
 * until the authorization endpoint redeems it or it expires (§2.2: a short lifetime; §4: single
 * use). The reference is a bearer value, so only its SHA-256 digest is the key (as authorization
 * codes, migration 0003). The validated parameters are kept as JSON text.
 */
const PUSHED = 'auth_pushed_requests';

async function up(db: Kysely<unknown>, ctx: MigrationContext): Promise<void> {
    let pushed = createTable(db, ctx, PUSHED)
        .addColumn('id', 'varchar(64)', (col) => col.primaryKey())
        .addColumn('realm_id', ID, (col) => col.notNull())
        .addColumn('client_id', ID, (col) => col.notNull())
        .addColumn('parameters', 'text', (col) => col.notNull())
        .addColumn('expires_at', timestampType(ctx), (col) => col.notNull());
    pushed = foreignKey(pushed, PUSHED, 'realm_id', 'auth_realms', 'cascade');
    pushed = foreignKey(pushed, PUSHED, 'client_id', 'auth_clients', 'cascade');
    await pushed.execute();
    await createIndex(db, ctx, PUSHED, ['expires_at']);
    await createIndex(db, ctx, PUSHED, ['client_id']);
}

async function down(db: Kysely<unknown>): Promise<void> {
    await db.schema.dropTable(PUSHED).ifExists().execute();
}

export const migration: DialectMigration = { up, down };
