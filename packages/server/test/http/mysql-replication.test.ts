import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConnection } from 'mysql2/promise';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app.js';
import { loadConfig } from '../../src/config/load.js';
import { createDatabase, DatabaseConfigError, type DatabaseHandle } from '../../src/db/connect.js';
import type { PoolName } from '../../src/db/replication.js';
import { toDbBool, toDbDate } from '../../src/db/values.js';
import { ADMIN, basicHeader } from '../app.js';
import { createTestDatabase, describeEachDialect, type TestDatabase } from '../databases.js';

/*
 * MySQL read replicas (db.replication). The "replica" here is an independent
 * database on the test server holding a snapshot of the primary taken after its boot, not a
 * replicated copy (the issue allows it when replication cannot be set up in the test): a row
 * written afterwards to one of the two exists only there, so what a request reads shows which pool
 * served it, and the pool observer names the pool of every statement.
 */

/** Copies every table of one test database into another on the same server (a replica's snapshot). */
async function snapshot(from: string, to: string): Promise<void> {
    const [source, target] = [from, to].map((url) => decodeURIComponent(new URL(url).pathname.slice(1)));
    const connection = await createConnection(process.env.TEST_MYSQL_URL!);
    try {
        await connection.query('SET FOREIGN_KEY_CHECKS = 0');
        const [tables] = await connection.query('SELECT table_name AS name FROM information_schema.tables WHERE table_schema = ?', [source]);
        for (const { name } of tables as { name: string }[]) {
            await connection.query(`CREATE TABLE \`${target}\`.\`${name}\` LIKE \`${source}\`.\`${name}\``);
            // generated columns are computed by the copy itself
            const [columns] = await connection.query(
                "SELECT column_name AS name FROM information_schema.columns WHERE table_schema = ? AND table_name = ? AND is_generated = 'NEVER' ORDER BY ordinal_position",
                [source, name],
            );
            const list = (columns as { name: string }[]).map((column) => `\`${column.name}\``).join(', ');
            await connection.query(`INSERT INTO \`${target}\`.\`${name}\` (${list}) SELECT ${list} FROM \`${source}\`.\`${name}\``);
        }
    } finally {
        await connection.end();
    }
}
describeEachDialect('MySQL read replicas', () => {
    const statements: { pool: PoolName; sql: string }[] = [];
    let primary: TestDatabase;
    let replica: TestDatabase;
    let routed: DatabaseHandle;
    let app: App;
    const config = () => loadConfig({}, {
        logLevel: 'silent', env: 'test', writableDirectoryPath: join(tmpdir(), 'realmgate-test'),
        db: { type: 'mysql', url: primary.location, replication: { read: [replica.location] } },
    });

    beforeAll(async () => {
        primary = await createTestDatabase('mysql');
        replica = await createTestDatabase('mysql');
        routed = await createDatabase({ type: 'mysql', url: primary.location, replicas: [replica.location], observePools: (pool, sql) => statements.push({ pool, sql }) });
        // migrations and bootstrap on the primary, then the replica catches up (one snapshot)
        app = await createApp(config(), { handle: routed, bcryptCost: 4 });
        await snapshot(primary.location, replica.location);
    }, 120_000);
    afterAll(async () => {
        await app?.close();
        await routed?.destroy();
        await primary?.drop();
        await replica?.drop();
    });

    const request = async (method: 'GET' | 'POST', url: string, payload?: object) => {
        statements.length = 0;
        const response = await app.app.inject({ method, url, headers: { authorization: basicHeader(ADMIN.name, ADMIN.password) }, ...(payload ? { payload } : {}) });
        return { response, pools: new Set(statements.map((statement) => statement.pool)) };
    };

    const insertRealm = async (handle: DatabaseHandle, name: string) => {
        const now = toDbDate('mysql', new Date());
        await handle.db.insertInto('auth_realms').values({ id: randomUUID(), name, display_name: null, description: null, built_in: toDbBool('mysql', false), created_at: now, updated_at: now } as never).execute();
    };

    it('boot, migrations and bootstrap ran on the primary alone', async () => {
        const booted = await createDatabase({ type: 'mysql', url: primary.location, replicas: [replica.location], observePools: (pool, sql) => statements.push({ pool, sql }) });
        statements.length = 0;
        const again = await createApp(config(), { handle: booted, bcryptCost: 4 });
        try {
            expect(statements.length).toBeGreaterThan(0);
            expect(new Set(statements.map((statement) => statement.pool))).toEqual(new Set(['primary']));
        } finally {
            await again.close();
            await booted.destroy();
        }
    }, 60_000);

    it('a read-only request reads from the replica: a row only the replica holds is listed, one only the primary holds is not', async () => {
        await insertRealm(replica, 'only-on-replica');
        await insertRealm(primary, 'only-on-primary');
        const { response, pools } = await request('GET', '/realms');
        expect(response.statusCode, response.body).toBe(200);
        const names = (response.json() as { data: { name: string }[] }).data.map((realm) => realm.name);
        expect(names).toContain('only-on-replica');
        expect(names).not.toContain('only-on-primary');
        expect(pools.has('replica-0')).toBe(true);
    });

    it('a write goes to the primary, and the reads after it in the same request too', async () => {
        const { response, pools } = await request('POST', '/realms', { name: 'written-here' });
        // the answer reads the created row back: it exists on the primary only
        expect(response.statusCode, response.body).toBe(201);
        expect((response.json() as { data: { name: string } }).data.name).toBe('written-here');
        const first = statements.findIndex((statement) => /^\s*insert into `auth_realms`/i.test(statement.sql));
        expect(first).toBeGreaterThanOrEqual(0);
        expect(statements.slice(first).every((statement) => statement.pool === 'primary')).toBe(true);
        expect(pools.has('primary')).toBe(true);
        const stored = await primary.db.selectFrom('auth_realms').select('name').where('name', '=', 'written-here').executeTakeFirst();
        expect(stored?.name).toBe('written-here');
        expect(await replica.db.selectFrom('auth_realms').select('name').where('name', '=', 'written-here').executeTakeFirst()).toBeUndefined();
    });

    it('a replica URL that contradicts the UTC pin stops the boot, naming it', async () => {
        const url = new URL(replica.location);
        url.searchParams.set('timezone', '+02:00');
        await expect(createDatabase({ type: 'mysql', url: primary.location, replicas: [url.toString()] })).rejects.toSatisfy((error: unknown) =>
            error instanceof DatabaseConfigError && error.setting === 'DB_REPLICATION[0] timezone' && /not|pinned/.test(error.message));
    });

    it('a replica that does not answer stops the boot', async () => {
        await expect(createDatabase({ type: 'mysql', url: primary.location, replicas: ['mysql://root@127.0.0.1:1/none'] })).rejects.toThrow();
    });

    it('every connection of every pool is pinned to UTC', async () => {
        // a read-only request's session zone, asked on the pool that served it
        const { pools } = await request('GET', '/realms');
        expect(pools.has('replica-0')).toBe(true);
        for (const handle of [primary, replica]) {
            const row = await handle.db.selectNoFrom((eb) => eb.fn<string>('TIMEDIFF', [eb.fn('NOW'), eb.fn('UTC_TIMESTAMP')]).as('offset')).executeTakeFirstOrThrow();
            expect(String(row.offset)).toMatch(/^00:00:00/);
        }
    });
}, ['mysql']);
