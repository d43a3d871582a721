#!/usr/bin/env node
import { loadConfig } from './config/load.js';
import { migrateDown, migrateToLatest, migrationStatus } from './db/migrate.js';
import { openDatabase } from './wire.js';
import { startServer } from './main.js';
import { wire } from './wire.js';
import { bootstrap } from './provisioning/bootstrap.js';
import { provision, provisioningDirectory } from './provisioning/provision.js';

const USAGE = `Usage: realmgate <command>

Commands:
  start                 the API on one listener (PORT, HOST)
  migration run         apply every pending migration
  migration revert      revert the latest migration
  migration status      list migrations and when they ran
  provision [path]      apply provisioning files (a file or folder; default WRITABLE_DIRECTORY_PATH/provisioning)
  --help                this text

Configuration comes from the environment (see the README's configuration table).`;

/** Start roles of the spec (core, worker, console) that this release does not ship yet. */
const LATER_ROLES = new Set(['core', 'worker', 'console']);

export class CliError extends Error {}

async function migration(operation: string | undefined): Promise<void> {
    if (operation !== 'run' && operation !== 'revert' && operation !== 'status') {
        // spec Errors: the migration command accepts run, revert and status; generate is unknown
        throw new CliError(`Unknown migration operation "${operation ?? ''}". Use run, revert or status.`);
    }
    const config = loadConfig();
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

/** `provision [path]`: migrations and bootstrap as at boot, then the files, in one transaction (issue 15 item 6). */
async function provisionCommand(path: string | undefined): Promise<void> {
    const config = loadConfig();
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

export async function runCli(argv: string[]): Promise<void> {
    const [command, ...rest] = argv;
    if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
        console.log(USAGE);
        return;
    }
    if (command === 'start') {
        const role = rest[0];
        // a mis-typed role is refused before boot (spec Errors)
        if (role !== undefined && LATER_ROLES.has(role)) throw new CliError(`The start role "${role}" is not available in this release; run "start" without a role.`);
        if (role !== undefined) throw new CliError(`Unknown start role "${role}". Roles: core, worker, console (not yet available), or none.`);
        await startServer(loadConfig());
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
    runCli(process.argv.slice(2)).catch((error: unknown) => {
        // configuration and database-setting errors name the key; print them without a stack
        const known = error instanceof CliError || (typeof error === 'object' && error !== null && 'code' in error);
        console.error(known ? (error as Error).message : error);
        process.exit(1);
    });
}
