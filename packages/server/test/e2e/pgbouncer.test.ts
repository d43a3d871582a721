import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase } from '../../src/db/connect.js';
import { migrateToLatest, migrationStatus } from '../../src/db/migrate.js';
import { MIGRATIONS } from '../../src/db/migrations/index.js';
import { ADMIN, basicHeader } from '../app.js';
import { createTestDatabase, postgresAdmin, type TestDatabase } from '../databases.js';
import { pgbouncerUnavailable, startPgBouncer, type PgBouncer } from '../pgbouncer.js';
import { parsePrometheusText } from '../prometheus-text.js';
import { spawnServer, startServer, stopServer, untilReady, type ServerProcess } from '../server-process.js';

const TIMEOUT = 180_000;
const unavailable = pgbouncerUnavailable();

/**
 * PostgreSQL through PgBouncer 1.18 in transaction pooling (docs/operations/database.md): each
 * transaction of a client may run on another server connection, and PgBouncer has two of them for
 * the server's eight pooled connections. With DB_NAMED_STATEMENTS=false and
 * DB_ASYNCHRONOUS_COMMIT=false a server migrates a fresh database at boot (its migration lock is a
 * transaction's, so none is left held), keeps its sessions pinned to UTC although the database's
 * default zone is another one (PgBouncer refuses the startup `options` a pin could ride on, and
 * tracks TimeZone instead), and serves client_credentials, introspection and refresh. With named
 * statements on, the same setup fails; with asynchronous commit on, the boot stops and says why.
 * Without Redis its bus LISTENs through PgBouncer, hears nothing and knows it (its own probe never
 * comes back): its caches stay off; with DB_BUS_URL straight at PostgreSQL they are on.
 */
