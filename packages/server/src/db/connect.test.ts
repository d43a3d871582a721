import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, describeEachDialect, postgresAdmin } from '../../test/databases.js';
import type { TestDatabase } from '../../test/databases.js';
import { DatabaseConfigError, createDatabase } from './connect.js';
import type { DatabaseHandle } from './connect.js';
import { loadConfig } from '../config/load.js';
import { openDatabase } from '../wire.js';
import { checkMysqlUrl, checkPostgresOptions, checkPostgresUrl, parsePgOptions } from './utc-pin.js';
import { fromDbDate } from './values.js';

const TIMEOUT = 60_000;

function refusal(run: () => unknown): DatabaseConfigError {
    try {
        run();
    } catch (error) {
        expect(error).toBeInstanceOf(DatabaseConfigError);
        return error as DatabaseConfigError;
    }
    throw new Error('expected a DatabaseConfigError');
}

describe('UTC pin settings (spec beta.67 item 6, Errors)', () => {
    it('refuses a PostgreSQL TimeZone other than UTC in the URL options', () => {
        const error = refusal(() => checkPostgresUrl('postgres://u@h/db?options=-c%20TimeZone%3DEurope%2FBerlin'));
        expect(error.code).toBe('database_config');
        expect(error.setting).toBe('DB_URL options TimeZone');
        expect(error.message).toContain('TimeZone');
        expect(error.message).toContain('Europe/Berlin');
        expect(refusal(() => checkPostgresUrl('postgres://u@h/db?options=--timezone%3DAmerica/New_York')).message).toContain('America/New_York');
        expect(refusal(() => checkPostgresUrl('postgres://u@h/db?timezone=Europe/Berlin')).setting).toBe('DB_URL timezone');
    });

    it('accepts PostgreSQL URLs and options that agree with the pin', () => {
        expect(checkPostgresUrl('postgres://u@h/db')).toBeUndefined();
        expect(checkPostgresUrl('postgres://u@h/db?sslmode=disable&options=-c%20TimeZone%3DUTC')).toBe('-c TimeZone=UTC');
        expect(() => checkPostgresOptions('-c search_path=app', 'DB_URL options')).not.toThrow();
        expect(() => checkPostgresOptions(undefined, 'PGOPTIONS')).not.toThrow();
        expect(refusal(() => checkPostgresOptions('-c TimeZone=Asia/Tokyo', 'PGOPTIONS')).setting).toBe('PGOPTIONS TimeZone');
        expect(parsePgOptions('-c a=1 -cb=2 --c-d=3 -c e=with\\ space')).toEqual([
            { name: 'a', value: '1' }, { name: 'b', value: '2' }, { name: 'c-d', value: '3' }, { name: 'e', value: 'with space' },
        ]);
    });

    it('refuses a MySQL timezone other than UTC, and any dateStrings or typeCast', () => {
        const zone = refusal(() => checkMysqlUrl('mysql://root@h/db?timezone=+02:00'));
        expect(zone.setting).toBe('DB_URL timezone');
        expect(zone.message).toContain('"+02:00"');
        expect(refusal(() => checkMysqlUrl('mysql://root@h/db?timezone=local')).message).toContain('local');
        const dates = refusal(() => checkMysqlUrl('mysql://root@h/db?dateStrings=true'));
        expect(dates.setting).toBe('DB_URL dateStrings');
        expect(dates.message).toContain('dateStrings');
        expect(refusal(() => checkMysqlUrl('mysql://root@h/db?dateStrings=false')).setting).toBe('DB_URL dateStrings');
        expect(refusal(() => checkMysqlUrl('mysql://root@h/db?charset=utf8mb4&typeCast=false')).setting).toBe('DB_URL typeCast');
    });

    it('accepts MySQL URLs that agree with the pin', () => {
        for (const zone of ['Z', 'UTC', '%2B00:00', '+00:00']) expect(() => checkMysqlUrl(`mysql://root@h/db?timezone=${zone}`)).not.toThrow();
        expect(() => checkMysqlUrl('mysql://root@h/db?connectTimeout=1000')).not.toThrow();
    });

    it('refuses a zone in PGOPTIONS, which node-postgres would otherwise read', async () => {
        const saved = process.env.PGOPTIONS;
        process.env.PGOPTIONS = '-c TimeZone=Asia/Tokyo';
        try {
            await expect(createDatabase({ type: 'postgres', host: '127.0.0.1', database: 'none' })).rejects.toMatchObject({
                code: 'database_config', setting: 'PGOPTIONS TimeZone',
            });
        } finally {
            if (saved === undefined) delete process.env.PGOPTIONS;
            else process.env.PGOPTIONS = saved;
        }
    });

    it('fails (never skips) when a server is unreachable', async () => {
        await expect(createDatabase({ type: 'postgres', url: 'postgres://postgres@127.0.0.1:1/test' })).rejects.toThrow();
        await expect(createDatabase({ type: 'mysql', url: 'mysql://root@127.0.0.1:1/test' })).rejects.toThrow();
    });
});

