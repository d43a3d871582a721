import { sql, type Kysely, type Migration, type MigrationProvider } from 'kysely';
import { migration as initial } from './0001_initial.js';
import { migration as keyTombstones } from './0002_key_tombstones.js';
import { migration as browserSignIn } from './0003_browser_sign_in.js';
import { migration as deviceAuthorization } from './0004_device_authorization.js';
import { migration as authenticators } from './0005_authenticators.js';
import { migration as accountCodes } from './0006_account_codes.js';
import { migration as workerLeases } from './0008_worker_leases.js';
import { migration as idTokenAlgorithm } from './0009_id_token_algorithm.js';
import { migration as identityProviders } from './0010_identity_providers.js';
import { migration as sessionIndexes } from './0011_session_indexes.js';
import { migration as eventAggregatedFlag } from './0012_event_aggregated_flag.js';
import { migration as identityProviderTokenAuth } from './0015_identity_provider_token_auth.js';
import { migration as authenticationStrength } from './0017_authentication_strength.js';
import { migration as clientAuthentication } from './0018_client_authentication.js';
import { migration as pushedAuthorizationRequests } from './0020_pushed_authorization_requests.js';
import { migration as dynamicRegistration } from './0021_dynamic_registration.js';
import { migration as resourceIndicators } from './0022_resource_indicators.js';
import { migration as passkeys } from './0023_passkeys.js';
import { migration as realmDefaultRoles } from './0024_realm_default_roles.js';
import { migration as realmBranding } from './0025_realm_branding.js';
import { migration as tokenAudienceAndDpopJkt } from './0026_token_audience_and_dpop_jkt.js';
import { migration as refreshTokenJti } from './0027_refresh_token_jti.js';
import type { DialectMigration, MigrationContext } from './context.js';

/**
 * Every migration, in order. An explicit record instead of a folder scan: it works the same from
 * src (tests, tsx) and dist, and a bundler cannot drop a file without the compiler noticing.
 * Names sort in execution order; never rename or reorder a released entry.
 */
export const MIGRATIONS: Readonly<Record<string, DialectMigration>> = {
    '0001_initial': initial,
    '0002_key_tombstones': keyTombstones,
    '0003_browser_sign_in': browserSignIn,
    '0004_device_authorization': deviceAuthorization,
    '0005_authenticators': authenticators,
    '0006_account_codes': accountCodes,
    '0008_worker_leases': workerLeases,
    '0009_id_token_algorithm': idTokenAlgorithm,
    '0010_identity_providers': identityProviders,
    '0011_session_indexes': sessionIndexes,
    '0012_event_aggregated_flag': eventAggregatedFlag,
    '0015_identity_provider_token_auth': identityProviderTokenAuth,
    '0017_authentication_strength': authenticationStrength,
    '0018_client_authentication': clientAuthentication,
    '0020_pushed_authorization_requests': pushedAuthorizationRequests,
    '0021_dynamic_registration': dynamicRegistration,
    '0022_resource_indicators': resourceIndicators,
    '0023_passkeys': passkeys,
    '0024_realm_default_roles': realmDefaultRoles,
    '0025_realm_branding': realmBranding,
    '0026_token_audience_and_dpop_jkt': tokenAudienceAndDpopJkt,
    '0027_refresh_token_jti': refreshTokenJti,
};

/** Binds the migrations to a dialect for Kysely's Migrator. */
export function createMigrationProvider(context: MigrationContext): MigrationProvider {
    return {
        getMigrations: async () => {
            const bound: Record<string, Migration> = {};
            for (const [name, migration] of Object.entries(MIGRATIONS)) {
                bound[name] = {
                    up: (db) => inTransaction(db, context, (trx) => migration.up(trx, context)),
                    down: (db) => inTransaction(db, context, (trx) => migration.down(trx, context)),
                };
            }
            return bound;
        },
    };
}

/**
 * SQLite and PostgreSQL have transactional DDL, so a failed step leaves no half-built schema; MySQL
 * DDL commits implicitly. On both the run already holds its lock's transaction (the write lock,
 * db/sqlite-migration-lock.ts; the transaction-level advisory lock, db/postgres-migration-lock.ts),
 * so each migration is a savepoint inside it: a failed one is undone alone and those before it commit.
 */
async function inTransaction(db: Kysely<unknown>, context: MigrationContext, run: (db: Kysely<unknown>) => Promise<void>): Promise<void> {
    if (context.dialect === 'mysql') return run(db);
    await sql`SAVEPOINT migration`.execute(db);
    try {
        await run(db);
    } catch (error) {
        await sql`ROLLBACK TO migration`.execute(db);
        await sql`RELEASE migration`.execute(db);
        throw error;
    }
    await sql`RELEASE migration`.execute(db);
}
