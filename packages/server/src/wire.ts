import { join } from 'node:path';
import type { AppDeps } from './http/deps.js';
import type { FastifyBaseLogger, FastifyServerOptions } from 'fastify';
import { CatalogCache } from './authz/catalog-cache.js';
import type { Config } from './config/schema.js';
import { createDatabase, type DatabaseHandle, type DatabaseOptions } from './db/connect.js';
import { failClosedWriter } from './db/asynchronous-commit.js';
import { migrateToLatest } from './db/migrate.js';
import { createSecretBox } from './secrets/secret-box.js';
import { createClientSecretVerifier } from './secrets/client-secret-verifier.js';
import { createPasswordHasher } from './secrets/passwords.js';
import { createKeyStore } from './keys/store.js';
import { grantRegistry } from './oauth2/grants/index.js';
import { createUserinfoEndpoint } from './oauth2/userinfo.js';
import { createDeviceAuthorizationEndpoint } from './oauth2/device/authorization-endpoint.js';
import { createDeviceVerification } from './oauth2/device/verification.js';
import { createIntrospectionEndpoint } from './oauth2/introspection-endpoint.js';
import { createRevocationEndpoint } from './oauth2/revocation-endpoint.js';
import { createTokenEndpoint } from './oauth2/token-endpoint.js';
import { createAuthorizationRequests } from './oauth2/authorize/request-source.js';
import { createPushedAuthorizationEndpoint } from './oauth2/pushed-authorization-endpoint.js';
import { createBackchannelLogout } from './oauth2/backchannel-logout.js';
import { createOutboundPolicy } from './outbound/address-policy.js';
import { createOutboundFetch } from './outbound/guarded-fetch.js';
import { createLogoutTokenIssuer } from './tokens/logout-token.js';
import { createTokenService } from './tokens/service.js';
import { createSessionStore } from './tokens/sessions.js';
import { recordSessionEnds } from './tokens/auth-events.js';
import { createDetachedEventLog } from './storage/events.js';
import { createLifecycle } from './runtime/lifecycle.js';
import { createLimits, type LimitOptions } from './limits/setup.js';
import { createRecordingReplayGuard } from './limits/replay-guard.js';
import { createDpopNonces, dpopNonceKey } from './authn/dpop-nonce.js';
import { createDpopVerifier } from './authn/dpop-proof.js';
import { recordIdentifier } from './storage/replay-guards.js';
import { loadAuthConsole } from './views/load.js';
import { busCarrier, createBus } from './bus/setup.js';
import { onGrantsChanged } from './storage/write-transaction.js';
import type { Bus, BusMessage } from './bus/bus.js';
import { createCacheRegistry, type CacheRegistry } from './cache/registry.js';
import { cachedScopeBindings } from './oauth2/grants/scope.js';
import type { ClientScopeBinding } from './storage/scopes.js';
import { createProtocolLookups, type ProtocolLookups, type RememberedClient } from './oauth2/lookups.js';
import { createClientKeys, type ClientKeySetEntry } from './oauth2/client-keys.js';
import type { VerifyingKey } from './authn/passkey-signature.js';
import type { AuthorizationClient } from './storage/authorize-lookups.js';
import type { ActiveSigningKey } from './keys/store.js';
import type { GrantRows } from './authz/grants.js';
import type { RealmRef } from './storage/realms.js';
import { entityEventOf } from './bus/entity-events.js';
import { createMetrics } from './http/metrics.js';
import { countActiveSessions } from './storage/operations.js';
import { createMailer } from './mail/mailer.js';
import { createAccountService } from './domains/account/service.js';

/** the type lives with the HTTP layer that consumes it (http/ must not import the composition root) */
export type { AppDeps } from './http/deps.js';

export interface WireOptions {
    /** an already open (test) database; the app then does not close it */
    handle?: DatabaseHandle;
    /** bcrypt cost; tests lower it (production default 10) */
    bcryptCost?: number;
    logger?: FastifyBaseLogger;
    /** Fastify's schema controller (tests share compiled validators between their many apps) */
    schemaController?: FastifyServerOptions['schemaController'];
    /** rate-limit key prefix, clock and thresholds (tests) */
    limits?: LimitOptions;
    /** the clock of the CORS origin lookups' short memory (tests) */
    corsClock?: () => number;
    /** the clock of the sessions gauge's refresh (tests) */
    metricsClock?: () => number;
    /** the clock of pushed and carried authorization requests' lifetimes (tests) */
    authorizationClock?: () => number;
    /** the clock of activation and reset code expiry (tests) */
    accountClock?: () => number;
    /** the clock of the clients' fetched key sets: their lifetime and the interval between fetches for an unknown kid (tests) */
    clientKeysClock?: () => number;
    /** the clock of DPoP proofs' iat window and of the nonce windows (tests) */
    dpopClock?: () => number;
}

