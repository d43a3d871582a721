import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { expect, it, onTestFinished } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
/** the short soak takes about two minutes alone; the shared CI machine gets room beyond that */
const TIMEOUT = 480_000;

/**
 * `npm run soak -- --short` (bench/soak/run.ts) on PostgreSQL with a Redis of its own: the local
 * cluster behind HAProxy under the mixed load and every fault. Run only with TEST_POSTGRES_URL
 * and TEST_REDIS_URL set (vitest.config.ts), on the PostgreSQL server TEST_POSTGRES_URL names.
 */
it('the short soak ends with every invariant held', async () => {
    const server = new URL(process.env.TEST_POSTGRES_URL!);
    server.pathname = '/';
    const child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', 'bench/soak/run.ts', '--short'], {
        cwd: ROOT, env: { ...process.env, CLUSTER_POSTGRES_URL: server.toString() }, stdio: ['ignore', 'pipe', 'pipe'],
    });
    // a run cut short by the timeout still stops its cluster and drops its database (run.ts on SIGINT)
    onTestFinished(() => {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
    });
    let output = '';
    let progress = '';
    child.stdout.on('data', (chunk: Buffer) => { output += chunk.toString(); });
    child.stderr.on('data', (chunk: Buffer) => { progress += chunk.toString(); });
    const code = await new Promise<number | null>((done) => child.once('exit', done));
    const lines = output.trimEnd().split('\n');
    expect(lines.at(-1), `${output}\n${progress}`).toBe('invariants: all held');
    expect(code).toBe(0);
}, TIMEOUT);
