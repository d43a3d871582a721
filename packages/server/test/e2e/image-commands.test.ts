import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../network.js';
import { ROOT, spawnServer, stopServer, untilReady, type ServerProcess } from '../server-process.js';

const TIMEOUT = 120_000;
const DOCKERFILE = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
const DEPLOY_GUIDE = readFileSync(join(ROOT, 'docs/operations/deploy.md'), 'utf8');

/** The runtime stage: everything after the last FROM. */
const RUNTIME = DOCKERFILE.slice(DOCKERFILE.lastIndexOf('\nFROM '));

function execForm(instruction: string): string[] {
    const match = new RegExp(`^${instruction} (?:.* )?(\\[.*\\])$`, 'm').exec(RUNTIME);
    if (!match) throw new Error(`no exec-form ${instruction} in the Dockerfile's runtime stage`);
    return JSON.parse(match[1]!) as string[];
}

/** `ENV A=1 \` continuation lines of the runtime stage. */
function imageEnv(): Record<string, string> {
    const block = /^ENV ((?:.*\\\n)*.*)$/m.exec(RUNTIME)![1]!;
    return Object.fromEntries(block.split(/\\\n/).map((line) => line.trim()).filter(Boolean).map((pair) => pair.split('=') as [string, string]));
}

/**
 * An image command run here, as the container would run it: `node packages/server/dist/X.js`
 * becomes the TypeScript source under tsx (the tests run without a build), the rest is verbatim.
 */
function fromSource(command: readonly string[]): string[] {
    expect(command[0]).toBe('node');
    return command.slice(1).map((arg) => (/^packages\/server\/dist\/.*\.js$/.test(arg) ? join(ROOT, arg.replace('/dist/', '/src/').replace(/\.js$/, '.ts')) : arg));
}

interface Finished {
    code: number | null;
    output: string;
}

function runHealthcheck(env: Record<string, string>, extra: string[] = []): Promise<Finished> {
    const [script, ...args] = fromSource(execForm('HEALTHCHECK'));
    const child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', script!, ...args, ...extra], {
        cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => { output += chunk.toString(); });
    child.stderr.on('data', (chunk: Buffer) => { output += chunk.toString(); });
    return new Promise((done) => child.once('exit', (code) => done({ code, output })));
}

describe('the container image: its declared defaults (the container image, spec beta.64 item 6)', () => {
    it('runs the CLI as the entrypoint with `start` as the default command, PORT 3000 and HOST 0.0.0.0, as a non-root user', () => {
        expect(execForm('ENTRYPOINT')).toEqual(['node', 'packages/server/dist/cli.js']);
        expect(execForm('CMD')).toEqual(['start']);
        expect(imageEnv()).toMatchObject({ PORT: '3000', HOST: '0.0.0.0', NODE_ENV: 'production' });
        expect(RUNTIME).toMatch(/^USER node$/m);
        expect(execForm('HEALTHCHECK')).toEqual(['node', 'packages/server/dist/healthcheck.js']);
    });

    it('builds with the commands the deploy guide gives; the runtime takes the server\'s production dependencies and built files only', () => {
        const stage = (name: string) => {
            const start = DOCKERFILE.indexOf(`AS ${name}\n`);
            return DOCKERFILE.slice(start, DOCKERFILE.indexOf('\nFROM ', start));
        };
        const runs = (text: string) => [...text.matchAll(/^RUN (.*)$/gm)].map((match) => match[1]);
        expect(runs(stage('build'))).toEqual(['npm ci', 'npm run build']);
        expect(DEPLOY_GUIDE).toContain('npm ci && npm run build');
        expect(runs(stage('dependencies'))).toEqual(['npm ci --omit=dev --workspace packages/server --no-audit --no-fund', 'node scripts/prune-build-tools.mjs packages/server']);
        // node_modules from the dependencies stage; from the build stage only manifests and dist folders
        const copies = [...RUNTIME.matchAll(/^COPY (.*)$/gm)].map((match) => match[1]!);
        expect(copies.filter((copy) => !copy.startsWith('--from=build ') && !copy.startsWith('--from=dependencies '))).toEqual([]);
        expect(copies.filter((copy) => copy.startsWith('--from=dependencies '))).toEqual(['--from=dependencies /app/package.json ./', '--from=dependencies /app/node_modules ./node_modules']);
        for (const copy of copies.filter((entry) => entry.startsWith('--from=build '))) expect(copy).toMatch(/^--from=build \/app\/(packages\/(core|access|server)\/(package\.json|dist)|apps\/console\/dist) /);
    });

    it('every stage starts from the same Node.js 24 LTS image, pinned by version and digest', () => {
        const bases = [...DOCKERFILE.matchAll(/^FROM (\S+)/gm)].map((match) => match[1]);
        expect(bases).toEqual([bases[0], 'manifests', 'manifests', bases[0]]);
        expect(bases[0]).toMatch(/^node:24\.\d+\.\d+-bookworm-slim@sha256:[0-9a-f]{64}$/);
    });
});

