import type { Kysely } from 'kysely';
import { ID, createIndex, createTable, foreignKey, timestampType, withTimestamps } from './context.js';
import type { DialectMigration, MigrationContext } from './context.js';

/*
 * Identity providers (spec Resources, States): upstream OpenID Connect / OAuth 2.0
 * providers and LDAP directories of a realm, their attribute and role mappings, the links of an
 * upstream subject to a user, and the pending upstream round trips (state, nonce, PKCE verifier).
 * The OAuth client secret and the LDAP bind password are sealed under the realm's encryption key
 * (enc:v1:<keyId>:…), so DELETE /keys/:id finds the providers depending on a key by their envelope.
 */
const PROVIDERS = 'auth_identity_providers';
const ATTRIBUTE_MAPPINGS = 'auth_identity_provider_attribute_mappings';
const ROLE_MAPPINGS = 'auth_identity_provider_role_mappings';
const IDENTITIES = 'auth_user_identities';
const ROUND_TRIPS = 'auth_federated_logins';
// URLs, DNs and filters are text: as varchar(1024–2048) in utf8mb4 they pass MySQL's 65,535-byte row limit

async function up(db: Kysely<unknown>, ctx: MigrationContext): Promise<void> {
    let providers = withTimestamps(createTable(db, ctx, PROVIDERS)
        .addColumn('id', ID, (col) => col.primaryKey())
        .addColumn('name', 'varchar(128)', (col) => col.notNull())
        .addColumn('display_name', 'varchar(255)')
        .addColumn('protocol', 'varchar(16)', (col) => col.notNull())
        .addColumn('enabled', 'boolean', (col) => col.notNull().defaultTo(true))
        .addColumn('realm_id', ID, (col) => col.notNull())
        // OIDC / OAuth 2.0
        .addColumn('issuer', 'text')
        .addColumn('client_id', 'varchar(255)')
        .addColumn('client_secret', 'text')
        .addColumn('scope', 'text')
        .addColumn('authorization_url', 'text')
        .addColumn('token_url', 'text')
        .addColumn('userinfo_url', 'text')
        .addColumn('link_verified_email', 'boolean', (col) => col.notNull().defaultTo(false))
        // LDAP
        .addColumn('url', 'text')
        .addColumn('bind_dn', 'text')
        .addColumn('bind_password', 'text')
        .addColumn('base_dn', 'text')
        .addColumn('user_filter', 'text')
        .addColumn('group_filter', 'text')
        .addColumn('group_base_dn', 'text')
        .addColumn('username_attribute', 'varchar(128)')
        .addColumn('email_attribute', 'varchar(128)')
        .addColumn('group_name_attribute', 'varchar(128)')
        .addColumn('start_tls', 'boolean', (col) => col.notNull().defaultTo(false))
        .addColumn('tls_reject_unauthorized', 'boolean', (col) => col.notNull().defaultTo(true))
        .addColumn('timeout', 'integer'), ctx);
    providers = foreignKey(providers, PROVIDERS, 'realm_id', 'auth_realms', 'cascade');
    await providers.execute();
    await createIndex(db, ctx, PROVIDERS, ['realm_id', 'name'], { unique: true });

    let attributes = withTimestamps(createTable(db, ctx, ATTRIBUTE_MAPPINGS)
        .addColumn('id', ID, (col) => col.primaryKey())
        .addColumn('provider_id', ID, (col) => col.notNull())
        .addColumn('realm_id', ID, (col) => col.notNull())
        .addColumn('source', 'varchar(255)', (col) => col.notNull())
        .addColumn('target', 'varchar(16)', (col) => col.notNull())
        .addColumn('target_name', 'varchar(255)'), ctx);
    attributes = foreignKey(attributes, ATTRIBUTE_MAPPINGS, 'realm_id', 'auth_realms', 'cascade');
    attributes = foreignKey(attributes, ATTRIBUTE_MAPPINGS, 'provider_id', PROVIDERS, 'cascade');
    await attributes.execute();
    await createIndex(db, ctx, ATTRIBUTE_MAPPINGS, ['provider_id']);

    let roles = withTimestamps(createTable(db, ctx, ROLE_MAPPINGS)
        .addColumn('id', ID, (col) => col.primaryKey())
        .addColumn('provider_id', ID, (col) => col.notNull())
        .addColumn('realm_id', ID, (col) => col.notNull())
        .addColumn('claim', 'varchar(255)')
        .addColumn('value', 'text', (col) => col.notNull())
        .addColumn('role_id', ID, (col) => col.notNull()), ctx);
    roles = foreignKey(roles, ROLE_MAPPINGS, 'realm_id', 'auth_realms', 'cascade');
    roles = foreignKey(roles, ROLE_MAPPINGS, 'provider_id', PROVIDERS, 'cascade');
    roles = foreignKey(roles, ROLE_MAPPINGS, 'role_id', 'auth_roles', 'cascade');
    await roles.execute();
    await createIndex(db, ctx, ROLE_MAPPINGS, ['provider_id']);

    // the stable upstream subject (OIDC Core §2 `sub`, an LDAP entry's DN) a user is linked by
    let identities = withTimestamps(createTable(db, ctx, IDENTITIES)
        .addColumn('id', ID, (col) => col.primaryKey())
        .addColumn('provider_id', ID, (col) => col.notNull())
        .addColumn('user_id', ID, (col) => col.notNull())
        .addColumn('realm_id', ID, (col) => col.notNull())
        .addColumn('subject', 'varchar(255)', (col) => col.notNull()), ctx);
    identities = foreignKey(identities, IDENTITIES, 'realm_id', 'auth_realms', 'cascade');
    identities = foreignKey(identities, IDENTITIES, 'provider_id', PROVIDERS, 'cascade');
    identities = foreignKey(identities, IDENTITIES, 'user_id', 'auth_users', 'cascade');
    await identities.execute();
    await createIndex(db, ctx, IDENTITIES, ['provider_id', 'subject'], { unique: true });
    await createIndex(db, ctx, IDENTITIES, ['user_id']);

    // a pending upstream round trip, named by the SHA-256 digest of its state; deleted by its one use
    let trips = createTable(db, ctx, ROUND_TRIPS)
        .addColumn('id', 'varchar(64)', (col) => col.primaryKey())
        .addColumn('provider_id', ID, (col) => col.notNull())
        .addColumn('realm_id', ID, (col) => col.notNull())
        .addColumn('nonce', 'varchar(64)', (col) => col.notNull())
        .addColumn('code_verifier', 'varchar(128)', (col) => col.notNull())
        .addColumn('resume', 'text', (col) => col.notNull())
        .addColumn('expires_at', timestampType(ctx), (col) => col.notNull())
        .addColumn('created_at', timestampType(ctx), (col) => col.notNull());
    trips = foreignKey(trips, ROUND_TRIPS, 'realm_id', 'auth_realms', 'cascade');
    trips = foreignKey(trips, ROUND_TRIPS, 'provider_id', PROVIDERS, 'cascade');
    await trips.execute();
    await createIndex(db, ctx, ROUND_TRIPS, ['expires_at']);
}

async function down(db: Kysely<unknown>): Promise<void> {
    for (const table of [ROUND_TRIPS, IDENTITIES, ROLE_MAPPINGS, ATTRIBUTE_MAPPINGS, PROVIDERS]) await db.schema.dropTable(table).ifExists().execute();
}

export const migration: DialectMigration = { up, down };
