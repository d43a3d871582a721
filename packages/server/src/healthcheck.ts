#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import { withoutDeprecatedPrefix } from './config/container-command.js';
import { loadBootConfig } from './config/load.js';
import type { Config } from './config/schema.js';

/*
 * The image's HEALTHCHECK (spec v1.0.0-beta.64 item 6, beta.68 item 1): probes the listener of the
 * role the container runs — GET /health on PORT for `start` and `start core`, on CONSOLE_PORT for
 * `start console admin|account`, on CONSOLE_AUTH_PORT for `start console auth`, on both for
 * `start console`, the worker's GET / on WORKER_PORT for `start worker` — with the configuration the server reads (the
 * same file and environment). The image's command is the CLI's argument list, so the role is read
 * from the command line of the container's first process (`--pid` names another, for tests);
 * arguments given to this script override it. Exit 0 healthy, 1 not.
 */

interface Probe {
    url: string;
    /** what the probe checks, for the one-line answer */
    what: string;
}

/** The CLI arguments in a process command line: what follows the CLI script (`…/cli.js start worker`). */
function cliArguments(commandLine: readonly string[]): string[] | null {
    const script = commandLine.findIndex((arg) => /(^|\/)(cli\.(js|ts)|realmgate)$/.test(arg));
    return script === -1 ? null : commandLine.slice(script + 1);
}

/** The address to probe: a wildcard listener is reached on loopback. */
function probeHost(host: string): string {
    if (host === '0.0.0.0' || host === '' || host === '::') return '127.0.0.1';
    return host.includes(':') ? `[${host}]` : host;
}

function probesOf(config: Config, args: readonly string[]): Probe[] {
    const host = probeHost(config.host);
    if (args[0] === 'start' && args[1] === 'worker') {
        return [{ url: `http://${host}:${config.worker.port}/`, what: `the worker's health listener (WORKER_PORT ${config.worker.port})` }];
    }
    if (args[0] === 'start' && args[1] === 'console') {
        // each console on its own port (main.ts startConsoles): admin and account on CONSOLE_PORT, auth on CONSOLE_AUTH_PORT
        const built = { url: `http://${host}:${config.console.port}/health`, what: `the ${args[2] ?? 'admin and account'} console (CONSOLE_PORT ${config.console.port})` };
        const auth = { url: `http://${host}:${config.console.authPort}/health`, what: `the auth console (CONSOLE_AUTH_PORT ${config.console.authPort})` };
        if (args[2] === 'auth') return [auth];
        return args[2] === undefined ? [built, auth] : [built];
    }
    return [{ url: `http://${host}:${config.port}/health`, what: `the API (PORT ${config.port})` }];
}

async function probe({ url, what }: Probe): Promise<{ healthy: boolean; message: string }> {
    try {
        const response = await fetch(url, { signal: AbortSignal.timeout(5000) });
        await response.body?.cancel();
        return { healthy: response.status === 200, message: `${what} answered ${response.status} at ${url}` };
    } catch (error) {
        return { healthy: false, message: `${what} did not answer at ${url}: ${(error as Error).message}` };
    }
}

function commandLineOf(pid: string): string[] {
    try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter((arg) => arg !== '');
    } catch {
        return [];
    }
}

/** This script's own arguments: `--pid <n>` and/or the CLI arguments (`start worker`). */
function parseOwnArguments(argv: readonly string[]): { pid: string; args: string[] } {
    const pidAt = argv.indexOf('--pid');
    const pid = pidAt === -1 ? '1' : argv[pidAt + 1] ?? '1';
    const args = pidAt === -1 ? [...argv] : [...argv.slice(0, pidAt), ...argv.slice(pidAt + 2)];
    return { pid, args };
}

async function runHealthcheck(argv: readonly string[], env: Record<string, string | undefined>, cwd: string): Promise<{ healthy: boolean; message: string }> {
    const own = parseOwnArguments(argv);
    // no role named and no CLI process found: `start`, the image's default command
    const named = own.args.length > 0 ? own.args : cliArguments(commandLineOf(own.pid)) ?? ['start'];
    // the CLI runs what follows a deprecated server/core prefix: probe that role
    const { args } = withoutDeprecatedPrefix(named);
    const results = await Promise.all(probesOf(loadBootConfig(env, cwd), args).map(probe));
    return { healthy: results.every((result) => result.healthy), message: results.map((result) => result.message).join('\n') };
}

const invokedDirectly = process.argv[1] !== undefined && /healthcheck\.(js|ts)$/.test(process.argv[1]);
if (invokedDirectly) {
    runHealthcheck(process.argv.slice(2), process.env, process.cwd()).then(({ healthy, message }) => {
        (healthy ? console.log : console.error)(message);
        process.exit(healthy ? 0 : 1);
    }, (error: unknown) => {
        console.error((error as Error).message);
        process.exit(1);
    });
}