/** how old a catalog may be with the bus in process only (replicas then learn of changes by this timer) */
const CATALOG_TTL_MS = 2_000;
/**
 * with a shared bus that hears, a safety net for an announcement lost while the bus was away (a
 * reconnection resyncs too); while it does not hear (a PostgreSQL listener behind a transaction
 * pooler, or cut off), the catalog is as short-lived as without a bus
 */
const SHARED_CATALOG_TTL_MS = 60_000;

/**
 * The caches' bounds (every cache bounded, reported in /metrics). Entries are a
 * few hundred bytes (a grant row list of 50 grants a few kB): together well under 10 MB.
 */
const CACHE_BOUNDS = { activeKeys: 1_000, grants: 2_000, realms: 2_000, clients: 5_000, clientScopes: 5_000, clientKeys: 2_000, passkeyKeys: 2_000, authorizationClients: 5_000 } as const;
/** with a shared bus, how long an entry serves at most: the net under a settle that timed out */
const SHARED_CACHE_TTL_MS = 60_000;
/**
 * without one (SQLite, or CACHES=on), as long as a catalog: the net under a write no bus carries to
 * this process — the `provision` command run against the file of a running server
 */
const LOCAL_CACHE_TTL_MS = CATALOG_TTL_MS;

/** Which caches an entity's committed write empties: every replica hears it before the write answers. */
const EMPTIED_BY: Record<string, ReadonlyArray<'activeKeys' | 'realms' | 'clients' | 'clientScopes' | 'clientKeys' | 'authorizationClients'>> = {
    key: ['activeKeys'],
    // the authorization endpoints' clients carry their realm's security profile and PAR requirement
    realm: ['activeKeys', 'realms', 'clients', 'clientScopes', 'clientKeys', 'authorizationClients'],
    // a client's keys too: an administrator who saves a client has its jwksUri fetched again
    client: ['realms', 'clients', 'clientScopes', 'clientKeys', 'authorizationClients'],
    // a scope renamed or deleted, a binding added, changed or removed: the bindings of a client
    scope: ['clientScopes'],
    client_scope: ['clientScopes'],
};
/**
 * Entities whose writes cannot change a grant, a key, a realm or a client: everything else (roles,
 * permissions, policies, every binding, users, clients, realms, paths…) empties the grants cache.
 */
const GRANT_NEUTRAL = new Set(['session', 'session_token', 'event', 'authenticator', 'scope', 'client_scope']);

/**
 * Whether this process may cache. Caching is correct only while every write's
 * invalidation reaches every process before the write answers: a shared bus (Redis, or
 * PostgreSQL's LISTEN/NOTIFY) whose subscription is up, or SQLite (one process on its file). `on`
 * is the operator vouching for one process on MySQL without Redis; `off` never caches.
 */
function cachingAllowed(config: Config, dialect: string, bus: () => Bus | undefined): () => boolean {
    if (config.caches === 'off') return () => false;
    const alone = config.caches === 'on' || dialect === 'sqlite';
    return () => {
        const current = bus();
        if (!current?.live) return false;
        return current.shared || alone;
    };
}

