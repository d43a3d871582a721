import { randomBytes } from 'node:crypto';
import { copyFile, mkdir, rename, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConnection, type Connection } from 'mysql2/promise';
import { sql } from 'kysely';
import pg from 'pg';
import { inject } from 'vitest';
import { createDatabase } from '../src/db/connect.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { MIGRATIONS } from '../src/db/migrations/index.js';
import type { DialectName } from '../src/db/values.js';
import { createTestDatabase, openTestDatabase, requireEnv, uniqueName, withDatabase, type TestDatabase } from './databases.js';

/*
 * Migrated databases for the suites, fast: the production migrations run once per test run and
 * dialect, into a template, and every suite gets a copy of it (PostgreSQL `CREATE DATABASE …
 * TEMPLATE`, a file copy for SQLite, the template's own `SHOW CREATE TABLE` statements and rows for
 * MySQL, which has no database copy). Running every migration per suite cost seconds on MySQL.
 * The migrations themselves stay tested from an empty database (src/db/migrate.test.ts and the
 * crash suites use createTestDatabase), and every app still runs migrateToLatest at boot, which
 * finds the copy up to date.
 *
 * The first suite of the run that needs a dialect builds its template (under a server lock, so
 * parallel workers build it once); the run id comes from test/global-setup.ts, which drops the
 * templates when the run ends. Templates are per run, never shared between runs: a migration being
 * written changes between runs.
 */

/** the run's id (test/global-setup.ts); undefined when the suite runs without that setup */
function runId(): string | undefined {
    try {
        return inject('realmgateTestRun');
    } catch {
        return undefined;
    }
}

/** The template's name for a run: a database name on the server dialects, a file name for SQLite. */
export function templateName(run: string): string {
    return `rg_tpl_${run}`;
}

export function sqliteTemplatePath(run: string): string {
    return join(tmpdir(), 'realmgate-test', `${templateName(run)}.sqlite`);
}

/**
 * A fresh, uniquely named database at the latest migration: a copy of the run's template of that
 * dialect (migrated in place when no run id is provided).
 */
export async function createMigratedTestDatabase(dialect: DialectName): Promise<TestDatabase> {
    const run = runId();
    if (run === undefined) {
        const database = await createTestDatabase(dialect);
        try {
            await migrateToLatest(database);
        } catch (error) {
            await database.drop();
            throw error;
        }
        return database;
    }
    if (dialect === 'sqlite') return copySqlite(run);
    if (dialect === 'postgres') return copyPostgres(run);
    return copyMysql(run);
}

/* ---- SQLite: a migrated file, copied ---- */

let sqliteTemplate: Promise<string> | undefined;

async function exists(path: string): Promise<boolean> {
    return stat(path).then(() => true, () => false);
}

/** Parallel workers may both build it: each builds its own file and renames it into place (atomic). */
async function buildSqliteTemplate(run: string): Promise<string> {
    const path = sqliteTemplatePath(run);
    if (await exists(path)) return path;
    await mkdir(join(tmpdir(), 'realmgate-test'), { recursive: true });
    const building = `${path}.${randomBytes(4).toString('hex')}.building`;
    const handle = await createDatabase({ type: 'sqlite', sqlitePath: building });
    try {
        await migrateToLatest(handle);
        // one self-contained file (the WAL folded in), so a plain copy is the whole database
        await sql`PRAGMA wal_checkpoint(TRUNCATE)`.execute(handle.db);
    } finally {
        await handle.destroy();
    }
    await Promise.all(['-wal', '-shm'].map((suffix) => rm(`${building}${suffix}`, { force: true })));
    await rename(building, path);
    return path;
}

async function copySqlite(run: string): Promise<TestDatabase> {
    const template = await (sqliteTemplate ??= buildSqliteTemplate(run).catch((error: unknown) => {
        sqliteTemplate = undefined;
        throw error;
    }));
    const path = join(tmpdir(), 'realmgate-test', `${uniqueName()}.sqlite`);
    await copyFile(template, path);
    return openTestDatabase('sqlite', path);
}

/* ---- PostgreSQL: CREATE DATABASE … TEMPLATE ---- */

let postgresTemplate: Promise<string> | undefined;

async function withPostgresAdmin<T>(adminUrl: string, use: (client: pg.Client) => Promise<T>): Promise<T> {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    try {
        return await use(client);
    } finally {
        await client.end();
    }
}

/**
 * Built under an advisory lock (one builder per run), into a side name renamed when complete, so
 * a builder that died half way leaves nothing that looks like a template.
 */
async function buildPostgresTemplate(run: string): Promise<string> {
    const adminUrl = requireEnv('TEST_POSTGRES_URL');
    const name = templateName(run);
    const building = `${name}_b`;
    return withPostgresAdmin(adminUrl, async (admin) => {
        await admin.query('SELECT pg_advisory_lock(hashtext($1))', [name]);
        try {
            const found = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
            if (found.rowCount) return name;
            await admin.query(`DROP DATABASE IF EXISTS ${building} WITH (FORCE)`);
            await admin.query(`CREATE DATABASE ${building}`);
            const handle = await createDatabase({ type: 'postgres', url: withDatabase(adminUrl, building) });
            try {
                await migrateToLatest(handle);
            } finally {
                await handle.destroy();
            }
            // waits (PostgreSQL: up to 5 s) for the closed pool's sessions to end
            await admin.query(`ALTER DATABASE ${building} RENAME TO ${name}`);
            return name;
        } finally {
            await admin.query('SELECT pg_advisory_unlock(hashtext($1))', [name]);
        }
    });
}

