import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConnection } from 'mysql2/promise';
import pg from 'pg';
import { describe } from 'vitest';
import { createDatabase } from '../src/db/connect.js';
import type { DatabaseHandle } from '../src/db/connect.js';
import type { DialectName } from '../src/db/values.js';

/*
 * Real databases for every server test (DESIGN.md §7 habit 5, §8): SQLite always; PostgreSQL and
 * MySQL/MariaDB when TEST_POSTGRES_URL / TEST_MYSQL_URL are set. A set variable whose server is
 * unreachable fails the test (the connection error propagates), it never skips.
 */

export type TestDatabase = DatabaseHandle & {
    /** the URL (server dialects) or file path (SQLite) of the throw-away database */
    location: string;
    /** closes the pool and removes the database or file */
    drop(): Promise<void>;
};

function testDialects(): DialectName[] {
    const dialects: DialectName[] = ['sqlite'];
    if (process.env.TEST_POSTGRES_URL) dialects.push('postgres');
    if (process.env.TEST_MYSQL_URL) dialects.push('mysql');
    return dialects;
}

/**
 * One `describe` block per available dialect, titled `<name> [<dialect>]`; `only` narrows the
 * dialects (e.g. the server dialects for a PostgreSQL/MySQL-only behaviour).
 */
export function describeEachDialect(name: string, fn: (dialect: DialectName) => void, only?: readonly DialectName[]): void {
    for (const dialect of testDialects()) {
        if (only && !only.includes(dialect)) continue;
        describe(`${name} [${dialect}]`, () => fn(dialect));
    }
}

export function uniqueName(): string {
    return `rg_${randomBytes(6).toString('hex')}`;
}

export function requireEnv(name: 'TEST_POSTGRES_URL' | 'TEST_MYSQL_URL'): string {
    const value = process.env[name];
    if (!value) throw new Error(`${name} is not set`);
    return value;
}

/** The admin URL with its database replaced (query parameters kept). */
export function withDatabase(url: string, database: string): string {
    const parsed = new URL(url);
    parsed.pathname = `/${database}`;
    return parsed.toString();
}

/** A fresh, empty, uniquely named database; nothing is migrated (tests call migrateToLatest). */
export async function createTestDatabase(dialect: DialectName): Promise<TestDatabase> {
    const name = uniqueName();
    if (dialect === 'sqlite') return openTestDatabase('sqlite', join(tmpdir(), 'realmgate-test', `${name}.sqlite`));
    if (dialect === 'postgres') await postgresAdmin(requireEnv('TEST_POSTGRES_URL'), `CREATE DATABASE ${name}`);
    else await mysqlAdmin(requireEnv('TEST_MYSQL_URL'), `CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
    return openTestDatabase(dialect, name);
}

/**
 * Opens a test database that exists (server dialects: `name` on the TEST_*_URL server) or is
 * created on open (SQLite: `name` is the file's path); its drop removes it. On the server
 * dialects a failed open drops the database.
 */
export async function openTestDatabase(dialect: DialectName, name: string): Promise<TestDatabase> {
    if (dialect === 'sqlite') {
        const handle = await createDatabase({ type: 'sqlite', sqlitePath: name });
        return withDrop(handle, name, async () => {
            await Promise.all(['', '-wal', '-shm', '-journal'].map((suffix) => rm(`${name}${suffix}`, { force: true })));
        });
    }
    if (dialect === 'postgres') {
        const adminUrl = requireEnv('TEST_POSTGRES_URL');
        const url = withDatabase(adminUrl, name);
        const handle = await openOrDrop(() => createDatabase({ type: 'postgres', url }), () => postgresAdmin(adminUrl, `DROP DATABASE IF EXISTS ${name}`));
        // WITH (FORCE) ends sessions a failed test left behind (PostgreSQL >= 13).
        return withDrop(handle, url, () => postgresAdmin(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    }
    const adminUrl = requireEnv('TEST_MYSQL_URL');
    const url = withDatabase(adminUrl, name);
    const handle = await openOrDrop(() => createDatabase({ type: 'mysql', url }), () => mysqlAdmin(adminUrl, `DROP DATABASE IF EXISTS \`${name}\``));
    return withDrop(handle, url, () => mysqlAdmin(adminUrl, `DROP DATABASE IF EXISTS \`${name}\``));
}

async function openOrDrop(open: () => Promise<DatabaseHandle>, drop: () => Promise<void>): Promise<DatabaseHandle> {
    try {
        return await open();
    } catch (error) {
        await drop().catch(() => undefined);
        throw error;
    }
}

function withDrop(handle: DatabaseHandle, location: string, remove: () => Promise<void>): TestDatabase {
    let dropped: Promise<void> | undefined;
    return {
        ...handle,
        location,
        drop: () => (dropped ??= handle.destroy().then(remove)),
    };
}

/** Runs one statement on a short-lived admin connection (the server's own database). */
export async function postgresAdmin(adminUrl: string, statement: string): Promise<void> {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    try {
        await client.query(statement);
    } finally {
        await client.end();
    }
}

async function mysqlAdmin(adminUrl: string, statement: string): Promise<void> {
    const connection = await createConnection(adminUrl);
    try {
        await connection.query(statement);
    } finally {
        await connection.end();
    }
}
