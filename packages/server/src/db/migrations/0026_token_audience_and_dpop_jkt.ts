import type { Kysely } from 'kysely';
import { addColumn } from './context.js';
import type { DialectMigration, MigrationContext } from './context.js';

/*
 * RFC 9068 §2.2: every JWT access token names its audience. A realm's `defaultAudience` is the
 * `aud` of an access token whose request named no resource (RFC 8707); null: the realm's issuer
 * URL, which stands for every resource server of the realm.
 *
 * RFC 9449 §10: the `dpop_jkt` an authorization request sent binds its code to that DPoP key; the
 * token request redeeming it must prove the same key. A pushed request keeps it among its validated
 * parameters (auth_pushed_requests.parameters), so only the code needs a column.
 */
async function up(db: Kysely<unknown>, ctx: MigrationContext): Promise<void> {
    await addColumn(db, ctx, 'auth_realms', 'default_audience', 'varchar(2048)');
    // an RFC 7638 SHA-256 thumbprint, base64url: 43 characters
    await addColumn(db, ctx, 'auth_authorization_codes', 'dpop_jkt', 'varchar(64)');
}

async function down(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('auth_authorization_codes').dropColumn('dpop_jkt').execute();
    await db.schema.alterTable('auth_realms').dropColumn('default_audience').execute();
}

export const migration: DialectMigration = { up, down };
