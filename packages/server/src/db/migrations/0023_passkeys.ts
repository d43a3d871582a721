import type { Kysely } from 'kysely';
import { ID, addColumn, createIndex, createTable, foreignKey, timestampType } from './context.js';
import type { DialectMigration, MigrationContext } from './context.js';

/*
 * Passkeys (WebAuthn Level 3; API.md §8): an authenticator of type `webauthn` is a row of
 * auth_user_authenticators carrying its public key credential — the credential id (base64url), its
 * COSE public key, the signature counter (§6.1.1), the transports and AAGUID the authenticator
 * reported, and when it last signed in. The credential id is looked up by its SHA-256 digest: a
 * credential id may be 1023 bytes (§5.8.3), too long for a MySQL index, and it is unique across
 * every user (§7.1 step 22: a credential registered to another user is refused).
 *
 * The challenges (§13.4.3: random, at least 16 bytes, single use) are kept server-side until their
 * one ceremony spends them by a DELETE, keyed by the challenge's digest, with a short lifetime.
 * The realm settings `passkeysEnabled` and `passkeyPrompt` default to true (API.md §8).
 */
const AUTHENTICATORS = 'auth_user_authenticators';
const CHALLENGES = 'auth_webauthn_challenges';
const REALM_SETTINGS = ['passkeys_enabled', 'passkey_prompt'];

async function up(db: Kysely<unknown>, ctx: MigrationContext): Promise<void> {
    for (const column of REALM_SETTINGS) {
        await addColumn(db, ctx, 'auth_realms', column, 'boolean', (col) => col.notNull().defaultTo(true));
    }
    await addColumn(db, ctx, AUTHENTICATORS, 'credential_id', 'varchar(1400)');
    await addColumn(db, ctx, AUTHENTICATORS, 'credential_digest', 'varchar(64)');
    await addColumn(db, ctx, AUTHENTICATORS, 'public_key', 'text');
    await addColumn(db, ctx, AUTHENTICATORS, 'sign_count', 'bigint');
    await addColumn(db, ctx, AUTHENTICATORS, 'transports', 'varchar(255)');
    await addColumn(db, ctx, AUTHENTICATORS, 'aaguid', 'varchar(36)');
    await addColumn(db, ctx, AUTHENTICATORS, 'last_used_at', timestampType(ctx));
    await createIndex(db, ctx, AUTHENTICATORS, ['credential_digest'], { unique: true });

    let challenges = createTable(db, ctx, CHALLENGES)
        .addColumn('id', 'varchar(64)', (col) => col.primaryKey())
        .addColumn('purpose', 'varchar(16)', (col) => col.notNull())
        .addColumn('realm_id', ID, (col) => col.notNull())
        // the user a registration or a second-factor assertion is for; null for a discoverable sign-in
        .addColumn('user_id', ID)
        .addColumn('expires_at', timestampType(ctx), (col) => col.notNull());
    challenges = foreignKey(challenges, CHALLENGES, 'realm_id', 'auth_realms', 'cascade');
    challenges = foreignKey(challenges, CHALLENGES, 'user_id', 'auth_users', 'cascade');
    await challenges.execute();
    await createIndex(db, ctx, CHALLENGES, ['expires_at']);
}

async function down(db: Kysely<unknown>, ctx: MigrationContext): Promise<void> {
    await db.schema.dropTable(CHALLENGES).ifExists().execute();
    const index = `${AUTHENTICATORS}_credential_digest_unique`;
    await (ctx.dialect === 'mysql' ? db.schema.dropIndex(index).on(AUTHENTICATORS) : db.schema.dropIndex(index).ifExists()).execute();
    for (const column of ['last_used_at', 'aaguid', 'transports', 'sign_count', 'public_key', 'credential_digest', 'credential_id']) {
        await db.schema.alterTable(AUTHENTICATORS).dropColumn(column).execute();
    }
    for (const column of [...REALM_SETTINGS].reverse()) await db.schema.alterTable('auth_realms').dropColumn(column).execute();
}

export const migration: DialectMigration = { up, down };
