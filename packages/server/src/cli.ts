#!/usr/bin/env node
import { withoutDeprecatedPrefix } from './config/container-command.js';
import { ConfigError, loadBootConfig } from './config/load.js';
import type { Config } from './config/schema.js';
import { transportSettings } from './mail/transport.js';
import { migrateDown, migrateToLatest, migrationStatus } from './db/migrate.js';
import { openDatabase } from './wire.js';
import { processLog, startConsoles, startServer, startWorker, type ConsoleRole, type ServedRole } from './main.js';
import { applyHeapGrowth, describeHeapGrowth, type HeapGrowth } from './runtime/heap-growth.js';
import { wire } from './wire.js';
import { bootstrap } from './provisioning/bootstrap.js';
import { provision, provisioningDirectory } from './provisioning/provision.js';

const USAGE = `Usage: realmgate <command>

Commands:
  start                 the API and every console on one listener (PORT, HOST): /console/admin, /console/account
                        and the auth pages; the sweeps in process
  start core            the API alone (PORT, HOST); the sweeps in process
  start worker          the background sweeps and a health listener (GET / on WORKER_PORT); no migrations
  start console [name]  one console alone, none of the API: admin or account on CONSOLE_PORT, signing in at
                        PUBLIC_URL; auth (the sign-in, consent, logout and device pages) on CONSOLE_AUTH_PORT;
                        no name: admin and account on CONSOLE_PORT and auth on CONSOLE_AUTH_PORT
  migration run         apply every pending migration
  migration revert      revert the latest migration
  migration status      list migrations and when they ran
  provision [path]      apply provisioning files (a file or folder; default WRITABLE_DIRECTORY_PATH/provisioning)
  --help                this text

Configuration comes from the environment and realmgate.config.json / .yaml or CONFIG_FILE (see docs/operations/deploy.md).`;

export class CliError extends Error {}

/**
 * The file and the environment (config/load.ts), then the file's smtp object checked member by
 * member by the mailer's own reader, so a bad member stops the boot naming the file too.
 */
export function readConfig(env: Record<string, string | undefined> = process.env, cwd: string = process.cwd()): Config {
    const config = loadBootConfig(env, cwd);
    if (typeof config.smtp === 'object') {
        try {
            transportSettings(config.smtp, config.publicUrl);
        } catch (error) {
            if (error instanceof ConfigError) throw new ConfigError('smtp', `${error.message.replace(/\.$/, '')} (in ${config.configFile}).`);
            throw error;
        }
    }
    return config;
}

/** What `start [role]` runs (spec beta.64 item 5). */
export type StartRole = { kind: 'serve'; role: ServedRole } | { kind: 'worker' } | { kind: 'console'; names: readonly ConsoleRole[] };

/** The consoles of the spec: the admin and account consoles, the auth pages. */
const CONSOLES: readonly ConsoleRole[] = ['admin', 'account', 'auth'];

/**
 * The role of `start` from its arguments, refused before anything boots when mis-typed (spec
 * Errors: "a mis-typed start role is refused before boot"). `start console [admin|account|auth]`
 * is "one console service, or every enabled one, each on its own port" (spec beta.64 item 5): the
 * console alone, none of the API (main.ts startConsoles).
 */
export function parseStartRole(args: readonly string[]): StartRole {
    const [role, name, ...extra] = args;
    const unexpected = role === 'console' ? extra : [name, ...extra].filter((arg) => arg !== undefined);
    if (unexpected.length > 0) throw new CliError(`Unexpected argument "${unexpected[0]}" after "start ${role}".`);
    if (role === undefined) return { kind: 'serve', role: 'all' };
    if (role === 'core') return { kind: 'serve', role: 'core' };
    if (role === 'worker') return { kind: 'worker' };
    if (role === 'console') {
        if (name === undefined) return { kind: 'console', names: CONSOLES };
        const named = CONSOLES.find((console) => console === name);
        if (named === undefined) throw new CliError(`Unknown console "${name}". Consoles: ${CONSOLES.join(', ')}.`);
        return { kind: 'console', names: [named] };
    }
    throw new CliError(`Unknown start role "${role}". Roles: core, worker, console [admin|account|auth], or none.`);
}

