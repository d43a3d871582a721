import type { Server } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import { createApp, type App } from './app.js';
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
 * (the admin and account consoles under /console, issue 18), `core` the API alone, `auth` the auth
 * console (the sign-in, consent, logout and device pages, which this server renders from its own
 * protocol routes: see cli.ts), `consoles` every console (the auth pages with the admin and
 * account consoles beside them) without the sweeps.
 */
export type ServedRole = 'all' | 'core' | 'auth' | 'consoles';

/** The built consoles a role serves on the API's listener. */
const consolesOf = (role: ServedRole): readonly ConsoleName[] => (role === 'all' || role === 'consoles' ? CONSOLE_NAMES : []);

/** Two processes on one port (spec "A service that fails to start"): the port and the variable that set it named. */
export class PortInUseError extends Error {
    readonly code = 'EADDRINUSE';
    constructor(port: number, host: string, variable: 'PORT' | 'WORKER_PORT' | 'CONSOLE_PORT') {
        super(`Port ${port} on ${host} (${variable}) is already in use by another process. Stop it or choose another ${variable}` +
            (variable === 'WORKER_PORT' ? ' (a worker beside an API process on the same host needs its own WORKER_PORT).' : '.'));
    }
}

async function listenOn(listen: () => Promise<unknown>, port: number, host: string, variable: 'PORT' | 'WORKER_PORT' | 'CONSOLE_PORT'): Promise<void> {
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
    // core.worker.enabled (beta.64 item 5): the background sweeps run inside the API process too;
    // the auth console process leaves them to the API or worker processes
    const worker = role !== 'auth' && role !== 'consoles' && config.worker.enabled ?
        createWorker({ db: app.deps.db, dialect: app.deps.handle.dialect, sweeps: sweepsOf(config), log: (level, detail, message) => app.app.log[level](detail, message) }) :
        undefined;
    const shutdown = async () => {
        await worker?.stop();
        await app.close();
        process.exit(0);
    };
    process.once('SIGINT', shutdown);
    process.once('SIGTERM', shutdown);
    try {
        await listenOn(() => app.app.listen({ port: config.port, host: config.host }), config.port, config.host, 'PORT');
    } catch (error) {
        await app.close();
        throw error;
    }
    worker?.start();
    return app;
}

/**
 * `start console admin|account` (issue 18): the console alone on CONSOLE_PORT, its static files and
 * runtime configuration only — no database, no API. The console then signs in at PUBLIC_URL as the
 * admin-console client with code + PKCE and calls the API there with its bearer token.
 */
export async function startConsole(config: Config, name: ConsoleName): Promise<FastifyInstance> {
    const app = Fastify({ logger: { level: config.logLevel } });
    await registerSecurityHeaders(app);
    await registerConsoles(app, { names: [name], apiUrl: config.publicUrl, consoleUrl: standaloneConsoleUrl(config)!, mode: 'token' });
    app.get('/health', { schema: { hide: true } }, () => ({ status: 'ok' }));
    const shutdown = async () => {
        await app.close();
        process.exit(0);
    };
    process.once('SIGINT', shutdown);
    process.once('SIGTERM', shutdown);
    await listenOn(() => app.listen({ port: config.console.port, host: config.host }), config.console.port, config.host, 'CONSOLE_PORT');
    return app;
}

export interface RunningWorker {
    worker: Worker;
    server: Server;
    close(): Promise<void>;
}

/** pino's numeric levels: the worker has no Fastify instance, so it writes the same JSON lines itself. */
const LEVELS: Record<string, number> = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60, silent: Infinity };

function workerLog(threshold: Config['logLevel']) {
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
        log: workerLog(config.logLevel),
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
