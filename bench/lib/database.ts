/**
 * A fresh database per run: a temp SQLite directory, or a uniquely named database on the local
 * PostgreSQL / MySQL server, dropped afterwards. The server process gets it through its environment.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { createDatabase, type DatabaseHandle } from '../../packages/server/src/db/connect.js';

export type BenchDialect = 'sqlite' | 'postgres' | 'mysql';

const SERVER_URLS = {
    postgres: process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432',
    mysql: process.env.BENCH_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306',
} as const;

export interface BenchDatabase {
    dialect: BenchDialect;
    /** the writable directory of the server (SQLite file, keys) */
    directory: string;
    /** DB_ variables for the server process */
    env: Record<string, string>;
    /** a direct connection, for bulk seeding after the server migrated */
    open(): Promise<DatabaseHandle>;
    drop(): Promise<void>;
}

function withDatabase(base: string, name: string): string {
    const url = new URL(base);
    url.pathname = `/${name}`;
    return url.toString();
}

export async function createBenchDatabase(dialect: BenchDialect): Promise<BenchDatabase> {
    const directory = mkdtempSync(join(tmpdir(), 'realmgate-bench-'));
    const removeDirectory = () => rmSync(directory, { recursive: true, force: true });
    if (dialect === 'sqlite') {
        return {
            dialect, directory, env: { DB_TYPE: 'sqlite' },
            open: () => createDatabase({ type: 'sqlite', sqlitePath: join(directory, 'realmgate.sqlite') }),
            drop: async () => removeDirectory(),
        };
    }
    const name = `realmgate_bench_${randomBytes(6).toString('hex')}`;
    const url = withDatabase(SERVER_URLS[dialect], name);
    if (dialect === 'postgres') {
        const admin = new pg.Client({ connectionString: withDatabase(SERVER_URLS.postgres, 'postgres') });
        await admin.connect();
        await admin.query(`CREATE DATABASE ${name}`);
        await admin.end();
    } else {
        const admin = await mysql.createConnection(SERVER_URLS.mysql);
        await admin.query(`CREATE DATABASE ${name} CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
        await admin.end();
    }
    return {
        dialect, directory, env: { DB_TYPE: dialect, DB_URL: url },
        open: () => createDatabase({ type: dialect, url }),
        async drop() {
            removeDirectory();
            if (dialect === 'postgres') {
                const admin = new pg.Client({ connectionString: withDatabase(SERVER_URLS.postgres, 'postgres') });
                await admin.connect();
                await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
                await admin.end();
            } else {
                const admin = await mysql.createConnection(SERVER_URLS.mysql);
                await admin.query(`DROP DATABASE IF EXISTS ${name}`);
                await admin.end();
            }
        },
    };
}
