import { sql, type Kysely } from 'kysely';
import { createConnection } from 'mysql2/promise';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Database } from '../../src/db/schema.js';
import { useTestApp } from '../app.js';
import { describeEachDialect } from '../databases.js';
import { createClient } from '../identities.js';

/*
 * A replica whose every database connection is ended from the server side (an administrator's
 * pg_terminate_backend or KILL, a failover, a pooler restarting) keeps running: the query running
 * on a connection fails, an idle connection is dropped, and the pool opens new ones for the next
 * requests. One connection is held checked out of the pool without a query running when its
 * backend goes: node-postgres then emits 'error' on that client, which nobody listens to between
 * its checkout and its release unless the pool's clients carry a listener of their own
 * (db/postgres.ts) — without it the process dies of the unhandled event. On PostgreSQL the bus's
 * LISTEN connection goes too: PostgreSQL keeps no notification for a session that is not
 * listening, so once the bus listens again every cache it feeds has been emptied (a resync, as the
 * Redis bus does after a reconnection). PostgreSQL and MySQL only (vitest.config.ts).
 */

/** Waits for `done` over a bounded number of short turns, never a verdict from the clock. */
async function until(done: () => Promise<boolean> | boolean, what: string, turns = 1_000): Promise<void> {
    for (let attempt = 0; attempt < turns; attempt++) {
        if (await done()) return;
        await new Promise((wake) => setTimeout(wake, 10));
    }
    expect.fail(`${what} did not happen`);
}

/** The server's side of the test: who is connected to the app's database, and the termination of all of them. */
interface DatabaseAdmin {
    /** the server processes (backends, MySQL threads) connected to the database, this admin's own excepted */
    connected(): Promise<number[]>;
    /** ends every one of them from the server side; answers their ids */
    terminateAll(): Promise<number[]>;
    /** the server process serving `db`'s connection `connection` */
    idOf(connection: Kysely<Database>): Promise<number>;
    close(): Promise<void>;
}

async function postgresAdmin(location: string): Promise<DatabaseAdmin> {
    const client = new pg.Client({ connectionString: location });
    await client.connect();
    const others = 'from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()';
    return {
        connected: async () => (await client.query<{ pid: number }>(`select pid ${others}`)).rows.map((row) => row.pid),
        terminateAll: async () => (await client.query<{ pid: number }>(`select pid, pg_terminate_backend(pid) ${others}`)).rows.map((row) => row.pid),
        idOf: async (connection) => (await sql<{ id: number }>`select pg_backend_pid() as id`.execute(connection)).rows[0]!.id,
        close: () => client.end(),
    };
}

async function mysqlAdmin(location: string): Promise<DatabaseAdmin> {
    const connection = await createConnection(location);
    const connected = async () => {
        const [rows] = await connection.query('select id from information_schema.processlist where db = database() and id <> connection_id()');
        return (rows as { id: number }[]).map((row) => Number(row.id));
    };
    return {
        connected,
        async terminateAll() {
            const ids = await connected();
            // KILL ends the thread's connection (KILL CONNECTION is the default), whatever it is doing
            for (const id of ids) await connection.query(`KILL ${id}`);
            return ids;
        },
        idOf: async (db) => Number((await sql<{ id: number }>`select connection_id() as id`.execute(db)).rows[0]!.id),
        close: () => connection.end(),
    };
}

