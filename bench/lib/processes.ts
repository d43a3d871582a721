/**
 * Child processes for the HTTP benchmarks: the server under test and each reference run in their
 * own process, so a measurement never shares an event loop with the load generator.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

export interface Service {
    name: string;
    url: string;
    child: ChildProcess;
    /** ms from spawn to the first answer with the awaited status */
    bootMs: number;
    stop(): Promise<void>;
}

export interface StartOptions {
    name: string;
    args: string[];
    env: NodeJS.ProcessEnv;
    port: number;
    /** polled until it answers `readyStatus` */
    readyPath: string;
    readyStatus?: number;
    timeoutMs?: number;
    /** an IPC channel to the child (the bench's instrumentation preload answers on it) */
    ipc?: boolean;
}

/** A port nothing listens on right now, for a child to listen on. */
export async function freePort(): Promise<number> {
    return new Promise((resolve, reject) => {
        const server = createServer();
        server.once('error', reject);
        server.listen(0, '127.0.0.1', () => {
            const { port } = server.address() as { port: number };
            server.close(() => resolve(port));
        });
    });
}

/** The resident set of a process in bytes (Linux /proc); undefined elsewhere. */
export function rssOf(pid: number | undefined): number | undefined {
    if (pid === undefined) return undefined;
    try {
        const match = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
        return match ? Number(match[1]) * 1024 : undefined;
    } catch {
        return undefined;
    }
}

export async function startService(options: StartOptions): Promise<Service> {
    const url = `http://127.0.0.1:${options.port}`;
    const started = process.hrtime.bigint();
    const child = spawn(process.execPath, options.args, { env: options.env, stdio: ['ignore', 'pipe', 'pipe', ...(options.ipc ? ['ipc' as const] : [])] });
    // keep the tail of the output: it is the only clue when a boot fails
    let output = '';
    const keep = (chunk: Buffer) => {
        output = (output + chunk.toString('utf8')).slice(-4000);
    };
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    let exited = false;
    child.once('exit', () => {
        exited = true;
    });

    const deadline = Date.now() + (options.timeoutMs ?? 30_000);
    for (;;) {
        if (exited) throw new Error(`${options.name} exited during boot:\n${output}`);
        try {
            const response = await fetch(`${url}${options.readyPath}`);
            await response.arrayBuffer();
            if (response.status === (options.readyStatus ?? 200)) break;
        } catch {
            // not listening yet
        }
        if (Date.now() > deadline) {
            child.kill('SIGKILL');
            throw new Error(`${options.name} did not answer ${options.readyPath} in time:\n${output}`);
        }
        await sleep(5);
    }
    const bootMs = Number(process.hrtime.bigint() - started) / 1e6;

    return {
        name: options.name,
        url,
        child,
        bootMs,
        async stop() {
            if (exited) return;
            const exit = once(child, 'exit');
            child.kill('SIGTERM');
            const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
            await exit;
            clearTimeout(timer);
        },
    };
}
