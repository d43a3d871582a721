import { CompiledQuery, PostgresDialect, type DatabaseConnection, type Dialect } from 'kysely';
import type pg from 'pg';
import { statementName } from './named-statements.js';
import { TransactionLockingPostgresDialect } from './postgres-migration-lock.js';
import type { PoolName } from './replication.js';
import { checkPostgresOptions, checkPostgresUrl, DatabaseConfigError, PG_UTC_ZONE } from './utc-pin.js';

/** The connection settings PostgreSQL needs; connect.ts's DatabaseOptions adds the other dialects' own. */
export interface PostgresOptions {
    /** PostgreSQL/MySQL connection URL; for SQLite a file path (a `sqlite:`/`file:` prefix is allowed) */
    url?: string;
    host?: string;
    port?: number;
    username?: string;
    password?: string;
    database?: string;
    /** connections per pool on the server dialects (default 10); on PostgreSQL shared with the asynchronous-commit pool */
    poolSize?: number;
    /** an idle pooled PostgreSQL connection failed; the pool drops it (default: ignored) */
    onPoolError?: (error: Error) => void;
    /**
     * PostgreSQL (DB_NAMED_STATEMENTS): run the hot paths' registered texts as named prepared
     * statements (default true); off behind a transaction pooler that cannot keep them (PgBouncer before 1.21)
     */
    namedStatements?: boolean;
    /**
     * PostgreSQL (DB_ASYNCHRONOUS_COMMIT): open `asyncCommitDb` (default true), verified at open;
     * ignored on SQLite and MySQL
     */
    asynchronousCommit?: boolean;
    /**
     * each statement and the pool that ran it, with MySQL replicas or on PostgreSQL's two pools
     * (tests prove the routing with it)
     */
    observePools?: (pool: PoolName, sql: string) => void;
}

/** Connections of a driver's pool, where the driver exposes them (GET /metrics). */
export interface PoolStats {
    total: number;
    idle: number;
    waiting: number;
}

export interface PostgresDialects {
    /** the pool every write but the fail-closed rows runs on: commits wait for the WAL flush */
    dialect: Dialect;
    /** the asynchronous-commit pool (db/asynchronous-commit.ts), when asked for and DB_POOL_SIZE leaves room for it */
    asyncCommitDialect?: Dialect;
    /** both pools' connections together (they share DB_POOL_SIZE) */
    pool: () => PoolStats;
}

/** the startup option of the asynchronous-commit pool's connections (PostgreSQL §20.5.1 synchronous_commit) */
const ASYNC_COMMIT_OPTION = '-c synchronous_commit=off';

/**
 * The asynchronous-commit pool's share of DB_POOL_SIZE: a quarter, rounded down. It carries only the
 * batched INSERTs of sessions, refresh tokens and events (one statement per batch, a fraction of a
 * millisecond each without the flush), so a few connections serve what the request pool's many
 * produce; below 4 it gets none and those rows are written synchronously.
 */
export function asyncCommitPoolSize(poolSize: number): number {
    return Math.floor(poolSize / 4);
}

/**
 * The connection settings of DB_URL or the DB_ parts, with `extra` startup options appended. pg lets URL parameters win over explicit options, so an option goes
 * into the URL itself.
 */
function connectionConfig(options: PostgresOptions, extra?: string): pg.PoolConfig {
    const append = (own: string | undefined) => (own && own.trim() !== '' ? `${own} ${extra}` : extra);
    if (options.url) {
        if (extra === undefined) return { connectionString: options.url };
        const url = new URL(options.url);
        url.searchParams.set('options', append(checkPostgresUrl(options.url) ?? process.env.PGOPTIONS)!);
        return { connectionString: url.toString() };
    }
    return {
        host: options.host,
        port: options.port,
        user: options.username,
        password: options.password,
        database: options.database,
        // node-postgres reads PGOPTIONS itself when no `options` is given
        ...(extra === undefined ? {} : { options: append(process.env.PGOPTIONS) }),
    };
}

/**
 * The session pin to UTC (spec beta.67 item 6), sent on every new connection rather than as the
 * startup `options` parameter: PgBouncer refuses `options` ("unsupported startup parameter") but
 * tracks TimeZone per client and sets it again on every server connection it hands that client,
 * so the pin holds directly and behind a transaction pooler alike (docs/operations/database.md).
 */
async function pinToUtc(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`SET TimeZone TO '${PG_UTC_ZONE}'`));
}

