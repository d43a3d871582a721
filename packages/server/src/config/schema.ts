/**
 * The server configuration (API.md §6): one typed object, and one table naming every key beside its
 * environment variable, default and meaning. The loader reads the environment through this table
 * only and `describeConfig()` renders it, so the documentation and the code cannot drift apart.
 */

export const DB_TYPES = ['sqlite', 'postgres', 'mysql'] as const;
export type DbType = (typeof DB_TYPES)[number];

/** pino's levels plus `silent` (pino accepts it to switch logging off). */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
/** Whether the process remembers signing keys, grants, realms and known clients, so hot paths skip the database (cache/). */
export const CACHE_MODES = ['auto', 'on', 'off'] as const;
export type CacheMode = (typeof CACHE_MODES)[number];

export const ENVIRONMENTS = ['production', 'development', 'test'] as const;
export type Environment = (typeof ENVIRONMENTS)[number];

/**
 * MySQL read replicas (spec Versioning: "MySQL replication supported again; configure under
 * db.replication"): reads outside a write go to one of these, writes and the reads after a write
 * in the same request to the primary (DB_URL / DB_HOST).
 */
export interface ReplicationSettings {
    /** connection URLs (`mysql://` or `mariadb://`) of the read replicas */
    read: string[];
}

export interface DbConfig {
    type: DbType;
    url: string | undefined;
    host: string | undefined;
    port: number | undefined;
    username: string | undefined;
    password: string | undefined;
    database: string | undefined;
    replication: ReplicationSettings | undefined;
    /** connections per pool (the primary's and each replica's) on `postgres` / `mysql` */
    poolSize: number;
    /** PostgreSQL: the rows whose loss fails closed commit asynchronously (db/asynchronous-commit.ts) */
    asynchronousCommit: boolean;
    /** PostgreSQL: the hot paths' queries run as named prepared statements (db/named-statements.ts) */
    namedStatements: boolean;
    /** PostgreSQL without Redis: where the bus's LISTEN and NOTIFY connect, when not where the pool does (bus/setup.ts) */
    busUrl: string | undefined;
}

/** One body parser (spec Limits): on with the default cap (`true`), off (`false`), or its own cap. */
export type BodyParserSetting = boolean | { limit: number | string };

/**
 * middlewareBody (spec Limits): `true` keeps the three parsers on under the 10 MB cap, `false` turns
 * them all off, an object applies per parser on top of the default (a parser left out stays on and capped).
 */
export type MiddlewareBody = boolean | { json?: BodyParserSetting; urlencoded?: BodyParserSetting; text?: BodyParserSetting };

/** middlewareQuery: limits of the parsed query string (`false` lifts them); an object sets depth and list lengths. */
export type MiddlewareQuery = boolean | { depth?: number; arrayLimit?: number; parameterLimit?: number };

/** middlewareRateLimit (spec Limits): the second stage only; `max` replaces all three budgets, `false` lifts them. */
export type MiddlewareRateLimit = boolean | { max?: number };

/**
 * The config file's `smtp` object (spec Authentication 17). The relay certificate is verified
 * unless `rejectUnauthorized` is false; `from` is the sender address of the server's mail.
 */
export interface SmtpObject {
    host: string;
    port?: number;
    /** implicit TLS (port 465); otherwise STARTTLS when the relay offers it */
    secure?: boolean;
    auth?: { user: string; pass: string };
    rejectUnauthorized?: boolean;
    from?: string;
}

/** SMTP_URL (`smtp://` or `smtps://`, `?tls.rejectUnauthorized=false`, `?from=`) or the object form */
export type SmtpSetting = string | SmtpObject;

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
     * (runtime/heap-growth.ts, README "Memory"); unset: 30 with more than 1 GiB of memory, V8's own
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

