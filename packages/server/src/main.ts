import type { Server } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import { createApp, type App } from './app.js';
import { installGracefulShutdown } from './runtime/graceful-shutdown.js';
import { CONSOLE_NAMES, standaloneConsoleUrl, type ConsoleName } from './config/consoles.js';
import type { Config } from './config/schema.js';
import { registerConsoles } from './http/consoles.js';
import { registerSecurityHeaders } from './http/security-headers.js';
import { openDatabase } from './wire.js';
import { createHealthServer } from './worker/health-listener.js';
import { createWorker, type Worker } from './worker/runner.js';
import { sweepsOf } from './worker/sweeps.js';

/**
 * What `start` serves (spec beta.64 item 5): `all` is the API with every console on one listener
 * (the admin and account consoles under /console, and the auth pages), `core` the API
 * alone (its protocol routes render the auth pages). A console alone is `start console`: startConsoles.
 */
export type ServedRole = 'all' | 'core';

/** The consoles `start console [name]` runs: the built admin and account consoles, and the auth pages. */
export type ConsoleRole = ConsoleName | 'auth';

/** The built consoles a role serves on the API's listener. */
const consolesOf = (role: ServedRole): readonly ConsoleName[] => (role === 'all' ? CONSOLE_NAMES : []);

type PortVariable = 'PORT' | 'WORKER_PORT' | 'CONSOLE_PORT' | 'CONSOLE_AUTH_PORT';

/** Two processes on one port (spec "A service that fails to start"): the port and the variable that set it named. */
export class PortInUseError extends Error {
    readonly code = 'EADDRINUSE';
    constructor(port: number, host: string, variable: PortVariable) {
        super(`Port ${port} on ${host} (${variable}) is already in use by another process. Stop it or choose another ${variable}` +
            (variable === 'WORKER_PORT' ? ' (a worker beside an API process on the same host needs its own WORKER_PORT).' : '.'));
    }
}

async function listenOn(listen: () => Promise<unknown>, port: number, host: string, variable: PortVariable): Promise<void> {
    try {
        await listen();
    } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') throw new PortInUseError(port, host, variable);
        throw error;
    }
}

/** loadConfig() → createApp() → listen(); nothing else (DESIGN.md §3). The sweeps run in process when WORKER_ENABLED. */
export async function startServer(config: Config, role: ServedRole = 'all'): Promise<App> {
    const app = await createApp(config, { consoles: consolesOf(role) });
    // core.worker.enabled (beta.64 item 5): the background sweeps run inside the API process too
    const worker = config.worker.enabled ?
        createWorker({ db: app.deps.db, dialect: app.deps.handle.dialect, sweeps: sweepsOf(config), log: (level, detail, message) => app.app.log[level](detail, message) }) :
        undefined;
    // SIGTERM drains (API.md §8): not ready at once, serving for SHUTDOWN_DRAIN_MS, then closed in order
    const shutdown = installGracefulShutdown({
        drainMs: config.shutdownDrainMs,
        beginDrain: () => app.deps.lifecycle.beginDrain(),
        close: async () => {
            await worker?.stop();
            await app.close();
        },
        log: (level, detail, message) => app.app.log[level](detail, message),
        exit: (code) => process.exit(code),
    });
    try {
        await listenOn(() => app.app.listen({ port: config.port, host: config.host }), config.port, config.host, 'PORT');
    } catch (error) {
        shutdown.uninstall();
        await app.close();
        throw error;
    }
    worker?.start();
    return app;
}

/**
 * The admin and/or account console alone: their static files and runtime configuration,
 * no database, no API. The console signs in at PUBLIC_URL as the admin-console client with code +
 * PKCE and calls the API there with its bearer token.
 */
async function createBuiltConsoles(config: Config, names: readonly ConsoleName[]): Promise<FastifyInstance> {
    const app = Fastify({ logger: { level: config.logLevel } });
    const consoleUrl = standaloneConsoleUrl(config)!;
    await registerSecurityHeaders(app, consoleUrl);
    await registerConsoles(app, { names, apiUrl: config.publicUrl, consoleUrl, mode: 'token' });
    app.get('/health', { schema: { hide: true } }, () => ({ status: 'ok' }));
    return app;
}

