/*
 * The value types of the configuration's settings: dialects, log levels, cache modes,
 * environments, the database, the request middleware and mail.
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