describe('SQLite connection', () => {
    it('creates the parent folder and sets WAL, foreign keys and a busy timeout', async () => {
        const folder = join(tmpdir(), `realmgate-test-${randomUUID()}`);
        const handle = await createDatabase({ type: 'sqlite', sqlitePath: join(folder, 'nested', 'db.sqlite') });
        try {
            expect(existsSync(join(folder, 'nested', 'db.sqlite'))).toBe(true);
            const pragma = async (name: string) => (await sql.raw<Record<string, unknown>>(`pragma ${name}`).execute(handle.db)).rows[0];
            expect(await pragma('journal_mode')).toEqual({ journal_mode: 'wal' });
            expect(await pragma('foreign_keys')).toEqual({ foreign_keys: 1 });
            expect(await pragma('busy_timeout')).toEqual({ timeout: 5000 });
        } finally {
            await handle.destroy();
            await handle.destroy();
            await rm(folder, { recursive: true, force: true });
        }
    });
});

async function sessionZones(handle: DatabaseHandle): Promise<string[]> {
    // Concurrent sleeps hold several pooled connections at once, so each session is inspected.
    const query = handle.dialect === 'postgres'
        ? sql<{ zone: string }>`select current_setting('TimeZone') as zone, pg_sleep(0.05)`
        : sql<{ zone: string }>`select @@session.time_zone as zone, sleep(0.05)`;
    const results = await Promise.all([0, 1, 2, 3].map(() => query.execute(handle.db)));
    return results.map((result) => result.rows[0]?.zone ?? '');
}

describeEachDialect('UTC pin on a live server', (dialect) => {
    let database: TestDatabase;

    beforeAll(async () => {
        database = await createTestDatabase(dialect);
    }, TIMEOUT);

    afterAll(async () => {
        await database?.drop();
    }, TIMEOUT);

    it('refuses a URL asking for another zone before connecting', async () => {
        const url = new URL(database.location);
        if (dialect === 'postgres') url.search = '?options=-c%20TimeZone%3DEurope%2FBerlin';
        else url.search = '?timezone=+02:00';
        const error = await createDatabase({ type: dialect, url: url.toString() }).catch((caught: unknown) => caught);
        expect(error).toBeInstanceOf(DatabaseConfigError);
        expect((error as DatabaseConfigError).message).toMatch(dialect === 'postgres' ? /TimeZone.*Europe\/Berlin/ : /timezone.*\+02:00/);
        if (dialect === 'mysql') {
            const strings = await createDatabase({ type: dialect, url: `${database.location}?dateStrings=true` }).catch((caught: unknown) => caught);
            expect((strings as DatabaseConfigError).setting).toBe('DB_URL dateStrings');
        }
    });

    it('pins every pooled session to UTC, and the server clock reads back as now', async () => {
        expect(await sessionZones(database)).toEqual(Array(4).fill(dialect === 'postgres' ? 'UTC' : '+00:00'));
        const { rows } = await sql<{ now: Date | string }>`select ${sql.raw(dialect === 'postgres' ? 'now()' : 'now(3)')} as now`.execute(database.db);
        expect(Math.abs(fromDbDate(rows[0]?.now ?? '').getTime() - Date.now())).toBeLessThan(5_000);
    });

    it('pins sessions opened from host, port and credentials as well', async () => {
        const url = new URL(database.location);
        const handle = await createDatabase({
            type: dialect,
            host: url.hostname,
            port: Number(url.port),
            username: decodeURIComponent(url.username),
            password: decodeURIComponent(url.password),
            database: url.pathname.slice(1),
        });
        try {
            expect(await sessionZones(handle)).toEqual(Array(4).fill(dialect === 'postgres' ? 'UTC' : '+00:00'));
        } finally {
            await handle.destroy();
        }
    });

    if (dialect === 'postgres') it('sizes the pool from DB_POOL_SIZE: concurrent queries past it wait for a connection', async () => {
        const handle = await openDatabase(loadConfig({ DB_TYPE: 'postgres', DB_URL: database.location, DB_POOL_SIZE: '2' }));
        try {
            const sleeps = Promise.all([0, 1, 2, 3, 4].map(() => sql`select pg_sleep(0.05)`.execute(handle.db)));
            await new Promise((wake) => setTimeout(wake, 20));
            const during = handle.pool!();
            await sleeps;
            expect(during.total).toBe(2);
            expect(during.waiting).toBeGreaterThan(0);
        } finally {
            await handle.destroy();
        }
    });

    if (dialect === 'postgres') {
        it('overrides a database-level TimeZone default with the session pin', async () => {
            const name = new URL(database.location).pathname.slice(1);
            await postgresAdmin(process.env.TEST_POSTGRES_URL ?? '', `ALTER DATABASE ${name} SET timezone = 'Europe/Berlin'`);
            const url = new URL(database.location);
            url.search = '?options=-c%20search_path%3Dpublic';
            const handle = await createDatabase({ type: 'postgres', url: url.toString() });
            try {
                expect(await sessionZones(handle)).toEqual(Array(4).fill('UTC'));
            } finally {
                await handle.destroy();
            }
        });
    }
}, ['postgres', 'mysql']);