/** The process's caches, their registry, and what each bus message empties. */
function createCaches(config: Config, dialect: string, bus: () => Bus | undefined) {
    const enabled = cachingAllowed(config, dialect, bus);
    const registry: CacheRegistry = createCacheRegistry(enabled, busCarrier(config) === 'process' ? LOCAL_CACHE_TTL_MS : SHARED_CACHE_TTL_MS);
    const caches = {
        activeKeys: registry.create<ActiveSigningKey>('active_signing_keys', CACHE_BOUNDS.activeKeys),
        grants: registry.create<GrantRows>('grants', CACHE_BOUNDS.grants),
        realms: registry.create<RealmRef>('realms', CACHE_BOUNDS.realms),
        clients: registry.create<RememberedClient>('clients', CACHE_BOUNDS.clients),
        clientScopes: registry.create<ClientScopeBinding[]>('client_scopes', CACHE_BOUNDS.clientScopes),
        // the clients /authorize and /par name (storage/authorize-lookups.ts), with their realm's rules
        authorizationClients: registry.create<AuthorizationClient>('authorization_clients', CACHE_BOUNDS.authorizationClients),
        // a client's public keys (oauth2/client-keys.ts): a jwksUri's document is no database row the
        // bus vouches for, so these serve with the bus down too, for the module's own lifetime
        clientKeys: registry.create<ClientKeySetEntry>('client_keys', CACHE_BOUNDS.clientKeys, { independentOfBus: true, ttlMs: Infinity }),
        // passkeys' verifying keys (authn/passkey-signature.ts): a pure function of the stored public
        // key's bytes, never stale, so they serve with the bus down too
        passkeyKeys: registry.create<VerifyingKey>('passkey_keys', CACHE_BOUNDS.passkeyKeys, { independentOfBus: true, ttlMs: Infinity }),
    };
    const hear = (message: BusMessage): void => {
        if (message.kind === 'resync') return registry.invalidateAll();
        if (message.kind === 'catalog' || message.kind === 'grants') return caches.grants.invalidate();
        const entity = message.event.entity;
        for (const name of EMPTIED_BY[entity] ?? []) caches[name].invalidate();
        if (!GRANT_NEUTRAL.has(entity)) caches.grants.invalidate();
    };
    return { registry, caches, hear, enabled };
}

/** Where the database is (DB_TYPE, DB_URL or the DB_ parts): the pool's, and the PostgreSQL bus's own connection. */
function databaseOptions(config: Config): DatabaseOptions {
    return {
        type: config.db.type,
        ...(config.db.url ? { url: config.db.url } : {}),
        ...(config.db.type === 'sqlite' && !config.db.url ? { sqlitePath: join(config.writableDirectoryPath, 'realmgate.sqlite') } : {}),
        ...(config.db.host ? { host: config.db.host } : {}),
        ...(config.db.port ? { port: config.db.port } : {}),
        ...(config.db.username ? { username: config.db.username } : {}),
        ...(config.db.password ? { password: config.db.password } : {}),
        ...(config.db.database ? { database: config.db.database } : {}),
        // the pool sized for the load (DB_POOL_SIZE)
        poolSize: config.db.poolSize,
        // PostgreSQL only; createDatabase ignores both elsewhere
        asynchronousCommit: config.db.asynchronousCommit,
        namedStatements: config.db.namedStatements,
        // MySQL read replicas (config/load.ts refuses db.replication on another dialect)
        ...(config.db.replication ? { replicas: config.db.replication.read } : {}),
    };
}

/** An endpoint's URLs: under PUBLIC_URL, and under MTLS_PUBLIC_URL when clients reach it through mutual TLS (RFC 8705 §5). */
function endpointUrlsOf(config: Config, path: string): string[] {
    return [config.publicUrl, ...(config.mtlsPublicUrl === undefined ? [] : [config.mtlsPublicUrl])].map((base) => `${base.replace(/\/+$/, '')}${path}`);
}

export async function openDatabase(config: Config): Promise<DatabaseHandle> {
    return createDatabase(databaseOptions(config));
}

