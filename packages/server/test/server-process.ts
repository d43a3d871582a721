import { spawn, type ChildProcess } from 'node:child_process';
import { join, resolve } from 'node:path';
import { LOOPBACK_UPSTREAMS } from './loopback-upstreams.js';
import { freePort } from './network.js';

/* Server processes for the multi-process suites (replicas, crash tests): started as `realmgate start` starts. */

export const ROOT = resolve(import.meta.dirname, '../../..');
const CLI = join(ROOT, 'packages/server/src/cli.ts');

export interface ServerProcess {
    url: string;
    process: ChildProcess;
    output: string[];
    /** settles when the process has exited (with its exit code, or the signal that ended it) */
    exited: Promise<number | string>;
}

/**
 * Spawns a TypeScript entry (the CLI's `start` by default) with the environment given on top of
 * the runner's, and PORT/PUBLIC_URL of a free port. Nothing waits: see `untilReady`. No drain after
 * SIGTERM unless the caller sets SHUTDOWN_DRAIN_MS: no balancer is in front to need one.
 */
export async function spawnServer(env: Record<string, string>, args: string[] = [CLI, 'start']): Promise<ServerProcess> {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', ...args], {
        cwd: ROOT,
        env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', PUBLIC_URL: url, LOG_LEVEL: 'warn', NODE_ENV: 'test', OUTBOUND_ALLOWED_HOSTS: LOOPBACK_UPSTREAMS.join(','), SHUTDOWN_DRAIN_MS: '0', ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
    });
    const output: string[] = [];
    child.stdout!.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    const exited = new Promise<number | string>((done) => child.once('exit', (code, signal) => done(code ?? signal ?? 'unknown')));
    return { url, process: child, output, exited };
}

/** Polls `url` (the discovery route by default) until the process answers 200; rejects when it exits first. */
export async function untilReady(server: ServerProcess, url = `${server.url}/.well-known/openid-configuration`): Promise<ServerProcess> {
    let done = false;
    const exited = server.exited.then((code) => {
        if (!done) throw new Error(`server exited with ${code}: ${server.output.join('')}`);
    });
    const ready = (async () => {
        while (!done) {
            try {
                if ((await fetch(url)).status === 200) return;
            } catch {
                // not listening yet
            }
            await new Promise((wake) => setTimeout(wake, 100));
        }
    })();
    try {
        await Promise.race([ready, exited]);
    } finally {
        done = true;
    }
    return server;
}

export async function startServer(env: Record<string, string>): Promise<ServerProcess> {
    return untilReady(await spawnServer(env));
}

/** SIGTERM (a graceful stop) and wait for the exit. */
export async function stopServer(server: ServerProcess | undefined): Promise<void> {
    if (!server || server.process.exitCode !== null || server.process.signalCode !== null) return;
    server.process.kill('SIGTERM');
    await server.exited;
}

/** `kill -9`: no handler runs, nothing is flushed; resolves once the process is gone. */
export async function killServer(server: ServerProcess): Promise<void> {
    if (server.process.exitCode === null && server.process.signalCode === null) server.process.kill('SIGKILL');
    await server.exited;
}
