import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { createTestDatabase } from '../../test/databases.js';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const SCRIPT = fileURLToPath(new URL('../../test/boot-drivers.script.ts', import.meta.url));
const TIMEOUT = 60_000;

/** The drivers a fresh process loads while it boots and closes the app with this environment. */
async function driversLoadedBy(env: Record<string, string>): Promise<string[]> {
    const { stdout } = await promisify(execFile)(process.execPath, ['--conditions=source', '--import', 'tsx', SCRIPT], {
        cwd: ROOT,
        env: { PATH: process.env.PATH ?? '', NODE_ENV: 'test', LOG_LEVEL: 'silent', ...env },
    });
    return JSON.parse(stdout) as string[];
}

/** A throw-away server database for the child to boot on (it runs the migrations itself). */
async function serverDatabaseUrl(dialect: 'postgres' | 'mysql', run: (url: string) => Promise<void>): Promise<void> {
    const database = await createTestDatabase(dialect);
    try {
        await run(database.location);
    } finally {
        await database.drop();
    }
}

// A deployment loads only the drivers it is configured for (db/connect.ts, limits/setup.ts).
describe('database and cache drivers are loaded only when configured', () => {
    it('an SQLite process loads better-sqlite3 and neither pg, mysql2 nor ioredis', async () => {
        const writable = await mkdtemp(join(tmpdir(), 'realmgate-drivers-'));
        try {
            expect(await driversLoadedBy({ DB_TYPE: 'sqlite', WRITABLE_DIRECTORY_PATH: writable })).toEqual(['better-sqlite3']);
        } finally {
            await rm(writable, { recursive: true, force: true });
        }
    }, TIMEOUT);

    // like describeEachDialect: a server database that is not configured registers no test
    if (process.env.TEST_POSTGRES_URL) it('a PostgreSQL process loads pg and not better-sqlite3', async () => {
        await serverDatabaseUrl('postgres', async (url) => {
            expect(await driversLoadedBy({ DB_TYPE: 'postgres', DB_URL: url })).toEqual(['pg']);
        });
    }, TIMEOUT);

    if (process.env.TEST_MYSQL_URL) it('a MySQL process loads mysql2 and not better-sqlite3', async () => {
        await serverDatabaseUrl('mysql', async (url) => {
            expect(await driversLoadedBy({ DB_TYPE: 'mysql', DB_URL: url })).toEqual(['mysql2']);
        });
    }, TIMEOUT);

    if (process.env.TEST_POSTGRES_URL && process.env.TEST_REDIS_URL) it('REDIS_URL adds ioredis (the check sees a loaded driver)', async () => {
        await serverDatabaseUrl('postgres', async (url) => {
            expect(await driversLoadedBy({ DB_TYPE: 'postgres', DB_URL: url, REDIS_URL: process.env.TEST_REDIS_URL! })).toEqual(['pg', 'ioredis']);
        });
    }, TIMEOUT);
});
