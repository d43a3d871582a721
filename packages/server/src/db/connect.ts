import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type SqliteDatabase from 'better-sqlite3';
import { CompiledQuery, Kysely, MysqlDialect, sql } from 'kysely';
import { MigrationLockingSqliteDialect } from './sqlite-migration-lock.js';
import { withStatementCache } from './sqlite-statement-cache.js';
import type { Dialect } from 'kysely';
import type { createPool as createMysqlPool } from 'mysql2';
import type { Database } from './schema.js';
import { DatabaseConfigError, MYSQL_UTC_OFFSET, checkMysqlUrl, isMysqlUtc, isPostgresUtc } from './utc-pin.js';
import { postgresDialects, verifyAsynchronousCommit, type PoolStats, type PostgresOptions } from './postgres.js';
import type pg from 'pg';
import type { DialectName } from './values.js';
import { routingDialect, runInReadScope } from './replication.js';

// Re-exported so callers catching boot failures need one import (API: `createDatabase` throws it).
export { DatabaseConfigError } from './utc-pin.js';
export type { PoolStats } from './postgres.js';

/** Connection settings (API.md §6: DB_TYPE, DB_URL or DB_HOST/PORT/USERNAME/PASSWORD/DATABASE). */
export interface DatabaseOptions extends PostgresOptions {
    type: DialectName;
    /** SQLite file; wins over `url` */
    sqlitePath?: string;
    /** MySQL read replicas (db.replication): connection URLs; reads of a request go to them until it writes (db/replication.ts) */
    replicas?: readonly string[];
}

export interface DatabaseHandle {
    db: Kysely<Database>;
    dialect: DialectName;
    /**
     * PostgreSQL with DB_ASYNCHRONOUS_COMMIT: connections whose commits do not wait for the WAL
     * flush, for the rows whose loss fails closed only (db/asynchronous-commit.ts); absent otherwise
     */
    asyncCommitDb?: Kysely<Database>;
    /** node-postgres counts its pool's connections; mysql2 has no public count and SQLite no pool */
    pool?: () => PoolStats;
    /** closes the pool or file; safe to call more than once */
    destroy(): Promise<void>;
}

/** Opens the database, pins the session to UTC (spec beta.67 item 6) and verifies the pin. */
export async function createDatabase(options: DatabaseOptions): Promise<DatabaseHandle> {
    const { dialect, asyncCommitDialect, pool } = await buildDialect(options);
    const db = new Kysely<Database>({ dialect });
    const asyncCommitDb = asyncCommitDialect && new Kysely<Database>({ dialect: asyncCommitDialect });
    let destroyed: Promise<void> | undefined;
    const handle: DatabaseHandle = {
        db,
        dialect: options.type,
        ...(asyncCommitDb ? { asyncCommitDb } : {}),
        ...(pool ? { pool } : {}),
        destroy: () => (destroyed ??= Promise.all([db.destroy(), asyncCommitDb?.destroy()]).then(() => undefined)),
    };
    try {
        await verifyUtcPin(handle);
        if (asyncCommitDb) {
            await verifyAsynchronousCommit(async () => (await sql<{ synchronous_commit: string }>`SHOW synchronous_commit`.execute(asyncCommitDb)).rows[0]?.synchronous_commit);
        }
        // each replica's first connection at boot: its pin is checked as it opens (mysqlDialect), so a
        // replica that contradicts it, or does not answer, stops the boot rather than a later request
        for (let index = 0; index < (options.replicas?.length ?? 0); index += 1) await readOnReplica(handle.db);
    } catch (error) {
        await handle.destroy().catch(() => undefined);
        throw error;
    }
    return handle;
}

/**
 * Every driver, better-sqlite3 included, is loaded only when chosen: a deployment loads (and needs
 * built) only its own database's native or pooled driver (db/drivers.test.ts checks it).
 */
async function buildDialect(options: DatabaseOptions): Promise<{ dialect: Dialect; asyncCommitDialect?: Dialect; pool?: () => PoolStats }> {
    switch (options.type) {
        case 'sqlite':
            return { dialect: sqliteDialect(options, (await import('better-sqlite3')).default) };
        case 'postgres':
            return postgresDialects(options, (await import('pg')).default);
        case 'mysql': {
            const { createPool } = await import('mysql2');
            const primary = mysqlDialect(options, createPool, 'DB_URL');
            if (!options.replicas?.length) return { dialect: primary };
            // every replica is pinned and checked like the primary; a URL contradicting the pin stops the boot
            const replicas = options.replicas.map((url, index) => mysqlDialect({ type: 'mysql', url, poolSize: options.poolSize }, createPool, `DB_REPLICATION[${index}]`));
            return { dialect: routingDialect(primary, replicas, options.observePools) };
        }
        default:
            throw new DatabaseConfigError('DB_TYPE', `unknown database type "${String(options.type)}" (expected sqlite, postgres or mysql)`);
    }
}