/**
 * The node-postgres client of a pool: with `named`, the hot paths' registered texts
 * (db/named-statements.ts) run as named prepared statements — Kysely hands every query over as
 * `query(text, values)`; with `observe`, each statement is reported with the pool's name (tests).
 */
function pooledClient(Client: typeof pg.Client, named: boolean, observe?: (sql: string) => void): typeof pg.Client {
    if (!named && !observe) return Client;
    return class PooledClient extends Client {
        // eslint-disable-next-line @typescript-eslint/no-explicit-any -- node-postgres' overloads; the one Kysely calls is narrowed below
        override query(config: any, values?: any, callback?: any): any {
            const kyselyCall = typeof config === 'string' && Array.isArray(values) && callback === undefined;
            if (observe && typeof config === 'string') observe(config);
            const name = named && kyselyCall ? statementName(config) : undefined;
            return name === undefined ? super.query(config, values, callback) : super.query({ name, text: config, values });
        }
    } as typeof pg.Client;
}

function openPool(driver: typeof pg, config: pg.PoolConfig, max: number, options: PostgresOptions, name: PoolName): pg.Pool {
    const observe = options.observePools;
    const Client = pooledClient(driver.Client, options.namedStatements ?? true, observe && ((sql) => observe(name, sql)));
    const pool = new driver.Pool({ ...config, max, Client });
    // Without a listener an idle connection's error (server restart) would crash the process.
    pool.on('error', options.onPoolError ?? (() => undefined));
    // The pool listens to a client's errors only while it is idle. One checked out with no query
    // running (between a transaction's statements, between Kysely's checkout and its first query)
    // whose backend goes (pg_terminate_backend, a restart, a failover) emits 'error' with nobody
    // listening, which would end the process. Nothing more is needed here: a running query fails
    // with the error itself, and the release finds the client no longer queryable and drops it.
    pool.on('connect', (client) => {
        client.on('error', () => undefined);
    });
    return pool;
}

/** The request pool (durable commits, migrations under a transaction lock) and the asynchronous-commit pool. */
export function postgresDialects(options: PostgresOptions, driver: typeof pg): PostgresDialects {
    const poolSize = options.poolSize ?? 10;
    const asyncSize = (options.asynchronousCommit ?? true) ? asyncCommitPoolSize(poolSize) : 0;
    // node-postgres reads PGOPTIONS when the URL has no `options`: a zone there is refused like the URL's
    if ((options.url ? checkPostgresUrl(options.url) : undefined) === undefined) checkPostgresOptions(process.env.PGOPTIONS, 'PGOPTIONS');
    const pool = openPool(driver, connectionConfig(options), poolSize - asyncSize, options, 'primary');
    const pools = [pool];
    const dialect = new TransactionLockingPostgresDialect({ pool, onCreateConnection: pinToUtc });
    let asyncCommitDialect: Dialect | undefined;
    if (asyncSize > 0) {
        const asyncPool = openPool(driver, connectionConfig(options, ASYNC_COMMIT_OPTION), asyncSize, options, 'async-commit');
        pools.push(asyncPool);
        asyncCommitDialect = new PostgresDialect({ pool: asyncPool, onCreateConnection: pinToUtc });
    }
    return {
        dialect,
        ...(asyncCommitDialect ? { asyncCommitDialect } : {}),
        pool: () => pools.reduce((sum, each) => ({
            total: sum.total + each.totalCount, idle: sum.idle + each.idleCount, waiting: sum.waiting + each.waitingCount,
        }), { total: 0, idle: 0, waiting: 0 }),
    };
}

/**
 * Reads back what the asynchronous-commit pool's connections run with: a pooler that refuses the
 * startup option (PgBouncer without `options` in ignore_startup_parameters), or drops it (with
 * it), stops the boot here, naming the setting to turn off, rather than failing every token
 * request or silently committing synchronously.
 */
export async function verifyAsynchronousCommit(read: () => Promise<string | undefined>): Promise<void> {
    let value: string | undefined;
    try {
        value = await read();
    } catch (error) {
        throw new DatabaseConfigError('DB_ASYNCHRONOUS_COMMIT', `the asynchronous-commit connections could not be opened (${error instanceof Error ? error.message : String(error)}); behind a transaction pooler such as PgBouncer set DB_ASYNCHRONOUS_COMMIT=false`);
    }
    if (value !== 'off') {
        throw new DatabaseConfigError('DB_ASYNCHRONOUS_COMMIT', `the asynchronous-commit connections report synchronous_commit "${String(value)}": the startup option was dropped (a pooler's ignore_startup_parameters?); set DB_ASYNCHRONOUS_COMMIT=false`);
    }
}