async function copyPostgres(run: string): Promise<TestDatabase> {
    const template = await (postgresTemplate ??= buildPostgresTemplate(run).catch((error: unknown) => {
        postgresTemplate = undefined;
        throw error;
    }));
    const adminUrl = requireEnv('TEST_POSTGRES_URL');
    const name = uniqueName();
    await withPostgresAdmin(adminUrl, (admin) => admin.query(`CREATE DATABASE ${name} TEMPLATE ${template}`));
    return openTestDatabase('postgres', name);
}

/* ---- MySQL/MariaDB: the template's CREATE TABLE statements and rows ---- */

interface MysqlTemplate {
    name: string;
    /** every table's SHOW CREATE TABLE, run in the copy with foreign key checks off (any order) */
    tables: string[];
    /** INSERT … SELECT of the template's rows (Kysely's migration bookkeeping), stored columns only */
    rows: string[];
}

let mysqlTemplate: Promise<MysqlTemplate> | undefined;

async function withMysqlAdmin<T>(adminUrl: string, use: (connection: Connection) => Promise<T>): Promise<T> {
    const connection = await createConnection({ uri: adminUrl, multipleStatements: true });
    try {
        return await use(connection);
    } finally {
        await connection.end();
    }
}

type Row = Record<string, unknown>;

async function rowsOf(connection: Connection, statement: string, values: unknown[] = []): Promise<Row[]> {
    const [rows] = await connection.query(statement, values);
    return rows as Row[];
}

/** Complete when Kysely recorded every migration (MySQL DDL commits as it goes: no transaction to rely on). */
async function mysqlTemplateComplete(admin: Connection, name: string): Promise<boolean> {
    const tables = await rowsOf(admin, `SELECT 1 FROM information_schema.tables WHERE table_schema = ? AND table_name = 'kysely_migration'`, [name]);
    if (tables.length === 0) return false;
    const [counted] = await rowsOf(admin, `SELECT COUNT(*) AS n FROM \`${name}\`.kysely_migration`);
    return Number(counted?.n) === Object.keys(MIGRATIONS).length;
}

async function buildMysqlTemplate(run: string): Promise<MysqlTemplate> {
    const adminUrl = requireEnv('TEST_MYSQL_URL');
    const name = templateName(run);
    return withMysqlAdmin(adminUrl, async (admin) => {
        const [locked] = await rowsOf(admin, 'SELECT GET_LOCK(?, 600) AS locked', [name]);
        if (Number(locked?.locked) !== 1) throw new Error(`could not lock the MySQL template ${name}`);
        try {
            if (!await mysqlTemplateComplete(admin, name)) {
                await admin.query(`DROP DATABASE IF EXISTS \`${name}\``);
                await admin.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
                const handle = await createDatabase({ type: 'mysql', url: withDatabase(adminUrl, name) });
                try {
                    await migrateToLatest(handle);
                } finally {
                    await handle.destroy();
                }
            }
        } finally {
            await admin.query('SELECT RELEASE_LOCK(?)', [name]);
        }
        const tables: string[] = [];
        const rows: string[] = [];
        for (const table of await rowsOf(admin, `SELECT table_name AS t FROM information_schema.tables WHERE table_schema = ? AND table_type = 'BASE TABLE' ORDER BY table_name`, [name])) {
            const tableName = String(table.t);
            const [created] = await rowsOf(admin, `SHOW CREATE TABLE \`${name}\`.\`${tableName}\``);
            tables.push(String(created?.['Create Table']));
            const [counted] = await rowsOf(admin, `SELECT COUNT(*) AS n FROM \`${name}\`.\`${tableName}\``);
            if (Number(counted?.n) === 0) continue;
            const columns = await rowsOf(admin, `SELECT column_name AS c FROM information_schema.columns WHERE table_schema = ? AND table_name = ? AND is_generated = 'NEVER' ORDER BY ordinal_position`, [name, tableName]);
            const list = columns.map((column) => `\`${String(column.c)}\``).join(', ');
            rows.push(`INSERT INTO \`${tableName}\` (${list}) SELECT ${list} FROM \`${name}\`.\`${tableName}\``);
        }
        const views = await rowsOf(admin, `SELECT table_name AS t FROM information_schema.tables WHERE table_schema = ? AND table_type <> 'BASE TABLE'`, [name]);
        const routines = await rowsOf(admin, 'SELECT routine_name AS r FROM information_schema.routines WHERE routine_schema = ?', [name]);
        const triggers = await rowsOf(admin, 'SELECT trigger_name AS t FROM information_schema.triggers WHERE trigger_schema = ?', [name]);
        // the copy holds tables and rows only: a migration adding anything else must extend it
        if (views.length + routines.length + triggers.length > 0) throw new Error(`the MySQL template ${name} holds views, routines or triggers, which database-templates.ts does not copy`);
        return { name, tables, rows };
    });
}

async function copyMysql(run: string): Promise<TestDatabase> {
    const template = await (mysqlTemplate ??= buildMysqlTemplate(run).catch((error: unknown) => {
        mysqlTemplate = undefined;
        throw error;
    }));
    const adminUrl = requireEnv('TEST_MYSQL_URL');
    const name = uniqueName();
    await withMysqlAdmin(adminUrl, async (admin) => {
        await admin.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
        try {
            await admin.query(`USE \`${name}\``);
            await admin.query(['SET foreign_key_checks = 0', ...template.tables, ...template.rows, 'SET foreign_key_checks = 1'].join(';\n'));
        } catch (error) {
            await admin.query(`DROP DATABASE IF EXISTS \`${name}\``).catch(() => undefined);
            throw error;
        }
    });
    return openTestDatabase('mysql', name);
}