describeEachDialect('a replica whose database connections are all terminated', (dialect) => {
    const app = useTestApp(dialect);
    let admin: DatabaseAdmin;
    let realmId: string;
    beforeAll(async () => {
        admin = dialect === 'postgres' ? await postgresAdmin(app.database.location) : await mysqlAdmin(app.database.location);
        realmId = (await app.json<{ data: { id: string } }>({ method: 'POST', url: '/realms', payload: { name: `terminated-${dialect}` } }, 201)).data.id;
    });
    afterAll(async () => admin?.close());

    const issue = (header: string) => app.request({ method: 'POST', url: '/token', as: header, payload: { grant_type: 'client_credentials', realm_id: realmId } });
    /** hits of the clients cache so far (GET /metrics) */
    const clientHits = async () => {
        const metrics = await app.request({ method: 'GET', url: '/metrics' });
        return Number(/^realmgate_cache_hits_total\{cache="clients"\} (\d+)$/m.exec(metrics.body)?.[1]);
    };

    /**
     * Terminates every connection of the database while one of the app's pooled connections is
     * checked out and idle; answers once their server processes are gone, with the error the held
     * connection's next query met.
     */
    const terminateAllWhileOneIsHeld = async (): Promise<{ terminated: number[]; heldError: unknown }> => {
        let terminated: number[] = [];
        let heldError: unknown;
        await app.deps.db.connection().execute(async (held) => {
            const heldId = await admin.idOf(held);
            terminated = await admin.terminateAll();
            expect(terminated).toContain(heldId);
            await until(async () => (await admin.connected()).every((id) => !terminated.includes(id)), 'every terminated connection gone');
            // the held connection learns it is gone on its next query at the latest
            heldError = await sql`select 1 as one`.execute(held).then(() => undefined, (error: unknown) => error);
        });
        return { terminated, heldError };
    };

    it('keeps answering: the held connection\'s query fails, the next requests get new connections', async () => {
        const client = await createClient(app, realmId);
        expect((await issue(client.header)).statusCode).toBe(200);
        const { terminated, heldError } = await terminateAllWhileOneIsHeld();
        expect(terminated.length).toBeGreaterThan(0);
        expect(heldError).toBeInstanceOf(Error);
        // the same process answers, from new connections: reads, a write, and the readiness probe's round trip
        expect((await issue(client.header)).statusCode).toBe(200);
        expect((await app.request({ method: 'POST', url: `/clients/${client.id}`, payload: { description: 'after the termination' } })).statusCode).toBe(200);
        expect((await app.request({ method: 'GET', url: '/health/ready' })).statusCode).toBe(200);
        expect((await admin.connected()).filter((id) => !terminated.includes(id)).length).toBeGreaterThan(0);
    });

    if (dialect === 'postgres') it('empties the caches the bus feeds once the bus listens again (notifications sent meanwhile are lost)', async () => {
        // the caches serve only while the bus hears its own probe: the previous test's termination may
        // still be recovering
        await until(async () => app.deps.bus.live, 'the bus live');
        const client = await createClient(app, realmId);
        // authenticated, then remembered
        expect((await issue(client.header)).statusCode).toBe(200);
        expect((await issue(client.header)).statusCode).toBe(200);
        // deactivated behind the app's back (no bus message), as a write another replica announced while this one did not listen
        await app.deps.db.updateTable('auth_clients').set({ active: false }).where('id', '=', client.id).execute();
        expect((await issue(client.header)).statusCode).toBe(200);

        const listener = async () => (await sql<{ pid: number }>`select pid from pg_stat_activity
            where datname = current_database() and application_name like ${`realmgate_bus_%:${process.pid}`}`.execute(app.deps.db)).rows.map((row) => row.pid);
        const { terminated } = await terminateAllWhileOneIsHeld();
        // a new listening connection named once it heard its own probe, and the bus live again: caches serve again from here
        await until(async () => {
            const listening = await listener();
            return listening.length === 1 && !terminated.includes(listening[0]!) && app.deps.bus.live;
        }, 'the bus listening again');
        // served from the caches again, yet the client is read from the database: the bus emptied them
        expect((await issue(client.header)).statusCode).toBe(401);
        // and caching resumes: reactivated through the API, remembered again
        await app.json({ method: 'POST', url: `/clients/${client.id}`, payload: { active: true } }, 200);
        expect((await issue(client.header)).statusCode).toBe(200);
        const hits = await clientHits();
        expect((await issue(client.header)).statusCode).toBe(200);
        expect(await clientHits()).toBeGreaterThan(hits);
    });
}, ['postgres', 'mysql']);
