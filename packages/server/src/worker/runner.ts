import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { DialectName } from '../db/values.js';
import { releaseLeases, takeLease } from '../storage/worker-leases.js';
import type { Sweep } from './sweeps.js';

/** How often each sweep runs (spec Events 2: the aggregates are filled every minute). */
export const SWEEP_INTERVAL_MS = 60_000;

/** spec Limits "worker health": 503 once a sweep has gone this long without a successful pass. */
export const HEALTH_WINDOW_MS = 5 * 60_000;

export interface WorkerOptions {
    db: Kysely<Database>;
    dialect: DialectName;
    sweeps: readonly Sweep[];
    /** the clock of leases and health (tests move it instead of waiting) */
    now?: () => number;
    /** this process's name in auth_worker_leases.holder (default a random UUID) */
    holder?: string;
    intervalMs?: number;
    log?: (level: 'info' | 'warn', detail: Record<string, unknown>, message: string) => void;
}

export interface SweepHealth {
    name: string;
    /** the last pass that completed, here or (lease held) by another worker */
    lastSuccessAt: string;
    lastError?: string;
}

export interface WorkerHealth {
    ok: boolean;
    sweeps: SweepHealth[];
}

export interface Worker {
    /** one pass of every sweep (each under its lease); resolves when all have finished */
    runOnce(): Promise<void>;
    /** runs a pass now and then every interval until stop() */
    start(): void;
    /** stops the timer, waits for a running pass and gives up this worker's leases */
    stop(): Promise<void>;
    health(): WorkerHealth;
}

/**
 * The worker (spec beta.64 item 5): every sweep of the registry once per
 * interval, each under a database lease so several workers on one database do not run the same
 * sweep twice. The lease is held for one interval: the worker that takes it runs that minute's
 * pass, and renews it on its next one; a worker that died is replaced once its lease runs out.
 * A pass skipped because another worker holds the lease counts as successful for health: the
 * database answered, and the sweep is being run.
 */
export function createWorker(options: WorkerOptions): Worker {
    const now = options.now ?? Date.now;
    const holder = options.holder ?? randomUUID();
    const interval = options.intervalMs ?? SWEEP_INTERVAL_MS;
    const started = now();
    const state = new Map<string, { lastSuccess: number; lastError?: string }>(options.sweeps.map((sweep) => [sweep.name, { lastSuccess: started }]));
    let timer: NodeJS.Timeout | undefined;
    let running: Promise<void> | undefined;

    const pass = async (sweep: Sweep): Promise<void> => {
        const entry = state.get(sweep.name)!;
        const at = now();
        try {
            if (await takeLease(options.db, options.dialect, sweep.name, holder, new Date(at), new Date(at + interval))) {
                const count = await sweep.run({ db: options.db, dialect: options.dialect, now: new Date(at) });
                if (count > 0) options.log?.('info', { sweep: sweep.name, count }, 'sweep pass');
            }
            entry.lastSuccess = at;
            delete entry.lastError;
        } catch (error) {
            entry.lastError = (error as Error).message;
            options.log?.('warn', { sweep: sweep.name, err: error }, 'sweep pass failed');
        }
    };

    const runOnce = async (): Promise<void> => {
        // one pass at a time: a slow pass is not overlapped by the next tick
        running ??= (async () => {
            for (const sweep of options.sweeps) await pass(sweep);
        })().finally(() => {
            running = undefined;
        });
        return running;
    };

    return {
        runOnce,
        start() {
            if (timer) return;
            void runOnce();
            timer = setInterval(() => void runOnce(), interval);
            // the listener (or the API) keeps the process alive, not the sweep timer
            timer.unref();
        },
        async stop() {
            clearInterval(timer);
            timer = undefined;
            await running;
            await releaseLeases(options.db, holder).catch(() => undefined);
        },
        health() {
            const at = now();
            const sweeps = [...state].map(([name, entry]) => ({
                name, lastSuccessAt: new Date(entry.lastSuccess).toISOString(), ...(entry.lastError ? { lastError: entry.lastError } : {}),
            }));
            return { ok: [...state.values()].every((entry) => at - entry.lastSuccess < HEALTH_WINDOW_MS), sweeps };
        },
    };
}