describe('the container image: its commands run (the container image)', () => {
    let directory: string;
    let env: Record<string, string>;
    let api: ServerProcess | undefined;
    let worker: ServerProcess | undefined;
    let standalone: ServerProcess | undefined;

    beforeAll(async () => {
        directory = await mkdtemp(join(tmpdir(), 'realmgate-image-'));
        // the image's ENV, with the data folder and (spawnServer) a free PORT set as `docker run -e` would
        const { PORT: _imagePort, ...image } = imageEnv();
        env = { ...image, WRITABLE_DIRECTORY_PATH: directory, LOG_LEVEL: 'warn' };
        api = await untilReady(await spawnServer(env, fromSource([...execForm('ENTRYPOINT'), ...execForm('CMD')])));
        env.PORT = new URL(api.url).port;
    }, TIMEOUT);
    afterAll(async () => {
        await stopServer(worker);
        await stopServer(standalone);
        await stopServer(api);
        if (directory) await rm(directory, { recursive: true, force: true });
    }, TIMEOUT);

    it('the default command serves the API on the wildcard HOST; the healthcheck finds the role in the first process and probes PORT', async () => {
        const probe = await runHealthcheck(env, ['--pid', String(api!.process.pid)]);
        expect(probe.output).toContain(`the API (PORT ${env.PORT}) answered 200 at http://127.0.0.1:${env.PORT}/health`);
        expect(probe.code).toBe(0);
    }, TIMEOUT);

    it('`start worker`: the healthcheck probes the worker\'s GET / on WORKER_PORT', async () => {
        const workerPort = await freePort();
        const workerEnv = { ...env, WORKER_PORT: String(workerPort) };
        worker = await spawnServer(workerEnv, fromSource([...execForm('ENTRYPOINT'), 'start', 'worker']));
        await untilReady(worker, `http://127.0.0.1:${workerPort}/`);
        const probe = await runHealthcheck(workerEnv, ['--pid', String(worker.process.pid)]);
        expect(probe.output).toContain(`the worker's health listener (WORKER_PORT ${workerPort}) answered 200`);
        expect(probe.code).toBe(0);
        // named explicitly instead of read from the process, the same probe
        expect((await runHealthcheck(workerEnv, ['start', 'worker'])).code).toBe(0);
    }, TIMEOUT);

    it('`start console admin`: the console alone on CONSOLE_PORT; the healthcheck probes its GET /health there', async () => {
        const consolePort = await freePort();
        const consoleEnv = { ...env, CONSOLE_PORT: String(consolePort) };
        standalone = await spawnServer(consoleEnv, fromSource([...execForm('ENTRYPOINT'), 'start', 'console', 'admin']));
        await untilReady(standalone, `http://127.0.0.1:${consolePort}/health`);
        const probe = await runHealthcheck(consoleEnv, ['--pid', String(standalone.process.pid)]);
        expect(probe.output).toContain(`the admin console (CONSOLE_PORT ${consolePort}) answered 200`);
        expect(probe.code).toBe(0);
        // it serves the console (or, without a build, says how to make one), never the API
        expect([200, 503]).toContain((await fetch(`http://127.0.0.1:${consolePort}/console/admin/`)).status);
        expect((await fetch(`http://127.0.0.1:${consolePort}/users`)).status).toBe(404);
    }, TIMEOUT);

    it('`start console auth`: the auth pages alone on CONSOLE_AUTH_PORT; the healthcheck probes its GET /health there', async () => {
        const authPort = await freePort();
        const authEnv = { ...env, CONSOLE_AUTH_PORT: String(authPort) };
        const auth = await spawnServer(authEnv, fromSource([...execForm('ENTRYPOINT'), 'start', 'console', 'auth']));
        try {
            await untilReady(auth, `http://127.0.0.1:${authPort}/health`);
            const probe = await runHealthcheck(authEnv, ['--pid', String(auth.process.pid)]);
            expect(probe.output).toContain(`the auth console (CONSOLE_AUTH_PORT ${authPort}) answered 200`);
            expect(probe.code).toBe(0);
            expect((await fetch(`http://127.0.0.1:${authPort}/users`)).status).toBe(404);
        } finally {
            await stopServer(auth);
        }
    }, TIMEOUT);

    it('the deprecated `server` prefix runs the command after it with a warning; the healthcheck reads the role past it (spec beta.64 item 6)', async () => {
        const workerPort = await freePort();
        const workerEnv = { ...env, WORKER_PORT: String(workerPort) };
        const prefixed = await spawnServer(workerEnv, fromSource([...execForm('ENTRYPOINT'), 'server', 'start', 'worker']));
        try {
            await untilReady(prefixed, `http://127.0.0.1:${workerPort}/`);
            expect(prefixed.output.join('')).toMatch(/"server" prefix is deprecated/);
            const probe = await runHealthcheck(workerEnv, ['--pid', String(prefixed.process.pid)]);
            expect(probe.output).toContain(`the worker's health listener (WORKER_PORT ${workerPort}) answered 200`);
            expect(probe.code).toBe(0);
        } finally {
            await stopServer(prefixed);
        }
    }, TIMEOUT);

    it('reads the port from the config file the server reads', async () => {
        const file = join(directory, 'deploy.yaml');
        await writeFile(file, `core:\n  port: ${env.PORT}\n`);
        const probe = await runHealthcheck({ ...env, PORT: '', CONFIG_FILE: file }, ['start']);
        expect(probe.code).toBe(0);
    }, TIMEOUT);

    it('exits 1 when nothing answers on the port', async () => {
        const idle = String(await freePort());
        const probe = await runHealthcheck({ ...env, PORT: idle }, ['start']);
        expect(probe.code).toBe(1);
        expect(probe.output).toContain(`the API (PORT ${idle}) did not answer`);
    }, TIMEOUT);
});
