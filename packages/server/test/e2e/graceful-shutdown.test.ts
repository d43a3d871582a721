import { request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ADMIN, basicHeader } from '../app.js';
import { createTestDatabase, describeEachDialect, type TestDatabase } from '../databases.js';
import { killServer, startServer, type ServerProcess } from '../server-process.js';

const TIMEOUT = 180_000;
/** long enough that no step of a test outlasts it: the drain ends only when a test says so */
const ENDLESS_DRAIN_MS = '600000';

interface Answer {
    status: number;
    headers: IncomingMessage['headers'];
    body: string;
}

/** The answer of a request whose body is sent in two parts, the second when the test decides. */
function splitRequest(url: string, authorization: string, first: string, second: string): { finish(): void; answer: Promise<Answer>; sent: Promise<void> } {
    const target = new URL('/token', url);
    let request!: ClientRequest;
    const answer = new Promise<Answer>((resolve, reject) => {
        request = httpRequest(target, {
            method: 'POST', agent: false,
            headers: { authorization, 'content-type': 'application/x-www-form-urlencoded', 'content-length': Buffer.byteLength(first + second) },
        }, (response) => {
            let body = '';
            response.setEncoding('utf8');
            response.on('data', (chunk: string) => { body += chunk; });
            response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, body }));
        });
        request.on('error', reject);
    });
    // resolves once the headers and the first part left: the request is in flight at the server
    const sent = new Promise<void>((resolve) => request.write(first, () => resolve()));
    return { finish: () => request.end(second), answer, sent };
}

/** Polls until `check` holds; the states it reads are the process's own (no sleeps that guess a duration). */
async function until(check: () => Promise<boolean> | boolean): Promise<void> {
    while (!(await check())) await new Promise((wake) => setTimeout(wake, 20));
}

/**
 * SIGTERM drains (API.md §8, runtime/graceful-shutdown.ts), on a real `realmgate start` child
 * process per database. Every step waits on a state the process shows (its readiness answer, its
 * log, its exit), never on a duration.
 */
describeEachDialect('graceful shutdown: SIGTERM drains, a second signal exits at once', (dialect) => {
    let database: TestDatabase;
    let directory: string;
    const servers: ServerProcess[] = [];
    const admin = basicHeader(ADMIN.name, ADMIN.password);

    const start = async (drainMs: string) => {
        const started = await startServer({ DB_TYPE: dialect, DB_URL: database.location, WRITABLE_DIRECTORY_PATH: directory, SHUTDOWN_DRAIN_MS: drainMs, LOG_LEVEL: 'info' });
        servers.push(started);
        return started;
    };
    const createClient = async (server: ServerProcess, name: string) => {
        const response = await fetch(`${server.url}/clients`, {
            method: 'POST', headers: { authorization: admin, 'content-type': 'application/json' },
            body: JSON.stringify({ name, secret: `${name}-secret` }),
        });
        expect(response.status, await response.clone().text()).toBe(201);
        const id = (await response.json() as { data: { id: string } }).data.id;
        return { id, authorization: basicHeader(id, `${name}-secret`) };
    };
    const readiness = async (server: ServerProcess) => {
        const response = await fetch(`${server.url}/health/ready`);
        return { status: response.status, body: await response.json() as { status: string; draining?: boolean } };
    };
    const logged = (server: ServerProcess, message: string) => server.output.join('').includes(message);

    beforeAll(async () => {
        directory = await mkdtemp(join(tmpdir(), 'realmgate-shutdown-'));
        database = await createTestDatabase(dialect);
    }, TIMEOUT);
    afterAll(async () => {
        await Promise.all(servers.map(killServer));
        await database?.drop();
        if (directory) await rm(directory, { recursive: true, force: true });
    }, TIMEOUT);

    it('is not ready from the signal on, serves in-flight and new requests while draining, and a second signal exits 1 at once', async () => {
        const server = await start(ENDLESS_DRAIN_MS);
        const client = await createClient(server, 'drain-client');
        expect((await readiness(server)).status).toBe(200);

        const inFlight = splitRequest(server.url, client.authorization, 'grant_type=client_', 'credentials');
        await inFlight.sent;
        server.process.kill('SIGTERM');
        await until(async () => (await readiness(server)).status === 503);
        expect((await readiness(server)).body).toMatchObject({ status: 'unavailable', draining: true });

        // a new request the balancer still sends before its check notices is served, and its connection closed
        const fresh = await fetch(`${server.url}/token`, {
            method: 'POST', headers: { authorization: client.authorization, 'content-type': 'application/x-www-form-urlencoded' },
            body: 'grant_type=client_credentials',
        });
        expect(fresh.status).toBe(200);
        expect(fresh.headers.get('connection')).toBe('close');

        inFlight.finish();
        const answered = await inFlight.answer;
        expect(answered.status, answered.body).toBe(200);
        expect(JSON.parse(answered.body)).toHaveProperty('access_token');
        expect(server.process.exitCode).toBeNull();

        // the operator will not wait: the drain (ten minutes) is cut short
        server.process.kill('SIGTERM');
        expect(await server.exited).toBe(1);
    }, TIMEOUT);

    it('closes after the drain only once the request in flight is answered, writes its event-log entries, and exits 0', async () => {
        const server = await start('0');
        const client = await createClient(server, 'closing-client');

        const inFlight = splitRequest(server.url, client.authorization, 'grant_type=client_', 'credentials');
        await inFlight.sent;
        server.process.kill('SIGTERM');
        await until(() => logged(server, 'shutdown: closing the listener and waiting for requests in flight'));
        // the listener is closing, yet the process waits for the request it is reading
        expect(server.process.exitCode).toBeNull();
        inFlight.finish();
        const answered = await inFlight.answer;
        expect(answered.status, answered.body).toBe(200);
        expect(await server.exited).toBe(0);
        expect(logged(server, 'shutdown: done')).toBe(true);

        // the entries the answer queued (written up to 50 ms later in normal running) are in the table
        const rows = await database.db.selectFrom('auth_events').select(['name'])
            .where('actor_id', '=', client.id).where('name', '=', 'tokenIssued')
            .execute();
        expect(rows).toHaveLength(1);
    }, TIMEOUT);
});
