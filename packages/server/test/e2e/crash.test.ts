import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { migrationStatus } from '../../src/db/migrate.js';
import { MIGRATIONS } from '../../src/db/migrations/index.js';
import { ADMIN, useTestApp } from '../app.js';
import { createTestDatabase, describeEachDialect, type TestDatabase } from '../databases.js';
import { killServer, ROOT, spawnServer, startServer, stopServer, untilReady, type ServerProcess } from '../server-process.js';

const TIMEOUT = 180_000;
const CRASH_BOOT = join(ROOT, 'packages/server/test/crash-boot.script.ts');

/** The rows a first boot writes (API.md §5); a healthy database holds the same counts as one booted without a crash. */
const BOOTSTRAP_TABLES = [
    'auth_realms', 'auth_keys', 'auth_policies', 'auth_permissions', 'auth_permission_policies', 'auth_scopes',
    'auth_roles', 'auth_role_permissions', 'auth_users', 'auth_user_roles',
] as const;
type Counts = Record<(typeof BOOTSTRAP_TABLES)[number], number>;

async function countsOf(handle: Pick<TestDatabase, 'db'>): Promise<Counts> {
    const counts = {} as Counts;
    for (const table of BOOTSTRAP_TABLES) {
        counts[table] = Number((await handle.db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
    }
    return counts;
}

/**
 * Crash tests: a server process `kill -9`ed during its first boot (at deterministic
 * statements: crash-boot.script.ts kills itself once the database has answered the chosen one) and
 * during a write burst (after a set number of acknowledged writes): the next boot is healthy —
 * migrations complete, the bootstrap rows all there, the administrator logs in — and every write
 * acknowledged with a 2xx before the kill is still there.
 */
describeEachDialect('crash: kill -9 during the first boot and a write burst', (dialect) => {
    const reference = useTestApp(dialect);
    let expected: Counts;
    let directory: string;
    const databases: TestDatabase[] = [];
    const servers: ServerProcess[] = [];
    beforeAll(async () => {
        expected = await countsOf(reference.deps);
        directory = await mkdtemp(join(tmpdir(), 'realmgate-crash-'));
    });
    afterAll(async () => {
        await Promise.all(servers.map(stopServer));
        for (const database of databases) await database.drop();
        if (directory) await rm(directory, { recursive: true, force: true });
    }, TIMEOUT);

    const envOf = (database: TestDatabase) => ({ DB_TYPE: dialect, DB_URL: database.location, WRITABLE_DIRECTORY_PATH: directory });
    const start = async (database: TestDatabase) => {
        const server = await startServer(envOf(database));
        servers.push(server);
        return server;
    };

    /** a password-grant token of the bootstrap administrator; its bearer reads the admin's own record */
    const adminLogsIn = async (server: ServerProcess): Promise<string> => {
        const response = await fetch(`${server.url}/token`, {
            method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
            body: new URLSearchParams({ grant_type: 'password', username: ADMIN.name, password: ADMIN.password }),
        });
        expect(response.status, await response.clone().text()).toBe(200);
        const bearer = `Bearer ${(await response.json() as { access_token: string }).access_token}`;
        const me = await fetch(`${server.url}/users/@me`, { headers: { authorization: bearer } });
        expect(me.status).toBe(200);
        expect(await me.json()).toMatchObject({ data: { name: ADMIN.name } });
        // the admin's grants are all there: a global read answers
        expect((await fetch(`${server.url}/realms`, { headers: { authorization: bearer } })).status).toBe(200);
        return bearer;
    };

    const healthy = async (database: TestDatabase, server: ServerProcess) => {
        expect((await migrationStatus(database)).map((status) => [status.name, status.executedAt !== null]))
            .toEqual(Object.keys(MIGRATIONS).map((name) => [name, true]));
        expect(await countsOf(database)).toEqual(expected);
        return adminLogsIn(server);
    };

    // the first schema statement, one in the middle, a policy tree half-written, the permissions
    // part-way, and the admin inserted but not yet given its role
    for (const crashAt of ['create:1', 'create:20', 'insert:auth_policies:2', 'insert:auth_permissions:10', 'insert:auth_users:1']) {
        it(`a first boot killed at ${crashAt}: the next boot is healthy`, async () => {
            const database = await createTestDatabase(dialect);
            databases.push(database);
            const crashing = await spawnServer({ ...envOf(database), CRASH_AT: crashAt }, [CRASH_BOOT]);
            // it dies at the statement, never gets to listen
            const outcome = await Promise.race([crashing.exited, untilReady(crashing).then(() => 'listening')]).catch(() => 'exited');
            if (outcome === 'listening') await killServer(crashing);
            expect(outcome, crashing.output.join('')).not.toBe('listening');
            expect(await crashing.exited, crashing.output.join('')).toBe('SIGKILL');
            const server = await start(database);
            await healthy(database, server);
            // stopped now, not with the file: five idle servers per dialect would slow the suites beside it
            await stopServer(server);
        }, TIMEOUT);
    }

    it('a server killed during a write burst loses no acknowledged write, and boots healthy', async () => {
        const database = await createTestDatabase(dialect);
        databases.push(database);
        const server = await start(database);
        const bearer = await healthy(database, server);
        const ACKNOWLEDGED = 60;
        const acknowledged: { table: 'auth_roles' | 'auth_users'; id: string }[] = [];
        let killed: Promise<void> | undefined;
        const writer = async (lane: number) => {
            for (let index = 0; killed === undefined; index++) {
                const table = index % 3 === 2 ? 'auth_users' : 'auth_roles';
                const body = table === 'auth_users' ? { name: `burst-${lane}-${index}`, password: 'burst-password' } : { name: `burst-${lane}-${index}` };
                let response: Response;
                try {
                    response = await fetch(`${server.url}/${table === 'auth_users' ? 'users' : 'roles'}`, {
                        method: 'POST', headers: { authorization: bearer, 'content-type': 'application/json' }, body: JSON.stringify(body),
                    });
                } catch {
                    return; // the connection died with the process: not acknowledged
                }
                if (response.status !== 201) throw new Error(`write answered ${response.status}: ${await response.text()}`);
                acknowledged.push({ table, id: (await response.json() as { data: { id: string } }).data.id });
                // the kill lands while the other lanes' writes are in flight
                if (acknowledged.length === ACKNOWLEDGED) killed = killServer(server);
            }
        };
        await Promise.all([0, 1, 2, 3].map(writer));
        await killed;
        expect(acknowledged.length).toBeGreaterThanOrEqual(ACKNOWLEDGED);

        const restarted = await start(database);
        await adminLogsIn(restarted);
        expect((await migrationStatus(database)).every((status) => status.executedAt !== null)).toBe(true);
        for (const table of ['auth_roles', 'auth_users'] as const) {
            const ids = acknowledged.filter((write) => write.table === table).map((write) => write.id);
            const found = await database.db.selectFrom(table).select('id').where('id', 'in', ids).execute();
            expect(found.map((row) => row.id).sort(), table).toEqual([...ids].sort());
        }
        // and through the restarted server
        const role = acknowledged.find((write) => write.table === 'auth_roles')!;
        expect((await fetch(`${restarted.url}/roles/${role.id}`, { headers: { authorization: await adminLogsIn(restarted) } })).status).toBe(200);
    }, TIMEOUT);
});
