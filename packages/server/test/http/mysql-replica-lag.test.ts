import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConnection } from 'mysql2/promise';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app.js';
import { loadConfig } from '../../src/config/load.js';
import { createDatabase, type DatabaseHandle } from '../../src/db/connect.js';
import type { PoolName } from '../../src/db/replication.js';
import { ADMIN, basicHeader } from '../app.js';
import { describeEachDialect } from '../databases.js';
import { startReplicatedPair, type ReplicatedPair } from '../mariadb-replica.js';

/*
 * MySQL read replicas (spec Versioning) with real replication: a MariaDB primary and a replica of it on loopback ports,
 * started by the suite (test/mariadb-replica.ts). With the replica paused (a lagging copy), a
 * request reads its own write from the primary while another request's reads, served by the
 * replica, do not see it yet; once the replica catches up they do.
 */
describeEachDialect('MySQL replication: a real replica', () => {
    const statements: { pool: PoolName; sql: string }[] = [];
    let pair: ReplicatedPair;
    let routed: DatabaseHandle;
    let app: App;

    beforeAll(async () => {
        pair = await startReplicatedPair();
        const connection = await createConnection(pair.primaryUrl);
        await connection.query('CREATE DATABASE realmgate CHARACTER SET utf8mb4 COLLATE utf8mb4_bin');
        await connection.end();
        const primaryUrl = `${pair.primaryUrl}/realmgate`;
        const replicaUrl = `${pair.replicaUrl}/realmgate`;
        await pair.caughtUp();
        routed = await createDatabase({ type: 'mysql', url: primaryUrl, replicas: [replicaUrl], observePools: (pool, sql) => statements.push({ pool, sql }) });
        app = await createApp(loadConfig({}, {
            logLevel: 'silent', env: 'test', writableDirectoryPath: join(tmpdir(), 'realmgate-test'),
            db: { type: 'mysql', url: primaryUrl, replication: { read: [replicaUrl] } },
        }), { handle: routed, bcryptCost: 4 });
        await pair.caughtUp();
    }, 180_000);
    afterAll(async () => {
        await app?.close();
        await routed?.destroy();
        await pair?.stop();
    }, 60_000);

    const request = async (method: 'GET' | 'POST', url: string, payload?: object) => {
        statements.length = 0;
        const response = await app.app.inject({ method, url, headers: { authorization: basicHeader(ADMIN.name, ADMIN.password) }, ...(payload ? { payload } : {}) });
        return { response, pools: new Set(statements.map((statement) => statement.pool)) };
    };
    const names = (response: { json(): unknown }) => (response.json() as { data: { name: string }[] }).data.map((realm) => realm.name);

    it('a lagging replica: the writing request reads its row from the primary, other requests\' reads do not see it until the replica catches up', async () => {
        await pair.pause();
        try {
            const created = await request('POST', '/realms', { name: 'written-while-lagging' });
            expect(created.response.statusCode, created.response.body).toBe(201);
            expect(created.pools.has('primary')).toBe(true);
            const lagging = await request('GET', '/realms?filter[name]=written-while-lagging');
            expect(lagging.response.statusCode).toBe(200);
            expect(names(lagging.response)).toEqual([]);
            expect(lagging.pools.has('replica-0')).toBe(true);
        } finally {
            await pair.resume();
        }
        await pair.caughtUp();
        const after = await request('GET', '/realms?filter[name]=written-while-lagging');
        expect(names(after.response)).toEqual(['written-while-lagging']);
    }, 60_000);
}, ['mysql']);