export async function wire(config: Config, options: WireOptions = {}): Promise<AppDeps> {
    // spec "A service that fails to start": a substituted auth console of another contract version
    // stops the boot before anything is opened
    const views = await loadAuthConsole(config.authConsolePath);
    const handle = options.handle ?? await openDatabase(config);
    if (config.migrationEnabled) await migrateToLatest(handle);
    const passwords = createPasswordHasher(options.bcryptCost ?? 10);
    const secrets = createSecretBox(handle, config.secretsEncryptionKey ?? null);
    const clientSecrets = createClientSecretVerifier({ passwords, secrets, db: handle.db });
    // the caches exist before the bus (the key store needs one); they serve nothing until it is up
    const busRef: { current?: Bus } = {};
    const { registry: cacheRegistry, caches, hear, enabled: cachesEnabled } = createCaches(config, handle.dialect, () => busRef.current);
    const lookups: ProtocolLookups = createProtocolLookups(caches.realms, caches.clients);
    const keys = createKeyStore(handle.dialect, secrets, caches.activeKeys);
    // the app's logger exists only after wire (app.ts hands it over with logTo): until then, process warnings
    let logger = options.logger;
    // the hosts realm administrators' URLs may reach (OUTBOUND_ALLOWED_HOSTS; outbound/)
    const outbound = createOutboundPolicy(config.outboundAllowedHosts);
    const outboundFetch = createOutboundFetch(outbound);
    // the keys of clients' assertions and request objects: inline, or their jwksUri through the guard
    const clientKeys = createClientKeys({ fetch: outboundFetch, cache: caches.clientKeys, ...(options.clientKeysClock ? { clock: options.clientKeysClock } : {}) });
    const backchannelLogout = createBackchannelLogout({
        db: handle.db,
        fetch: outboundFetch,
        issueLogoutToken: createLogoutTokenIssuer(keys, config.publicUrl),
        warn: (detail, message) => {
            if (logger) logger.warn(detail, message);
            else process.emitWarning(`${message}: ${JSON.stringify(detail)}`);
        },
    });
    // PostgreSQL: the rows whose loss only makes a token inactive commit asynchronously
    // (DB_ASYNCHRONOUS_COMMIT; db/asynchronous-commit.ts says which and why)
    const failClosed = failClosedWriter(handle, config.db.asynchronousCommit);
    // every revocation through the store (routes, grants, lifecycle hooks, logout) reaches back-channel logout
    // the event log (spec Events 1): sign-ins, failures, issuance and session ends are logged beside the request; a
    // failed write is logged, never the request's failure
    const events = createDetachedEventLog(failClosed(handle.db), handle.dialect, (error) => {
        if (logger) logger.error({ err: error }, 'event log write failed');
        else process.emitWarning(`event log write failed: ${String(error)}`);
    });
    const sessions = createSessionStore(handle.dialect, (ended) => {
        backchannelLogout.notify(ended);
        recordSessionEnds(events, ended);
    }, failClosed);
    const tokens = createTokenService(handle.dialect, keys, {
        publicUrl: config.publicUrl, accessMaxAge: config.tokenAccessMaxAge, refreshMaxAge: config.tokenRefreshMaxAge,
    }, failClosed);
    const bus = await createBus(config, databaseOptions(config), (error, context) => {
        if (logger) logger.warn({ err: error }, context);
        else process.emitWarning(`${context}: ${String(error)}`);
    }, (context) => {
        if (logger) logger.info(context);
        else process.emitWarning(context);
    });
    // a definition change is announced on the bus and every replica rebuilds its
    // catalog before its next decision; the timer only covers an announcement lost while the bus was
    // away (in process, with no bus between replicas, it is what replicas have)
    busRef.current = bus;
    const shared = bus;
    onGrantsChanged(handle.db, () => shared.publishSettled({ kind: 'grants' }));
    const catalogTtl = () => (shared.shared && shared.live ? SHARED_CATALOG_TTL_MS : CATALOG_TTL_MS);
    const catalog = new CatalogCache(handle.db, catalogTtl, Date.now, () => shared.publish({ kind: 'catalog' }), caches.grants);
    bus.subscribe((message) => {
        if (message.kind === 'catalog' || message.kind === 'resync') catalog.invalidateLocally();
        hear(message);
    });
    const metrics = createMetrics({
        activeSessions: () => countActiveSessions(handle.db, handle.dialect, new Date()),
        ...(handle.pool ? { pool: handle.pool } : {}),
        caches: () => cacheRegistry.stats(),
        cachesEnabled,
        busLive: () => bus.live,
        ...(options.metricsClock ? { now: options.metricsClock } : {}),
    });
    const limits = await createLimits(config, { onFailure: metrics.failedAuthentication, ...options.limits }, (error) => {
        if (options.logger) options.logger.warn({ err: error }, 'rate-limit store unavailable; requests pass unlimited');
        else process.emitWarning(`rate-limit store unavailable; requests pass unlimited: ${String(error)}`);
    }, {
        // logged once per outage (spec Limits: rate limits do not fail open): the limits hold in process meanwhile
        outage: (error) => {
            if (options.logger) options.logger.warn({ err: error }, 'rate-limit store (Redis) unreachable; counting in process until it answers');
            else process.emitWarning(`rate-limit store (Redis) unreachable; counting in process until it answers: ${String(error)}`);
        },
        recovered: () => options.logger?.info('rate-limit store (Redis) answers again; counting there'),
    });
    // single-use identifiers of client assertions and DPoP proofs (limits/replay-guard.ts)
    const replayGuard = limits.replayGuard(createRecordingReplayGuard((key, expiresAt) => recordIdentifier(handle.db, handle.dialect, key, expiresAt)), (error) => {
        if (options.logger) options.logger.warn({ err: error }, 'replay store (Redis) unreachable; the database records single-use identifiers until it answers');
        else process.emitWarning(`replay store (Redis) unreachable; the database records single-use identifiers until it answers: ${String(error)}`);
    });
    const authorizationRequests = createAuthorizationRequests({
        db: handle.db, dialect: handle.dialect, publicUrl: config.publicUrl, secrets, clock: options.authorizationClock ?? Date.now, clientKeys, clients: caches.authorizationClients,
    });
    // client assertions (RFC 7523): each endpoint that authenticates clients answers to its own URLs
    const assertionsAt = (path: string) => ({ keys: clientKeys, replayGuard, publicUrl: config.publicUrl, endpointUrls: endpointUrlsOf(config, path) });
    // RFC 9449: proofs at /token, the API routes and /userinfo; nonces every replica derives alike
    const dpopClock = options.dpopClock ?? Date.now;
    const dpop = createDpopVerifier({
        replayGuard,
        nonces: createDpopNonces(dpopNonceKey({ nonceSecret: config.dpop.nonceSecret, secretsEncryptionKey: config.secretsEncryptionKey }), dpopClock),
        nonceRequired: () => config.dpop.nonceRequired,
        publicUrls: [config.publicUrl, ...(config.mtlsPublicUrl ? [config.mtlsPublicUrl] : [])].map((url) => url.replace(/\/+$/, '')),
        clock: dpopClock,
    });
    const grants = grantRegistry({
        dialect: handle.dialect, tokens, sessions, passwords, outbound, events, catalog, scopeBindings: cachedScopeBindings(caches.clientScopes),
        // wrong factors counted per ticket and per user in the limits' counter store (authn/ticket-factor.ts)
        secondFactor: { dialect: handle.dialect, secrets, attempts: limits.secondFactor, events },
    });
    // one transport for the process (the activation and recovery mails); a bad smtp object stops the boot here
    const mailer = createMailer(config.smtp, config.publicUrl, (detail, message) => {
        if (logger) logger.warn(detail, message);
        else process.emitWarning(`${message}: ${JSON.stringify(detail)}`);
    });
    const account = createAccountService({
        db: handle.db, handle, catalog, passwords, sessions, mailer, mailThrottle: limits.mail, publicUrl: config.publicUrl.replace(/\/+$/, ''),
        clock: options.accountClock ?? Date.now,
    });
    return {
        config,
        lifecycle: createLifecycle(),
        handle,
        mailer,
        account,
        db: handle.db,
        catalog,
        bus,
        // every committed administrative write's events, to the bus; the write
        // answers once every replica heard them (their caches are emptied by then)
        announce: async (events) => {
            await Promise.all(events.map((event) => shared.publishSettled({ kind: 'entity', event: entityEventOf(event) })));
        },
        caches: cacheRegistry,
        passwords,
        secrets,
        clientSecrets,
        keys,
        sessions,
        events,
        backchannelLogout,
        outbound,
        outboundFetch,
        logTo(appLogger) {
            logger ??= appLogger;
        },
        tokens,
        authorizationRequests,
        pushedAuthorizationEndpoint: createPushedAuthorizationEndpoint({
            db: handle.db, handle, dialect: handle.dialect, secrets, clientSecrets, passwords, outbound, lookups, authorizationRequests,
            clock: options.authorizationClock ?? Date.now, assertions: assertionsAt('/par'), dpop,
        }),
        tokenEndpoint: createTokenEndpoint({ db: handle.db, handle, secrets, clientSecrets, passwords, outbound, grants, lookups, assertions: assertionsAt('/token'), dpop }),
        revocationEndpoint: createRevocationEndpoint({ db: handle.db, handle, secrets, clientSecrets, passwords, outbound, tokens, sessions, config, lookups, assertions: assertionsAt('/token/revoke') }),
        limits,
        replayGuard,
        clientKeys,
        passkeyKeys: caches.passkeyKeys,
        dpop,
        metrics,
        deviceAuthorizationEndpoint: createDeviceAuthorizationEndpoint({
            db: handle.db, dialect: handle.dialect, handle, secrets, clientSecrets, passwords, outbound, publicUrl: config.publicUrl, lookups,
            assertions: assertionsAt('/device_authorization'),
        }),
        deviceVerification: createDeviceVerification({ db: handle.db, dialect: handle.dialect, throttle: limits.deviceVerification }),
        introspectionEndpoint: createIntrospectionEndpoint({
            db: handle.db, handle, secrets, clientSecrets, passwords, outbound, tokens, catalog, config, lookups, assertions: assertionsAt('/token/introspect'), dpop,
        }),
        userinfoEndpoint: createUserinfoEndpoint({ db: handle.db, tokens, dpop }),
        views,
    };
}
