import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../network.js';
import { ROOT, spawnServer, startServer, stopServer, type ServerProcess } from '../server-process.js';

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
        // the admin and account consoles are built (issue 18); a mis-typed name is refused (spec: start roles)
        const unknown = await spawnServer(env, [CLI, 'start', 'console', 'admn']);
        started.push(unknown);
        expect(await unknown.exited).toBe(1);
        expect(unknown.output.join('')).toContain('Unknown console "admn"');
    }, TIMEOUT);
});