async function migration(operation: string | undefined): Promise<void> {
    if (operation !== 'run' && operation !== 'revert' && operation !== 'status') {
        // spec Errors: the migration command accepts run, revert and status; generate is unknown
        throw new CliError(`Unknown migration operation "${operation ?? ''}". Use run, revert or status.`);
    }
    const config = readConfig();
    const handle = await openDatabase(config);
    try {
        if (operation === 'run') {
            const applied = await migrateToLatest(handle);
            console.log(applied.length ? `Applied: ${applied.join(', ')}` : 'Nothing to apply.');
        } else if (operation === 'revert') {
            const reverted = await migrateDown(handle);
            console.log(reverted.length ? `Reverted: ${reverted.join(', ')}` : 'Nothing to revert.');
        } else {
            for (const entry of await migrationStatus(handle)) {
                console.log(`${entry.name}  ${entry.executedAt ? entry.executedAt.toISOString() : 'pending'}`);
            }
        }
    } finally {
        await handle.destroy();
    }
}

/** `provision [path]`: migrations and bootstrap as at boot, then the files, in one transaction (spec Versioning "provisioning createOnly"). */
async function provisionCommand(path: string | undefined): Promise<void> {
    const config = readConfig();
    const deps = await wire(config);
    try {
        await bootstrap(deps);
        const summary = await provision(deps, path ?? provisioningDirectory(config));
        console.log(`Applied ${summary.files} file(s): ${summary.created} created, ${summary.updated} updated, ${summary.bound} bindings added.`);
    } finally {
        await deps.limits.close();
        await deps.handle.destroy();
    }
}

export interface CliOptions {
    /**
     * Sets this process's V8 heap growth at `start` (runtime/heap-growth.ts). The process entry
     * passes it; tests calling runCli in their own process leave it out.
     */
    tuneHeap?: (config: Config) => HeapGrowth;
}

export async function runCli(argv: string[], options: CliOptions = {}): Promise<void> {
    const { args, deprecation } = withoutDeprecatedPrefix(argv);
    if (deprecation !== undefined) console.warn(deprecation);
    const [command, ...rest] = args;
    if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
        console.log(USAGE);
        return;
    }
    if (command === 'start') {
        // a mis-typed role is refused before the configuration is even read (spec Errors)
        const role = parseStartRole(rest);
        const config = readConfig();
        // before the boot's own allocations (migrations, keys): V8 applies it from its next collection
        const heap = options.tuneHeap?.(config);
        if (role.kind === 'worker') await startWorker(config);
        else if (role.kind === 'console') await startConsoles(config, role.names);
        else await startServer(config, role.role);
        if (heap) {
            const detail = { heap: { memoryBytes: heap.memory.bytes, memorySource: heap.memory.source, growingPercent: heap.percent ?? null } };
            processLog(config.logLevel)('info', detail, describeHeapGrowth(heap));
        }
        return;
    }
    if (command === 'migration') {
        await migration(rest[0]);
        return;
    }
    if (command === 'provision') {
        await provisionCommand(rest[0]);
        return;
    }
    throw new CliError(`Unknown command "${command}".\n\n${USAGE}`);
}

const invokedDirectly = process.argv[1] !== undefined && /cli\.(js|ts)$/.test(process.argv[1]);
if (invokedDirectly) {
    runCli(process.argv.slice(2), { tuneHeap: (config) => applyHeapGrowth(config.heapGrowingPercent) }).catch((error: unknown) => {
        // configuration and database-setting errors name the key; print them without a stack
        const known = error instanceof CliError || (typeof error === 'object' && error !== null && 'code' in error);
        console.error(known ? (error as Error).message : error);
        process.exit(1);
    });
}
