import type { CacheMode, DbConfig, Environment, LogLevel, MiddlewareBody, MiddlewareQuery, MiddlewareRateLimit, SmtpSetting } from './settings.js';

export interface Config {
    /** the configuration file read at boot (CONFIG_FILE; otherwise realmgate.config.json / .yaml / .yml in the working directory) */
    configFile: string | undefined;
    port: number;
    host: string;
    /** absolute http(s) URL without a trailing slash */
    publicUrl: string;
    writableDirectoryPath: string;
    db: DbConfig;
    redisUrl: string | undefined;
    /**
     * `auto` caches when every replica hears every invalidation (REDIS_URL set, PostgreSQL's
     * LISTEN/NOTIFY bus, or SQLite: one process); `on` also on MySQL without Redis (the operator
     * vouches for one process); `off` never
     */
    caches: CacheMode;
    /**
     * how far (percent) V8's old generation may grow past what its last full collection kept
     * (runtime/heap-growth.ts, docs/operations/memory.md); unset: 30 with more than 1 GiB of memory, V8's own
     * below; 0: V8's own. Set at `start`; a heap size in NODE_OPTIONS or node's arguments wins.
     */
    heapGrowingPercent: number | undefined;
    /**
     * the mail relay (spec Authentication 17): a connection URL (SMTP_URL) or, from a config file,
     * the `smtp` object (mail/transport.ts validates and resolves both forms)
     */
    smtp: SmtpSetting | undefined;
    userAdmin: { name: string; password: string; enabled: boolean };
    /** as configured (base64 or 64 hex characters); `decodeSecretsEncryptionKey` gives the 32 bytes */
    secretsEncryptionKey: string | undefined;
    /** seconds */
    tokenAccessMaxAge: number;
    /** seconds */
    tokenRefreshMaxAge: number;
    worker: { enabled: boolean; port: number };
    /**
     * a standalone admin or account console (`start console admin|account`) listens on
     * `port` and is reached at `publicUrl` (unset: `http://localhost:<port>`, config/consoles.ts
     * `standaloneConsoleUrl`); the admin-console client's redirect URIs name it when it is set or
     * `port` is apart from the API's
     */
    console: { port: number; publicUrl: string | undefined; authPort: number };
    /** GET /metrics (Prometheus text): served at all, and the bearer token a scraper presents */
    metrics: { enabled: boolean; token: string | undefined };
    migrationEnabled: boolean;
    /** Fastify's trustProxy: a boolean, a hop count, or a comma-separated address / CIDR list */
    trustProxy: boolean | number | string;
    /** API.md §7: origins allowed for CORS beyond those derived from the clients (comma- or space-separated) */
    corsOrigins: string | undefined;
    /**
     * hosts, addresses and CIDR ranges a realm administrator's URLs (back-channel logout, identity
     * providers, LDAP) may reach although they are loopback, private or link-local (outbound/)
     */
    outboundAllowedHosts: string[] | undefined;
    /** a module replacing the built-in auth pages (same exports, CONTRACT_VERSION 5) */
    authConsolePath: string | undefined;
    /** milliseconds a replica keeps serving after SIGTERM while reporting not ready (runtime/graceful-shutdown.ts) */
    shutdownDrainMs: number;
    /** days raw events are kept (spec Events 3) */
    eventLogRetentionDays: number;
    /** days the daily event aggregates are kept; undefined keeps them forever (spec Events 3) */
    eventLogAggregateRetentionDays: number | undefined;
    /** requests per minute */
    rateLimit: { userMax: number; clientMax: number; anonymousMax: number };
    logLevel: LogLevel;
    env: Environment;
    /** spec model rule 5: bind system.default to every new permission (realm reach needs it) */
    permissionsDefaultPolicyAssignment: boolean;
    /** GET /schemas and GET /<collection>/@schema (spec Versioning beta.67 item 1) */
    querySchemaDiscoveryEnabled: boolean;
    /** the API explorer under /docs; GET /openapi.json is served either way */
    docsEnabled: boolean;
    /** HTTP Basic with a user's name or id and password (spec Authentication 1 and 6) */
    userAuthBasic: boolean;
    /** RFC 8705 §5: the base URL of the mutual-TLS listener, for discovery's mtls_endpoint_aliases */
    mtlsPublicUrl: string | undefined;
    /**
     * RFC 9449 §8, §9: whether DPoP proofs must carry a server-provided nonce, and the secret every
     * replica derives the nonces from (authn/dpop-nonce.ts)
     */
    dpop: { nonceRequired: boolean; nonceSecret: string | undefined };
    middlewareBody: MiddlewareBody;
    /** `false`: the Cookie header is not read (the console session cookie and the sign-in pages' cookies then do nothing) */
    middlewareCookie: boolean;
    middlewareQuery: MiddlewareQuery;
    middlewareRateLimit: MiddlewareRateLimit;
}

type Plain<T> = T extends object ? (T extends readonly unknown[] ? false : true) : false;

export type DeepPartial<T> = { [K in keyof T]?: Plain<T[K]> extends true ? DeepPartial<T[K]> : T[K] };

/** Dotted paths of the leaves of an object type (`db.url`, `port`, …). */
export type LeafPath<T, Prefix extends string = ''> = {
    [K in keyof T & string]: Plain<T[K]> extends true ? LeafPath<T[K], `${Prefix}${K}.`> : `${Prefix}${K}`;
}[keyof T & string];

export type ValueAt<T, P extends string> = P extends `${infer Head}.${infer Rest}`
    ? Head extends keyof T
        ? ValueAt<T[Head], Rest>
        : never
    : P extends keyof T
      ? T[P]
      : never;

export interface ConfigKey {
    /** dotted path in Config */
    key: string;
    /** environment variable */
    env: string;
    /** the default in environment form; `$NAME` stands for the resolved value of variable NAME; null = unset */
    default: string | null;
    description: string;
    /** the value is never echoed in error messages */
    secret?: boolean;
    /**
     * The feature that will read the key, when nothing reads it yet: the key is parsed and
     * validated (a bad value still stops the boot, as API.md §6 lists it) but changes nothing, and
     * the table says so instead of promising an effect.
     */
    notYetEffective?: string;
}