export interface RunningConsoles {
    close(): Promise<void>;
}

/**
 * `start console [admin|account|auth]` (spec beta.64 item 5: "one console service, or every enabled
 * one, each on its own port"): each console alone, none of the API. The admin and account consoles
 * (one build, reached at CONSOLE_PUBLIC_URL, which bootstrap registers for both) share CONSOLE_PORT;
 * the auth console — the sign-in, consent, logout and device pages, on the API's database — listens
 * on CONSOLE_AUTH_PORT. Without a name all three run, so the two ports must differ (refused before boot).
 */
export async function startConsoles(config: Config, names: readonly ConsoleRole[]): Promise<RunningConsoles> {
    const built = CONSOLE_NAMES.filter((name) => names.includes(name));
    const auth = names.includes('auth');
    if (built.length > 0 && auth && config.console.port === config.console.authPort) {
        throw Object.assign(new Error(
            `start console runs the auth console on its own port: set CONSOLE_AUTH_PORT apart from CONSOLE_PORT (both ${config.console.port}).`,
        ), { code: 'CONSOLE_PORTS' });
    }
    const closers: (() => Promise<unknown>)[] = [];
    const close = async () => {
        for (const closer of closers.reverse()) await closer();
    };
    try {
        if (built.length > 0) {
            const app = await createBuiltConsoles(config, built);
            closers.push(() => app.close());
            await listenOn(() => app.listen({ port: config.console.port, host: config.host }), config.console.port, config.host, 'CONSOLE_PORT');
        }
        if (auth) {
            const app = await createApp(config, { surface: 'auth-console' });
            closers.push(() => app.close());
            await listenOn(() => app.app.listen({ port: config.console.authPort, host: config.host }), config.console.authPort, config.host, 'CONSOLE_AUTH_PORT');
        }
    } catch (error) {
        await close();
        throw error;
    }
    const shutdown = async () => {
        await close();
        process.exit(0);
    };
    process.once('SIGINT', shutdown);
    process.once('SIGTERM', shutdown);
    return { close };
}

export interface RunningWorker {
    worker: Worker;
    server: Server;
    close(): Promise<void>;
}

/** pino's numeric levels: the worker (and the CLI before a role runs) has no Fastify instance, so it writes the same JSON lines itself. */
const LEVELS: Record<string, number> = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60, silent: Infinity };

export function processLog(threshold: Config['logLevel']) {
    return (level: 'info' | 'warn', detail: Record<string, unknown>, message: string): void => {
        if (LEVELS[level]! < LEVELS[threshold]!) return;
        const err = detail.err instanceof Error ? { err: { message: detail.err.message } } : {};
        process.stdout.write(`${JSON.stringify({ level: LEVELS[level], time: Date.now(), pid: process.pid, ...detail, ...err, msg: message })}\n`);
    };
}

/**
 * `start worker` (spec beta.64 item 5, beta.68 item 1): the sweeps and the health listener on
 * WORKER_PORT, no API and no migrations (the API process migrates); refused while WORKER_ENABLED is false.
 */
export async function startWorker(config: Config): Promise<RunningWorker> {
    if (!config.worker.enabled) {
        throw Object.assign(new Error('WORKER_ENABLED is false: the worker role refuses to start (set WORKER_ENABLED=true for this process).'), { code: 'WORKER_DISABLED' });
    }
    const handle = await openDatabase(config);
    const worker = createWorker({
        db: handle.db, dialect: handle.dialect, sweeps: sweepsOf(config),
        log: processLog(config.logLevel),
    });
    const server = createHealthServer(() => worker.health());
    try {
        await listenOn(() => new Promise<void>((resolve, reject) => {
            server.once('error', reject);
            server.listen(config.worker.port, config.host, () => resolve());
        }), config.worker.port, config.host, 'WORKER_PORT');
    } catch (error) {
        await handle.destroy();
        throw error;
    }
    worker.start();
    const close = async () => {
        await worker.stop();
        await new Promise<void>((resolve) => server.close(() => resolve()));
        await handle.destroy();
    };
    const shutdown = async () => {
        await close();
        process.exit(0);
    };
    process.once('SIGINT', shutdown);
    process.once('SIGTERM', shutdown);
    return { worker, server, close };
}
