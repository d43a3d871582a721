import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ADMIN, basicHeader } from '../app.js';
import { createTestDatabase, describeEachDialect, type TestDatabase } from '../databases.js';
import { freePort } from '../network.js';

const ROOT = resolve(import.meta.dirname, '../../../..');
const CLI = join(ROOT, 'packages/server/src/cli.ts');

interface Replica {
    url: string;
    process: ChildProcess;
    output: string[];
}

/** One server process, started exactly as `realmgate start` starts, configured by environment only. */
async function startReplica(env: Record<string, string>): Promise<Replica> {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', CLI, 'start'], {
        cwd: ROOT,
        env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1', PUBLIC_URL: url, LOG_LEVEL: 'warn', NODE_ENV: 'test' },
        stdio: ['ignore', 'pipe', 'pipe'],
    });
    const output: string[] = [];
    child.stdout!.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    const exited = new Promise<never>((_, reject) => child.once('exit', (code) => reject(new Error(`replica exited with ${code}: ${output.join('')}`))));
    // readiness: the first answer of the discovery route, polled until the process listens
    const ready = (async () => {
        for (;;) {
            try {
                if ((await fetch(`${url}/.well-known/openid-configuration`)).status === 200) return;
            } catch {
                // not listening yet
            }
            await new Promise((done) => setTimeout(done, 100));
        }
    })();
    await Promise.race([ready, exited]);
    return { url, process: child, output };
}

async function stopReplica(replica: Replica | undefined): Promise<void> {
    if (!replica || replica.process.exitCode !== null) return;
    const exited = new Promise((done) => replica.process.once('exit', done));
    replica.process.kill('SIGTERM');
    await exited;
}

/**
 * Two server processes on one database (and one Redis when TEST_REDIS_URL is set): what one
 * replica revokes, the other refuses on the very next request — no cache answers for a revoked
 * session (issue 4, spec States).
 */
describeEachDialect('two replicas on one database', (dialect) => {
    let database: TestDatabase;
    let directory: string;
    let a: Replica | undefined;
    let b: Replica | undefined;
    const admin = basicHeader(ADMIN.name, ADMIN.password);
    beforeAll(async () => {
        database = await createTestDatabase(dialect);
        directory = await mkdtemp(join(tmpdir(), 'realmgate-replicas-'));
        const env = {
            DB_TYPE: dialect, DB_URL: database.location, WRITABLE_DIRECTORY_PATH: directory,
            ...(process.env.TEST_REDIS_URL ? { REDIS_URL: process.env.TEST_REDIS_URL } : {}),
        };
        // booted together: the migration lock lets exactly one migrate and bootstrap
        [a, b] = await Promise.all([startReplica(env), startReplica(env)]);
    });
    afterAll(async () => {
        await Promise.all([stopReplica(a), stopReplica(b)]);
        await database?.drop();
        if (directory) await rm(directory, { recursive: true, force: true });
    });

    const call = (replica: Replica | undefined, path: string, init: RequestInit = {}) => fetch(`${replica!.url}${path}`, init);
    const post = (replica: Replica | undefined, path: string, body: Record<string, string>, authorization?: string) =>
        call(replica, path, {
            method: 'POST',
            headers: { 'content-type': 'application/x-www-form-urlencoded', ...(authorization ? { authorization } : {}) },
            body: new URLSearchParams(body),
        });

    it('a token revoked on one replica answers 401 on the other on the very next request', async () => {
        const created = await call(a, '/clients', {
            method: 'POST', headers: { authorization: admin, 'content-type': 'application/json' },
            body: JSON.stringify({ name: 'replicated', secret: 'replicated-secret' }),
        });
        expect(created.status).toBe(201);
        const client = (await created.json() as { data: { id: string } }).data;
        const credentials = basicHeader(client.id, 'replicated-secret');

        const issued = await post(a, '/token', { grant_type: 'client_credentials' }, credentials);
        expect(issued.status).toBe(200);
        const { access_token: token } = await issued.json() as { access_token: string };
        const bearer = { authorization: `Bearer ${token}` };
        for (const replica of [a, b]) expect((await call(replica, '/clients/@me', { headers: bearer })).status).toBe(200);

        expect((await post(a, '/token/revoke', { token }, credentials)).status).toBe(200);
        expect((await call(b, '/clients/@me', { headers: bearer })).status).toBe(401);
        expect((await call(a, '/clients/@me', { headers: bearer })).status).toBe(401);
    });

    it('a refresh token rotated on one replica is a replay on the other, which ends the session everywhere', async () => {
        const user = await call(b, '/users', {
            method: 'POST', headers: { authorization: admin, 'content-type': 'application/json' },
            body: JSON.stringify({ name: 'replicated-user', password: 'user-password' }),
        });
        expect(user.status).toBe(201);
        const login = await post(a, '/token', { grant_type: 'password', username: 'replicated-user', password: 'user-password' });
        expect(login.status).toBe(200);
        const first = await login.json() as { access_token: string; refresh_token: string };
        const rotated = await post(b, '/token', { grant_type: 'refresh_token', refresh_token: first.refresh_token });
        expect(rotated.status).toBe(200);
        const second = await rotated.json() as { access_token: string };
        expect((await call(a, '/users/@me', { headers: { authorization: `Bearer ${second.access_token}` } })).status).toBe(200);

        const replay = await post(a, '/token', { grant_type: 'refresh_token', refresh_token: first.refresh_token });
        expect(replay.status).toBe(400);
        expect(await replay.json()).toMatchObject({ error: 'invalid_grant' });
        for (const replica of [b, a]) {
            expect((await call(replica, '/users/@me', { headers: { authorization: `Bearer ${second.access_token}` } })).status).toBe(401);
        }
    });
}, ['postgres', 'mysql']);