function sqliteDialect(options: DatabaseOptions, driver: typeof SqliteDatabase): Dialect {
    const raw = options.sqlitePath ?? options.url?.replace(/^(sqlite|file):(\/\/)?/, '');
    if (!raw) throw new DatabaseConfigError('DB_URL', 'SQLite needs a file path');
    const path = raw === ':memory:' ? raw : resolve(raw);
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    return new MigrationLockingSqliteDialect({
        database: async () => {
            const database = new driver(path);
            // WAL lets readers run beside the one writer; foreign keys are off by default in
            // SQLite and the cascades of the schema depend on them; busy_timeout waits for a
            // writer in another process instead of failing at once.
            database.pragma('journal_mode = WAL');
            database.pragma('foreign_keys = ON');
            database.pragma('busy_timeout = 5000');
            // WAL with NORMAL sync stays consistent after a crash and skips an fsync per commit; only
            // a power loss may drop the last commits (SQLite's recommended pairing for WAL)
            database.pragma('synchronous = NORMAL');
            return withStatementCache(database);
        },
    });
}

/**
 * Where a PostgreSQL connection of its own goes, outside the pool and without the UTC pin (DB_URL,
 * or the DB_ parts): the bus's LISTEN connection (bus/postgres-bus.ts) reads no timestamp.
 */
export function postgresConnection(options: DatabaseOptions): pg.ClientConfig {
    if (options.url) return { connectionString: options.url };
    return { host: options.host, port: options.port, user: options.username, password: options.password, database: options.database };
}

/** `source` names the setting in a refusal: DB_URL, or the replica's place in DB_REPLICATION. */
function mysqlDialect(options: DatabaseOptions, createPool: typeof createMysqlPool, source: string): Dialect {
    if (options.url) checkMysqlUrl(options.url, source);
    const pool = createPool({
        ...(options.url
            ? { uri: options.url }
            : {
                host: options.host,
                port: options.port,
                user: options.username,
                password: options.password,
                database: options.database,
            }),
        // mysql2 writes and reads DATETIME in this zone; 'Z' matches the pinned session below.
        timezone: 'Z',
        dateStrings: false,
        supportBigNumbers: true,
        connectionLimit: options.poolSize ?? 10,
    });
    return new MysqlDialect({
        pool,
        // Every new pooled session: NOW() and friends must agree with the 'Z' mysql2 writes.
        onCreateConnection: async (connection) => {
            await connection.executeQuery(CompiledQuery.raw(`SET time_zone = '${MYSQL_UTC_OFFSET}'`));
            // verified on every connection of every pool (MySQL read replicas; spec Versioning), not only the first at boot
            const { rows } = await connection.executeQuery<{ zone: string }>(CompiledQuery.raw('SELECT @@session.time_zone AS zone'));
            if (!isMysqlUtc(rows[0]?.zone)) {
                throw new DatabaseConfigError(`${source} time_zone`, `the MySQL session time_zone of ${source} is "${String(rows[0]?.zone)}", not UTC; the session could not be pinned`);
            }
        },
    });
}

/** One plain read in a request-like scope: the routing driver hands it to the next replica (round robin). */
function readOnReplica(db: Kysely<Database>): Promise<unknown> {
    return new Promise((resolve, reject) => runInReadScope(() => {
        sql`SELECT 1`.execute(db).then(resolve, reject);
    }));
}

/** Reads the zone of a live session and stops the boot when it is not UTC. */
async function verifyUtcPin(handle: DatabaseHandle): Promise<void> {
    if (handle.dialect === 'postgres') {
        const { rows } = await sql<{ TimeZone: string }>`SHOW TIME ZONE`.execute(handle.db);
        const zone = rows[0]?.TimeZone;
        if (!isPostgresUtc(zone)) {
            throw new DatabaseConfigError('TimeZone', `the PostgreSQL session time zone is "${String(zone)}", not UTC; the session could not be pinned`);
        }
    } else if (handle.dialect === 'mysql') {
        const { rows } = await sql<{ zone: string }>`SELECT @@session.time_zone AS zone`.execute(handle.db);
        const zone = rows[0]?.zone;
        if (!isMysqlUtc(zone)) {
            throw new DatabaseConfigError('time_zone', `the MySQL session time_zone is "${String(zone)}", not UTC; the session could not be pinned`);
        }
    } else {
        await sql`SELECT 1`.execute(handle.db);
    }
}
