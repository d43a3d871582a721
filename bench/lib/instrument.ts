/**
 * The bench side of instrument-child.mjs: the node options that preload it into a Realmgate server
 * process, and the questions asked over its IPC channel (statements sent and responses finished so
 * far, a CPU profile). Counting is always on for Realmgate servers; profiling runs only on request.
 */
import type { ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, '../..');

/** node arguments that preload the counters (before the server's own entry and loaders) */
export const INSTRUMENT_ARGS = ['--import', pathToFileURL(join(HERE, 'instrument-child.mjs')).href];
/** where the preload resolves the database drivers from: the server package, as the server does */
export const INSTRUMENT_ENV = { BENCH_SERVER_PACKAGE: join(ROOT, 'packages/server') };

export interface Counters {
    /** statements handed to the driver (one round trip each on PostgreSQL and MySQL) */
    queries: number;
    /** HTTP responses the server finished */
    responses: number;
    /** false when the driver could not be patched (its figures are then meaningless) */
    instrumented: boolean;
}

/** A V8 CPU profile as the inspector returns it (the fields the summary reads). */
export interface CpuProfile {
    nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number }; hitCount?: number }[];
    startTime: number;
    endTime: number;
    samples?: number[];
}

let nextId = 0;

function ask<T>(child: ChildProcess, type: string, payload: Record<string, unknown> = {}, timeoutMs = 30_000): Promise<T> {
    if (!child.send || !child.connected) return Promise.reject(new Error('the server process has no IPC channel'));
    const id = ++nextId;
    return new Promise<T>((resolve, reject) => {
        const timer = setTimeout(() => {
            child.off('message', listen);
            reject(new Error(`the server did not answer ${type} in time`));
        }, timeoutMs);
        const listen = (message: unknown) => {
            const answer = message as { id?: number; error?: string } & T;
            if (answer?.id !== id) return;
            clearTimeout(timer);
            child.off('message', listen);
            if (answer.error !== undefined) reject(new Error(answer.error));
            else resolve(answer);
        };
        child.on('message', listen);
        child.send({ id, type, ...payload });
    });
}

export const readCounters = (child: ChildProcess): Promise<Counters> => ask<Counters>(child, 'counters');

export async function startProfile(child: ChildProcess, intervalMicros: number): Promise<void> {
    await ask(child, 'profileStart', { intervalMicros });
}

export async function stopProfile(child: ChildProcess): Promise<CpuProfile> {
    return (await ask<{ profile: CpuProfile }>(child, 'profileStop', {}, 60_000)).profile;
}