// Order matters: a default that refers to `$NAME` must come after NAME's row.
export const CONFIG_KEYS = [
    {
        key: 'configFile',
        env: 'CONFIG_FILE',
        default: null,
        description: 'configuration file (JSON or YAML, the keys of this table nested as the Deploy section shows); unset: `realmgate.config.json`, `realmgate.config.yaml` or `realmgate.config.yml` in the working directory when present; variables override the file',
    },
    { key: 'env', env: 'NODE_ENV', default: 'development', description: 'runtime environment: `production`, `development` or `test`' },
    { key: 'port', env: 'PORT', default: '3000', description: 'HTTP listener port (1–65535)' },
    { key: 'host', env: 'HOST', default: '0.0.0.0', description: 'HTTP listener address' },
    {
        key: 'publicUrl',
        env: 'PUBLIC_URL',
        default: 'http://localhost:$PORT',
        description: 'absolute http(s) URL the server is reached at; issuer base and links (a trailing slash is stripped)',
    },
    {
        key: 'writableDirectoryPath',
        env: 'WRITABLE_DIRECTORY_PATH',
        default: './writable',
        description: 'folder for the SQLite file and the provisioning files applied at boot (`provisioning/*.json`, `*.yaml`, `*.yml`)',
    },
    { key: 'db.type', env: 'DB_TYPE', default: 'sqlite', description: 'database: `sqlite`, `postgres` or `mysql`' },
    {
        key: 'db.url',
        env: 'DB_URL',
        default: null,
        description: 'connection URL for `postgres` / `mysql` (or use DB_HOST and the other DB_ parts)',
        secret: true,
    },
    { key: 'db.host', env: 'DB_HOST', default: null, description: 'database host when DB_URL is unset' },
    { key: 'db.port', env: 'DB_PORT', default: null, description: 'database port (1–65535); the driver default when unset' },
    { key: 'db.username', env: 'DB_USERNAME', default: null, description: 'database user' },
    { key: 'db.password', env: 'DB_PASSWORD', default: null, description: 'database password', secret: true },
    { key: 'db.database', env: 'DB_DATABASE', default: null, description: 'database name (for SQLite: the file path)' },
    {
        key: 'db.poolSize',
        env: 'DB_POOL_SIZE',
        default: '10',
        description: 'connections per database pool on `postgres` / `mysql` (each MySQL replica has its own pool of this size; on PostgreSQL DB_ASYNCHRONOUS_COMMIT takes its connections out of this number); one Node process keeps about as many queries in flight as it has concurrent requests, so size it to the requests served at once, within the server\'s `max_connections` divided by the replicas of Realmgate',
    },
    {
        key: 'db.asynchronousCommit',
        env: 'DB_ASYNCHRONOUS_COMMIT',
        default: 'true',
        description: '`postgres` only (ignored on `sqlite` / `mysql`): `true` writes the session, refresh-token and event rows of token answers through a quarter of DB_POOL_SIZE\'s connections (none below 4) that run with `synchronous_commit = off`, so those commits do not wait for the WAL flush; a PostgreSQL crash (not a Realmgate one) may lose the last moments of them, which only makes those tokens inactive, and revocations, spent codes and refresh tokens and every other write stay synchronous (README "Database durability"); set `false` behind a transaction pooler such as PgBouncer, which refuses the startup option (the boot stops and says so)',
    },
    {
        key: 'db.namedStatements',
        env: 'DB_NAMED_STATEMENTS',
        default: 'true',
        description: '`postgres` only (ignored on `sqlite` / `mysql`): `true` runs the hot paths\' queries as named prepared statements, parsed and planned once per connection; set `false` behind a pooler in transaction mode that cannot keep them — PgBouncer before 1.21, or a later one without `max_prepared_statements` (README "Behind PgBouncer")',
    },
    {
        key: 'db.busUrl',
        env: 'DB_BUS_URL',
        default: null,
        description: '`postgres` only, without `REDIS_URL`: a `postgres://` URL of the same database reached directly, for the bus\'s `LISTEN` connection and its `NOTIFY`s, when DB_URL goes through a pooler in transaction mode (PgBouncer `pool_mode=transaction`), where `LISTEN` hears nothing and the bus, which must hear its own probe, stays not live with every cache off (README "Caches", "Behind PgBouncer"); unset, the bus connects where the pool does (DB_URL or the DB_ parts)',
        secret: true,
    },
    {
        key: 'db.replication',
        env: 'DB_REPLICATION',
        default: null,
        description: 'MySQL / MariaDB read replicas: comma-separated `mysql://` URLs, or the JSON / file object `{"read": ["mysql://…"]}`; reads go to a replica, writes and every read after a write in the same request to the primary; each replica is pinned to UTC like the primary and one that contradicts the pin stops the boot',
        secret: true,
    },
    {
        key: 'redisUrl',
        env: 'REDIS_URL',
        default: null,
        description: '`redis://` or `rediss://` URL of the shared rate-limit store and bus; unset, the limits count in process and the bus is PostgreSQL\'s `LISTEN`/`NOTIFY` on PostgreSQL (README "Caches"), in process otherwise',
        secret: true,
    },
    {
        key: 'caches',
        env: 'CACHES',
        default: 'auto',
        description: '`auto`, `on` or `off`: whether a process remembers active signing keys, grants, realms and the clients that authenticated (README "Caches"); `auto` remembers when every replica hears every invalidation — with `REDIS_URL`, on PostgreSQL (its `LISTEN`/`NOTIFY` bus), or on SQLite (one process); `on` also on MySQL without Redis, for a deployment of exactly one process',
    },
    {
        key: 'heapGrowingPercent',
        env: 'HEAP_GROWING_PERCENT',
        default: null,
        description: 'how far, in percent, the V8 heap may grow past what its last full collection kept alive before the next one (README "Memory"): less memory, more collection work under load; unset: `30` when the process may use more than 1 GiB (its container\'s cgroup limit, else the host\'s memory), V8\'s own growth (up to 4 × on a large host) at or below; `0`: V8\'s own always; set by `start` in its own process, and a heap size given in `NODE_OPTIONS` (`--max-old-space-size`) or on node\'s command line wins',
    },
    {
        key: 'smtp',
        env: 'SMTP_URL',
        default: null,
        description: '`smtp://` or `smtps://` URL of the mail relay for activation and password-reset mail (`smtps://user:pass@mail.example:465?from=auth@example.com`); the relay certificate is verified unless the URL ends in `?tls.rejectUnauthorized=false`; a config file may give the `smtp` object instead (`host`, `port`, `secure`, `auth`, `rejectUnauthorized`, `from`); unset: the mail routes answer 503 naming SMTP_URL',
        secret: true,
    },
    { key: 'userAdmin.name', env: 'USER_ADMIN_NAME', default: 'admin', description: 'name of the bootstrap administrator' },
    {
        key: 'userAdmin.password',
        env: 'USER_ADMIN_PASSWORD',
        default: 'start123',
        description: 'password of the bootstrap administrator',
        secret: true,
    },
    {
        key: 'userAdmin.enabled',
        env: 'USER_ADMIN_ENABLED',
        default: 'true',
        description: 'strict `true` / `false` (any other value stops the boot); `false` deactivates the bootstrap administrator on the next start',
    },
    {
        key: 'secretsEncryptionKey',
        env: 'SECRETS_ENCRYPTION_KEY',
        default: null,
        description: '32-byte key (base64, or 64 hex characters) wrapping realm encryption keys at rest',
        secret: true,
    },
    { key: 'tokenAccessMaxAge', env: 'TOKEN_ACCESS_MAX_AGE', default: '900', description: 'access-token lifetime in seconds' },
    { key: 'tokenRefreshMaxAge', env: 'TOKEN_REFRESH_MAX_AGE', default: '259200', description: 'refresh-token lifetime in seconds' },
    {
        key: 'worker.enabled',
        env: 'WORKER_ENABLED',
        default: 'true',
        description: 'run the background sweeps (expired sessions, codes, tickets; event retention and aggregates): in process with `start` and `start core`, alone with `start worker`, which refuses to boot while this is `false`',
    },
    {
        key: 'worker.port',
        env: 'WORKER_PORT',
        default: '$PORT',
        description: 'port of the health listener of `start worker` (`GET /`); set it apart from `PORT` when the API runs from the same environment on the same host',
    },
    {
        key: 'console.port',
        env: 'CONSOLE_PORT',
        default: '$PORT',
        description: 'port of a standalone console (`start console admin` or `start console account`); set it apart from `PORT` when the API runs on the same host. `start` serves both consoles on `PORT` under `/console/admin` and `/console/account`',
    },
    {
        key: 'console.authPort',
        env: 'CONSOLE_AUTH_PORT',
        default: '$CONSOLE_PORT',
        description: 'port of the auth console (`start console auth`: the sign-in, consent, logout and device pages alone, on the API\'s database); `start console` runs it beside the admin and account consoles, so set it apart from `CONSOLE_PORT` there',
    },
    {
        key: 'console.publicUrl',
        env: 'CONSOLE_PUBLIC_URL',
        default: null,
        description: 'absolute URL a browser reaches a standalone console at (without `/console/…`); bootstrap registers `<url>/console/admin/` and `<url>/console/account/` as redirect URIs of the `admin-console` client, which also allows the origin for CORS; unset: a standalone console is reached at `http://localhost:$CONSOLE_PORT`, registered only when `CONSOLE_PORT` differs from `PORT` (so an https deployment without a standalone console registers no plain-http URI)',
    },
    {
        key: 'metrics.enabled',
        env: 'METRICS_ENABLED',
        default: 'true',
        description: 'serve `GET /metrics` (Prometheus text); `false` answers 404',
    },
    {
        key: 'metrics.token',
        env: 'METRICS_TOKEN',
        default: null,
        description: 'bearer token a scraper sends to `GET /metrics` (`Authorization: Bearer …`); unset, only a direct loopback peer without forwarding headers is answered',
        secret: true,
    },
    {
        key: 'shutdownDrainMs',
        env: 'SHUTDOWN_DRAIN_MS',
        default: '5000',
        description: 'milliseconds `start` keeps serving after SIGTERM or SIGINT while `GET /health/ready` answers 503 (so a load balancer checking it takes the replica out of rotation), each answer closing its connection; then the listener closes, the requests in flight finish, queued event-log entries are written, and the process exits 0. Set it above the balancer\'s fall count times its check interval plus its check timeout (the longest a draining replica stays in rotation); a second signal exits 1 at once',
    },
    {
        key: 'eventLogRetentionDays',
        env: 'EVENT_LOG_RETENTION_DAYS',
        default: '90',
        description: 'days raw event-log entries (`GET /events`) are kept; the worker deletes older ones',
    },
    {
        key: 'eventLogAggregateRetentionDays',
        env: 'EVENT_LOG_AGGREGATE_RETENTION_DAYS',
        default: null,
        description: 'days the daily event counts (day and month `@stats`) are kept; unset keeps them forever',
    },
    { key: 'migrationEnabled', env: 'MIGRATION_ENABLED', default: 'true', description: 'run migrations at boot under a database lock' },
    {
        key: 'trustProxy',
        env: 'TRUST_PROXY',
        default: 'true',
        description: '`true` / `false`, a hop count, or a comma-separated list of addresses / CIDR ranges (or `loopback`, `linklocal`, `uniquelocal`)',
    },
    {
        key: 'corsOrigins',
        env: 'CORS_ORIGINS',
        default: null,
        description: 'extra origins (`https://app.example`, comma- or space-separated) allowed for CORS beyond those derived from each client\'s `redirectUri` and `baseUrl`',
    },
    {
        key: 'outboundAllowedHosts',
        env: 'OUTBOUND_ALLOWED_HOSTS',
        default: null,
        description: 'comma-separated host names, IP addresses and CIDR ranges (`ldap.internal,10.0.0.0/8,::1`) that back-channel logout URIs, identity-provider URLs and LDAP URLs may reach although they are loopback, private, link-local or otherwise special-purpose; unset: such targets are refused when written (400) and again after DNS resolution when connecting',
    },
    {
        key: 'authConsolePath',
        env: 'AUTH_CONSOLE_PATH',
        default: null,
        description: 'module replacing the built-in sign-in, consent, logout and error pages (same exports); the boot is refused unless it declares `CONTRACT_VERSION` 5',
    },
    { key: 'rateLimit.userMax', env: 'RATE_LIMIT_USER_MAX', default: '6000', description: 'requests per minute per user' },
    { key: 'rateLimit.clientMax', env: 'RATE_LIMIT_CLIENT_MAX', default: '300000', description: 'requests per minute per client' },
    {
        key: 'rateLimit.anonymousMax',
        env: 'RATE_LIMIT_ANONYMOUS_MAX',
        default: '1200',
        description: 'requests per minute per address without credentials',
    },
    { key: 'logLevel', env: 'LOG_LEVEL', default: 'info', description: 'pino level: `fatal`, `error`, `warn`, `info`, `debug`, `trace` or `silent`' },
    {
        key: 'permissionsDefaultPolicyAssignment',
        env: 'PERMISSIONS_DEFAULT_POLICY_ASSIGNMENT',
        default: 'true',
        description: 'bind the global policy `system.default` (the realm-reach check) to every permission created; `false` creates permissions without it, so the `realmScope` of their grants means nothing (a warning is logged at boot)',
    },
    {
        key: 'querySchemaDiscoveryEnabled',
        env: 'QUERY_SCHEMA_DISCOVERY_ENABLED',
        default: 'true',
        description: 'serve `GET /schemas` and `GET /<collection>/@schema`; `false` answers 404',
    },
    {
        key: 'userAuthBasic',
        env: 'USER_AUTH_BASIC',
        default: 'true',
        description: 'accept HTTP Basic with a user\'s name or id and password on API routes; `false` refuses it (Basic with a client\'s credentials is unaffected)',
    },
    {
        key: 'mtlsPublicUrl',
        env: 'MTLS_PUBLIC_URL',
        default: null,
        description: 'absolute https URL of a mutual-TLS listener (RFC 8705): discovery then carries `mtls_endpoint_aliases` with the token and device authorization endpoints under it',
    },
    {
        key: 'dpop.nonceRequired',
        env: 'DPOP_NONCE_REQUIRED',
        default: 'false',
        description: 'DPoP proofs (RFC 9449) at `/token`, the API routes and `/userinfo` must carry a server-provided nonce: a proof without the current one answers `use_dpop_nonce` with a fresh `DPoP-Nonce` header (RFC 9449 §8, §9); nonces rotate every 5 minutes and the previous one stays accepted',
    },
    {
        key: 'dpop.nonceSecret',
        env: 'DPOP_NONCE_SECRET',
        default: null,
        description: 'the secret DPoP nonces are derived from, the same on every replica; unset: derived from SECRETS_ENCRYPTION_KEY, else random per process (then a nonce holds on the replica that issued it only)',
        secret: true,
    },
    {
        key: 'middlewareBody',
        env: 'MIDDLEWARE_BODY',
        default: 'true',
        description: 'body parsers under the 10 MB cap: `true`, `false` (all off: a body answers 400 `unsupported_media_type`), or JSON such as `{"json":{"limit":"1mb"},"text":false}` per parser (`json`, `urlencoded`, `text`; each `true`, `false` or `{"limit": bytes or "512kb"}`; a parser left out stays on and capped)',
    },
    {
        key: 'middlewareCookie',
        env: 'MIDDLEWARE_COOKIE',
        default: 'true',
        description: 'read the Cookie header; `false` ignores cookies (the console session and the sign-in pages then do not work)',
    },
    {
        key: 'middlewareQuery',
        env: 'MIDDLEWARE_QUERY',
        default: 'true',
        description: 'query-string limits: `true` (`depth` 5 bracket levels, `arrayLimit` 100 values of one repeated key, `parameterLimit` 1000 keys), `false` (no limits; the query string is still parsed, as the protocol routes need it), or JSON such as `{"depth":3,"arrayLimit":20}`; a query beyond a limit answers 400 with `issues`',
    },
    {
        key: 'middlewareRateLimit',
        env: 'MIDDLEWARE_RATE_LIMIT',
        default: 'true',
        description: 'the per-identity budgets (the second stage of rate limiting): `true`, `false` (budgets lifted; failed-authentication refusals stay), or JSON `{"max": n}` replacing all three budgets (prefer the RATE_LIMIT_*_MAX keys)',
    },
] as const satisfies readonly ConfigKey[];

export type ConfigKeyPath = (typeof CONFIG_KEYS)[number]['key'];

// Compile-time guard: the table names every leaf of Config and nothing else.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const tableCoversConfig: Same<ConfigKeyPath, LeafPath<Config>> = true;
void tableCoversConfig;

/** The key table as Markdown, for the documentation. */
export function describeConfig(): string {
    const cell = (text: string): string => text.replace(/\|/g, '\\|');
    const lines = ['| variable | key | default | meaning |', '|---|---|---|---|'];
    for (const entry of CONFIG_KEYS as readonly ConfigKey[]) {
        const fallback = entry.default === null ? 'unset' : `\`${entry.default}\``;
        const meaning = entry.notYetEffective ? `**not yet effective** (read once ${entry.notYetEffective} lands): ${entry.description}` : entry.description;
        lines.push(`| \`${entry.env}\` | \`${entry.key}\` | ${cell(fallback)} | ${cell(meaning)} |`);
    }
    return `${lines.join('\n')}\n`;
}
