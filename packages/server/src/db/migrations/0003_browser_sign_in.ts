import type { Kysely } from 'kysely';
import { ID, addColumn, createIndex, createTable, foreignKey, timestampType, withTimestamps } from './context.js';
import type { DialectMigration, MigrationContext } from './context.js';

/*
 * Browser sign-in (RFC 6749 §4.1, OIDC Core §3.1): authorization codes, remembered consents, the console session
 * cookie and the link between a browser session and the sessions its applications hold.
 */
const CODES = 'auth_authorization_codes';
const CONSENTS = 'auth_user_consents';

async function up(db: Kysely<unknown>, ctx: MigrationContext): Promise<void> {
    // API.md §7: consent is not asked for a first-party client
    await addColumn(db, ctx, 'auth_clients', 'first_party', 'boolean', (col) => col.notNull().defaultTo(false));
    // the browser session a client's session was signed in through: ending the browser session
    // (sign-out, RP-initiated logout) ends the sessions of every application it signed in to
    await addColumn(db, ctx, 'auth_sessions', 'parent_id', ID);
    // SHA-256 of the console session cookie's secret half; null for sessions without a cookie
    await addColumn(db, ctx, 'auth_sessions', 'cookie_digest', 'varchar(64)');
    await createIndex(db, ctx, 'auth_sessions', ['parent_id']);

    // spec Authentication 12: a code is 256-bit, lives 5 minutes, is stored only as its digest
    let codes = createTable(db, ctx, CODES)
        .addColumn('id', ID, (col) => col.primaryKey())
        .addColumn('code_digest', 'varchar(64)', (col) => col.notNull())
        .addColumn('realm_id', ID, (col) => col.notNull())
        .addColumn('client_id', ID, (col) => col.notNull())
        .addColumn('user_id', ID, (col) => col.notNull())
        // the session the user signed in with (browser session or the bearer's): the code dies with it
        .addColumn('session_id', ID, (col) => col.notNull())
        .addColumn('redirect_uri', 'text', (col) => col.notNull())
        .addColumn('scope', 'text', (col) => col.notNull())
        .addColumn('nonce', 'text')
        .addColumn('code_challenge', 'varchar(128)')
        .addColumn('code_challenge_method', 'varchar(16)')
        .addColumn('auth_time', timestampType(ctx), (col) => col.notNull())
        .addColumn('expires_at', timestampType(ctx), (col) => col.notNull())
        // set by the first redemption; a second one revokes what the first issued (RFC 6749 §4.1.2)
        .addColumn('used_at', timestampType(ctx))
        .addColumn('issued_session_id', ID)
        .addColumn('created_at', timestampType(ctx), (col) => col.notNull());
    codes = foreignKey(codes, CODES, 'realm_id', 'auth_realms', 'cascade');
    codes = foreignKey(codes, CODES, 'client_id', 'auth_clients', 'cascade');
    codes = foreignKey(codes, CODES, 'user_id', 'auth_users', 'cascade');
    codes = foreignKey(codes, CODES, 'session_id', 'auth_sessions', 'cascade');
    await codes.execute();
    await createIndex(db, ctx, CODES, ['code_digest'], { unique: true });
    await createIndex(db, ctx, CODES, ['expires_at']);
    await createIndex(db, ctx, CODES, ['session_id']);

    // remembered consent per user and client (API.md §7 /user-consents): space-delimited scopes
    let consents = withTimestamps(createTable(db, ctx, CONSENTS)
        .addColumn('id', ID, (col) => col.primaryKey())
        .addColumn('user_id', ID, (col) => col.notNull())
        .addColumn('client_id', ID, (col) => col.notNull())
        .addColumn('scopes', 'text', (col) => col.notNull())
        .addColumn('realm_id', ID, (col) => col.notNull()), ctx);
    consents = foreignKey(consents, CONSENTS, 'realm_id', 'auth_realms', 'cascade');
    consents = foreignKey(consents, CONSENTS, 'user_id', 'auth_users', 'cascade');
    consents = foreignKey(consents, CONSENTS, 'client_id', 'auth_clients', 'cascade');
    await consents.execute();
    await createIndex(db, ctx, CONSENTS, ['user_id', 'client_id'], { unique: true });
    await createIndex(db, ctx, CONSENTS, ['client_id']);
    await createIndex(db, ctx, CONSENTS, ['realm_id']);
}

async function down(db: Kysely<unknown>, ctx: MigrationContext): Promise<void> {
    await db.schema.dropTable(CONSENTS).ifExists().execute();
    await db.schema.dropTable(CODES).ifExists().execute();
    const index = db.schema.dropIndex('auth_sessions_parent_id_idx');
    // only MySQL names the table of an index
    await (ctx.dialect === 'mysql' ? index.on('auth_sessions') : index.ifExists()).execute();
    await db.schema.alterTable('auth_sessions').dropColumn('cookie_digest').execute();
    await db.schema.alterTable('auth_sessions').dropColumn('parent_id').execute();
    await db.schema.alterTable('auth_clients').dropColumn('first_party').execute();
}

export const migration: DialectMigration = { up, down };