describe.skipIf(unavailable !== undefined)(`PostgreSQL through PgBouncer in transaction pooling${unavailable ? ` (skipped: ${unavailable})` : ''}`, () => {
    let bouncer: PgBouncer;
    let database: TestDatabase;
    let directory: string;
    const servers: ServerProcess[] = [];
    const admin = basicHeader(ADMIN.name, ADMIN.password);

    const envOf = (settings: Record<string, string>) => ({
        DB_TYPE: 'postgres', DB_URL: bouncer.urlOf(database.location), DB_POOL_SIZE: '8', WRITABLE_DIRECTORY_PATH: directory, ...settings,
    });
    const form = (server: ServerProcess, body: Record<string, string>, authorization?: string, path = '/token') => fetch(`${server.url}${path}`, {
        method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...(authorization ? { authorization } : {}) },
        body: new URLSearchParams(body),
    });
    /** the gauges and counters of `server`'s /metrics (the test reaches it on loopback) */
    const metricsOf = async (server: ServerProcess) => {
        const families = parsePrometheusText(await (await fetch(`${server.url}/metrics`)).text());
        const value = (name: string, labels: Record<string, string> = {}) => families.get(name)?.samples
            .find((sample) => Object.entries(labels).every(([key, wanted]) => sample.labels[key] === wanted))?.value;
        return { value, cacheHits: families.get('realmgate_cache_hits_total')!.samples.reduce((sum, sample) => sum + sample.value, 0) };
    };
    const created = async (server: ServerProcess, path: string, body: object) => {
        const response = await fetch(`${server.url}${path}`, { method: 'POST', headers: { authorization: admin, 'content-type': 'application/json' }, body: JSON.stringify(body) });
        expect(response.status, await response.clone().text()).toBe(201);
        return (await response.json() as { data: { id: string } }).data.id;
    };

    beforeAll(async () => {
        directory = await mkdtemp(join(tmpdir(), 'realmgate-pgbouncer-server-'));
        bouncer = await startPgBouncer(process.env.TEST_POSTGRES_URL!, 2);
        // fresh: the server behind PgBouncer runs every migration at boot
        database = await createTestDatabase('postgres');
        // a database default zone other than UTC: only a pin that holds behind PgBouncer lets the boot pass
        await postgresAdmin(process.env.TEST_POSTGRES_URL!, `ALTER DATABASE ${new URL(database.location).pathname.slice(1)} SET timezone = 'Europe/Berlin'`);
    }, TIMEOUT);
    afterAll(async () => {
        await Promise.all(servers.map(stopServer));
        await database?.drop();
        await bouncer?.stop();
        if (directory) await rm(directory, { recursive: true, force: true });
    }, TIMEOUT);

    it('with DB_NAMED_STATEMENTS=false: a migration at boot, client_credentials, introspection and refresh', async () => {
        const server = await startServer(envOf({ DB_NAMED_STATEMENTS: 'false', DB_ASYNCHRONOUS_COMMIT: 'false' }));
        servers.push(server);
        expect((await migrationStatus(database)).map((status) => [status.name, status.executedAt !== null]))
            .toEqual(Object.keys(MIGRATIONS).map((name) => [name, true]));
        // the migration lock went with its transaction: no advisory lock is left on any server connection
        const { rows } = await sql<{ held: string }>`select count(*) as held from pg_locks where locktype = 'advisory'`.execute(database.db);
        expect(Number(rows[0]!.held)).toBe(0);

        const clientId = await created(server, '/clients', { name: 'pooled-client', secret: 'pooled-secret' });
        const credentials = basicHeader(clientId, 'pooled-secret');
        // concurrent requests: more client connections at work than PgBouncer has server connections
        const answers = await Promise.all(Array.from({ length: 16 }, () => form(server, { grant_type: 'client_credentials' }, credentials)));
        expect(answers.map((answer) => answer.status)).toEqual(Array(16).fill(200));
        const tokens = await Promise.all(answers.map(async (answer) => (await answer.json() as { access_token: string }).access_token));
        const introspected = await Promise.all(tokens.map((token) => form(server, { token }, admin, '/token/introspect')));
        for (const answer of introspected) {
            expect(answer.status).toBe(200);
            expect(await answer.json()).toMatchObject({ active: true, sub: clientId, sub_kind: 'client' });
        }
        expect((await fetch(`${server.url}/clients/@me`, { headers: { authorization: `Bearer ${tokens[0]}` } })).status).toBe(200);

        // no Redis, no DB_BUS_URL: the bus LISTENs through PgBouncer, where its own probe never comes
        // back, so it is not live and nothing is answered from memory — 32 requests of one client, no hit
        const metrics = await metricsOf(server);
        expect(metrics.value('realmgate_bus_live')).toBe(0);
        expect(metrics.value('realmgate_caches_enabled')).toBe(0);
        expect(metrics.cacheHits).toBe(0);
        // and the log says why and what to do
        expect(server.output.join('')).toMatch(/did not hear its own probe.*DB_BUS_URL to a direct PostgreSQL connection, or REDIS_URL, or CACHES=off/);

        await created(server, '/users', { name: 'pooled-user', password: 'pooled-password' });
        const login = await form(server, { grant_type: 'password', username: 'pooled-user', password: 'pooled-password' });
        expect(login.status, await login.clone().text()).toBe(200);
        const first = await login.json() as { refresh_token: string };
        const rotated = await form(server, { grant_type: 'refresh_token', refresh_token: first.refresh_token });
        expect(rotated.status, await rotated.clone().text()).toBe(200);
        const second = await rotated.json() as { access_token: string; refresh_token: string };
        expect((await fetch(`${server.url}/users/@me`, { headers: { authorization: `Bearer ${second.access_token}` } })).status).toBe(200);
        // the spent one is a replay (RFC 9700 §4.14.2), which ends the session
        expect((await form(server, { grant_type: 'refresh_token', refresh_token: first.refresh_token })).status).toBe(400);
        expect((await fetch(`${server.url}/users/@me`, { headers: { authorization: `Bearer ${second.access_token}` } })).status).toBe(401);

        // timestamps were written in UTC although the database's default zone is Europe/Berlin
        const session = await database.db.selectFrom('auth_sessions').select('created_at').orderBy('created_at', 'desc').executeTakeFirstOrThrow();
        expect(Math.abs(new Date(session.created_at).getTime() - Date.now())).toBeLessThan(120_000);

        // a client deactivated behind the server's back (no bus message reaches it anyway) is refused at once
        await database.db.updateTable('auth_clients').set({ active: false }).where('id', '=', clientId).execute();
        expect((await form(server, { grant_type: 'client_credentials' }, credentials)).status).toBe(401);
        await stopServer(server);
    }, TIMEOUT);

    it('with DB_BUS_URL straight at PostgreSQL: the bus hears, the caches answer, and a write through the API empties them', async () => {
        const server = await startServer(envOf({ DB_NAMED_STATEMENTS: 'false', DB_ASYNCHRONOUS_COMMIT: 'false', DB_BUS_URL: database.location }));
        servers.push(server);
        const clientId = await created(server, '/clients', { name: 'direct-bus-client', secret: 'direct-bus-secret' });
        const credentials = basicHeader(clientId, 'direct-bus-secret');
        for (let round = 0; round < 3; round++) expect((await form(server, { grant_type: 'client_credentials' }, credentials)).status).toBe(200);
        const metrics = await metricsOf(server);
        expect(metrics.value('realmgate_bus_live')).toBe(1);
        expect(metrics.value('realmgate_caches_enabled')).toBe(1);
        expect(metrics.value('realmgate_cache_hits_total', { cache: 'clients' })).toBeGreaterThan(0);
        // its listener is a direct session of its own, named once it heard its probe
        const { rows } = await sql<{ named: string }>`select count(*) as named from pg_stat_activity
            where datname = current_database() and application_name like ${`realmgate_bus_%:${server.process.pid}`}`.execute(database.db);
        expect(Number(rows[0]!.named)).toBe(1);
        expect(server.output.join('')).not.toMatch(/did not hear its own probe/);

        const deactivated = await fetch(`${server.url}/clients/${clientId}`, {
            method: 'POST', headers: { authorization: admin, 'content-type': 'application/json' }, body: JSON.stringify({ active: false }),
        });
        expect(deactivated.status, await deactivated.clone().text()).toBe(200);
        expect((await form(server, { grant_type: 'client_credentials' }, credentials)).status).toBe(401);
        await stopServer(server);
    }, TIMEOUT);

    it('replicas migrating one fresh database together through PgBouncer apply each migration once and leave no lock held', async () => {
        const fresh = await createTestDatabase('postgres');
        const replicas = await Promise.all([0, 1, 2].map(() => createDatabase({
            type: 'postgres', url: bouncer.urlOf(fresh.location), namedStatements: false, asynchronousCommit: false,
        })));
        try {
            const applied = await Promise.all(replicas.map((replica) => migrateToLatest(replica)));
            expect(applied.flat()).toEqual(Object.keys(MIGRATIONS));
            const { rows } = await sql<{ held: string }>`select count(*) as held from pg_locks where locktype = 'advisory'`.execute(fresh.db);
            expect(Number(rows[0]!.held)).toBe(0);
        } finally {
            await Promise.all(replicas.map((replica) => replica.destroy()));
            await fresh.drop();
        }
    }, TIMEOUT);

    it('with named statements on, the same setup fails: a statement prepared on one server connection is missing or taken on another', async () => {
        const server = await spawnServer(envOf({ DB_ASYNCHRONOUS_COMMIT: 'false', LOG_LEVEL: 'error' }));
        servers.push(server);
        // the boot itself may already fail on one; otherwise concurrent token requests do
        const booted = await Promise.race([untilReady(server).then(() => true, () => false), server.exited.then(() => false)]);
        const failures: number[] = [];
        if (booted) {
            const credentials = basicHeader(await created(server, '/clients', { name: 'named-client', secret: 'named-secret' }).catch(() => 'none'), 'named-secret');
            for (let round = 0; round < 20 && failures.length === 0; round++) {
                const statuses = await Promise.all(Array.from({ length: 16 }, async () => (await form(server, { grant_type: 'client_credentials' }, credentials)).status));
                failures.push(...statuses.filter((status) => status !== 200));
            }
        }
        const output = server.output.join('');
        expect(booted === false || failures.length > 0, output.slice(0, 2000)).toBe(true);
        // the server's log (JSON, so the quotes come escaped) names the cause
        expect(/prepared statement \\?"rg_\w+\\?" (does not exist|already exists)/.test(output), output.slice(0, 2000)).toBe(true);
        await stopServer(server);
    }, TIMEOUT);

    it('with DB_ASYNCHRONOUS_COMMIT left on, the boot stops and names the setting (PgBouncer refuses the startup option)', async () => {
        const server = await spawnServer(envOf({ DB_NAMED_STATEMENTS: 'false' }));
        servers.push(server);
        expect(await server.exited).not.toBe(0);
        expect(server.output.join('')).toMatch(/DB_ASYNCHRONOUS_COMMIT.*unsupported startup parameter: options|unsupported startup parameter: options.*DB_ASYNCHRONOUS_COMMIT=false/s);
    }, TIMEOUT);
});
