import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../network.js';
import { ROOT, spawnServer, startServer, stopServer, untilReady, type ServerProcess } from '../server-process.js';

const TIMEOUT = 120_000;
const CLI = join(ROOT, 'packages/server/src/cli.ts');

/** Polls the worker's GET / until it answers; rejects when the process exits first. */
async function untilWorkerAnswers(server: ServerProcess, url: string): Promise<Response> {
    let exited = false;
    void server.exited.then(() => { exited = true; });
    for (;;) {
        if (exited) throw new Error(`worker exited: ${server.output.join('')}`);
        try {
            return await fetch(url);
        } catch {
            await new Promise((wake) => setTimeout(wake, 100));
        }
    }
}

/**
 * The start roles as processes (spec beta.64 item 5, beta.68 item 1, "A service that fails to
 * start"): a second process on a taken port exits 1 with a message naming the port and its
 * variable; the worker answers GET / on its own WORKER_PORT.
 */
describe('start roles: two processes on one port, the worker beside the API', () => {
    let directory: string;
    let api: ServerProcess;
    const started: ServerProcess[] = [];
    let env: Record<string, string>;

    beforeAll(async () => {
        directory = await mkdtemp(join(tmpdir(), 'realmgate-roles-'));
        env = { DB_TYPE: 'sqlite', WRITABLE_DIRECTORY_PATH: directory };
        api = await startServer(env);
        started.push(api);
    }, TIMEOUT);
    afterAll(async () => {
        await Promise.all(started.map(stopServer));
        if (directory) await rm(directory, { recursive: true, force: true });
    }, TIMEOUT);

    const port = () => new URL(api.url).port;

    it('refuses a second API process on the API port, naming PORT', async () => {
        const second = await spawnServer({ ...env, PORT: port() });
        started.push(second);
        expect(await second.exited).toBe(1);
        expect(second.output.join('')).toContain(`Port ${port()} on 127.0.0.1 (PORT) is already in use by another process`);
    }, TIMEOUT);

    it('refuses a worker on the API port, naming WORKER_PORT (beta.68 item 1)', async () => {
        const worker = await spawnServer({ ...env, PORT: port() }, [CLI, 'start', 'worker']);
        started.push(worker);
        expect(await worker.exited).toBe(1);
        expect(worker.output.join('')).toContain(`Port ${port()} on 127.0.0.1 (WORKER_PORT) is already in use by another process`);
    }, TIMEOUT);

    it('runs the worker on its own WORKER_PORT: GET / answers 200 with its sweeps; the API stays up', async () => {
        const workerPort = await freePort();
        const worker = await spawnServer({ ...env, WORKER_PORT: String(workerPort) }, [CLI, 'start', 'worker']);
        started.push(worker);
        const answer = await untilWorkerAnswers(worker, `http://127.0.0.1:${workerPort}/`);
        expect(answer.status).toBe(200);
        const body = await answer.json() as { status: string; sweeps: { name: string }[] };
        expect(body.status).toBe('ok');
        expect(body.sweeps.map((sweep) => sweep.name)).toContain('expired-sessions');
        // the worker serves nothing of the API
        expect((await fetch(`http://127.0.0.1:${workerPort}/realms`)).status).toBe(404);
        expect((await fetch(`${api.url}/health`)).status).toBe(200);
    }, TIMEOUT);

    it('refuses the worker while WORKER_ENABLED is false, and an unknown console, before boot', async () => {
        const disabled = await spawnServer({ ...env, WORKER_ENABLED: 'false', WORKER_PORT: String(await freePort()) }, [CLI, 'start', 'worker']);
        started.push(disabled);
        expect(await disabled.exited).toBe(1);
        expect(disabled.output.join('')).toContain('WORKER_ENABLED is false');
        // the admin and account consoles are built; a mis-typed name is refused (spec: start roles)
        const unknown = await spawnServer(env, [CLI, 'start', 'console', 'admn']);
        started.push(unknown);
        expect(await unknown.exited).toBe(1);
        expect(unknown.output.join('')).toContain('Unknown console "admn"');
    }, TIMEOUT);
});

/** Whether anything listens on the URL's port. */
const listening = (url: string) => fetch(url).then(() => true, () => false);

/**
 * The console roles (spec v1.0.0-beta.64 item 5: "start console [admin, account or auth] (one
 * console service, or every enabled one, each on its own port)"): a console process serves its
 * console on its own port and none of the API, on no port of the API's.
 */
describe('start roles: the consoles, each alone on its own port', () => {
    let directory: string;
    const started: ServerProcess[] = [];
    beforeAll(async () => {
        directory = await mkdtemp(join(tmpdir(), 'realmgate-consoles-'));
    });
    afterAll(async () => {
        await Promise.all(started.map(stopServer));
        if (directory) await rm(directory, { recursive: true, force: true });
    }, TIMEOUT);

    it('`start console auth`: the auth pages on CONSOLE_AUTH_PORT, none of the API, nothing on PORT', async () => {
        const authPort = await freePort();
        const auth = await spawnServer({ DB_TYPE: 'sqlite', WRITABLE_DIRECTORY_PATH: directory, CONSOLE_AUTH_PORT: String(authPort) }, [CLI, 'start', 'console', 'auth']);
        started.push(auth);
        const base = `http://127.0.0.1:${authPort}`;
        await untilReady(auth, `${base}/health`);
        expect((await fetch(`${base}/device`)).status).toBe(200);
        for (const path of ['/users', '/realms', '/.well-known/openid-configuration', '/openapi.json', '/console/admin/']) {
            expect((await fetch(`${base}${path}`)).status, path).toBe(404);
        }
        expect(await listening(`${auth.url}/health`)).toBe(false);
    }, TIMEOUT);

    it('`start console`: the admin and account consoles on CONSOLE_PORT, the auth console on CONSOLE_AUTH_PORT, none of the API', async () => {
        const [consolePort, authPort] = [await freePort(), await freePort()];
        const consoles = await spawnServer({
            DB_TYPE: 'sqlite', WRITABLE_DIRECTORY_PATH: directory, CONSOLE_PORT: String(consolePort), CONSOLE_AUTH_PORT: String(authPort),
        }, [CLI, 'start', 'console']);
        started.push(consoles);
        const [built, auth] = [`http://127.0.0.1:${consolePort}`, `http://127.0.0.1:${authPort}`];
        await untilReady(consoles, `${built}/health`);
        await untilReady(consoles, `${auth}/health`);
        // the built consoles (or, without a build, the message saying how to make one)
        for (const name of ['admin', 'account']) expect([200, 503]).toContain((await fetch(`${built}/console/${name}/`)).status);
        expect((await fetch(`${auth}/device`)).status).toBe(200);
        for (const base of [built, auth]) {
            for (const path of ['/users', '/token', '/.well-known/openid-configuration']) expect((await fetch(`${base}${path}`)).status, `${base}${path}`).toBe(404);
        }
        expect(await listening(`${consoles.url}/health`)).toBe(false);
        // plain-http CONSOLE_PUBLIC_URL and PUBLIC_URL: no HSTS (RFC 6797 §7.2), the other security headers on
        for (const base of [built, auth]) {
            const answer = await fetch(`${base}/health`);
            expect(answer.headers.get('strict-transport-security'), base).toBeNull();
            expect(answer.headers.get('x-content-type-options'), base).toBe('nosniff');
        }
    }, TIMEOUT);
});
