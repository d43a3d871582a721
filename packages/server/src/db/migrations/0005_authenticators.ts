import type { Kysely } from 'kysely';
import { ID, addColumn, createIndex, createTable, foreignKey, timestampType, withTimestamps } from './context.js';
import type { DialectMigration, MigrationContext } from './context.js';

/*
 * Multi-factor sign-in with TOTP (RFC 6238): a user's authenticators, their
 * single-use recovery codes, the single-use multi-factor tickets of the password grant, and the
 * realm settings of API.md §7.
 */
const AUTHENTICATORS = 'auth_user_authenticators';
const RECOVERY = 'auth_user_recovery_codes';
const TICKETS = 'auth_mfa_tickets';
const REALM_SETTINGS = ['registration_enabled', 'email_verification_required', 'mfa_enabled', 'mfa_required'];

async function up(db: Kysely<unknown>, ctx: MigrationContext): Promise<void> {
    // API.md §7 "Realm settings": booleans, default false
    for (const column of REALM_SETTINGS) {
        await addColumn(db, ctx, 'auth_realms', column, 'boolean', (col) => col.notNull().defaultTo(false));
    }

    // the seed is sealed under the realm's encryption key (enc:v1:<keyId>:…), so DELETE /keys/:id
    // finds the authenticators depending on a key by their envelope, as it does client secrets
    let authenticators = withTimestamps(createTable(db, ctx, AUTHENTICATORS)
        .addColumn('id', ID, (col) => col.primaryKey())
        .addColumn('user_id', ID, (col) => col.notNull())
        .addColumn('realm_id', ID, (col) => col.notNull())
        .addColumn('type', 'varchar(16)', (col) => col.notNull())
        .addColumn('name', 'varchar(128)', (col) => col.notNull())
        .addColumn('secret', 'text', (col) => col.notNull())
        .addColumn('confirmed', 'boolean', (col) => col.notNull().defaultTo(false))
        // RFC 6238 §5.2: the last time step accepted; a code of it or an earlier step is a replay
        .addColumn('last_step', 'bigint'), ctx);
    authenticators = foreignKey(authenticators, AUTHENTICATORS, 'realm_id', 'auth_realms', 'cascade');
    authenticators = foreignKey(authenticators, AUTHENTICATORS, 'user_id', 'auth_users', 'cascade');
    await authenticators.execute();
    await createIndex(db, ctx, AUTHENTICATORS, ['user_id']);
    await createIndex(db, ctx, AUTHENTICATORS, ['realm_id']);

    // recovery codes: SHA-256 hex digests, single use (used_at set by the one redemption)
    let recovery = createTable(db, ctx, RECOVERY)
        .addColumn('id', ID, (col) => col.primaryKey())
        .addColumn('user_id', ID, (col) => col.notNull())
        .addColumn('realm_id', ID, (col) => col.notNull())
        .addColumn('code_digest', 'varchar(64)', (col) => col.notNull())
        .addColumn('used_at', timestampType(ctx))
        .addColumn('created_at', timestampType(ctx), (col) => col.notNull());
    recovery = foreignKey(recovery, RECOVERY, 'realm_id', 'auth_realms', 'cascade');
    recovery = foreignKey(recovery, RECOVERY, 'user_id', 'auth_users', 'cascade');
    await recovery.execute();
    await createIndex(db, ctx, RECOVERY, ['user_id', 'code_digest'], { unique: true });

    // an mfa_token's jti: the row is deleted by its one redemption (single use)
    let tickets = createTable(db, ctx, TICKETS)
        .addColumn('id', ID, (col) => col.primaryKey())
        .addColumn('user_id', ID, (col) => col.notNull())
        .addColumn('realm_id', ID, (col) => col.notNull())
        .addColumn('expires_at', timestampType(ctx), (col) => col.notNull())
        .addColumn('created_at', timestampType(ctx), (col) => col.notNull());
    tickets = foreignKey(tickets, TICKETS, 'realm_id', 'auth_realms', 'cascade');
    tickets = foreignKey(tickets, TICKETS, 'user_id', 'auth_users', 'cascade');
    await tickets.execute();
    await createIndex(db, ctx, TICKETS, ['expires_at']);
}

async function down(db: Kysely<unknown>, ctx: MigrationContext): Promise<void> {
    await db.schema.dropTable(TICKETS).ifExists().execute();
    await db.schema.dropTable(RECOVERY).ifExists().execute();
    await db.schema.dropTable(AUTHENTICATORS).ifExists().execute();
    void ctx;
    for (const column of [...REALM_SETTINGS].reverse()) await db.schema.alterTable('auth_realms').dropColumn(column).execute();
}

export const migration: DialectMigration = { up, down };
