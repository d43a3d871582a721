/**
 * Benchmark dispatcher: `npm run bench [-- [--quick] [--db sqlite,postgres,postgres+redis,mysql] [--no-profile] [--source|--dist] [--no-write] [suite...]]`.
 * `http` (the default) is the HTTP report: the server, its references and the floors in their
 * own processes, one table, written to BENCHMARKS.md; `--db` takes one database or a
 * comma-separated list, each benched in the same pass. `access` is the detailed in-process table
 * of the access library; `client-auth` the client_credentials pair of plain secret and private_key_jwt
 * alone on SQLite (bench/client-auth.bench.ts); `protocol` the protocol scenarios and their floors on
 * each `--db` choice, without the full report's other servers (printed, never written). Suites load lazily so one suite's setup never runs when another is picked.
 */
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { environmentLines, formatTable } from './harness.js';
import { BENCH_DIALECTS, parseDatabases } from './lib/dialects.js';
import { profileMarkdown, profileText, type ProfileSummary } from './lib/profile.js';
import { formatMarkdown, formatText, machineLines, type Section } from './lib/report.js';

const SUITES = ['http', 'protocol', 'access', 'client-auth'] as const;
type SuiteName = (typeof SUITES)[number];
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

function usage(): string {
    return `usage: npm run bench -- [--quick] [--db ${BENCH_DIALECTS.join('|')}[,…]] [--no-profile] [--source|--dist] [--no-write] [${SUITES.join('|')} ...]`;
}

function readArguments() {
    const { values, positionals } = parseArgs({
        options: {
            quick: { type: 'boolean', default: false },
            db: { type: 'string', default: 'sqlite' },
            source: { type: 'boolean', default: false },
            dist: { type: 'boolean', default: false },
            'no-write': { type: 'boolean', default: false },
            'no-profile': { type: 'boolean', default: false },
            help: { type: 'boolean', default: false },
        },
        allowPositionals: true,
    });
    if (values.help) {
        console.log(usage());
        process.exit(0);
    }
    const unknown = positionals.filter((name) => !(SUITES as readonly string[]).includes(name));
    if (unknown.length > 0) throw new Error(`unknown suite ${unknown.join(', ')}; ${usage()}`);
    return {
        quick: values.quick,
        dbs: parseDatabases(values.db, positionals.length > 0 && positionals.every((name) => name === 'protocol')),
        profile: !values['no-profile'],
        // the full run measures the built server as production runs it; the quick smoke run skips the build
        source: values.source || (values.quick && !values.dist),
        write: !values['no-write'],
        suites: (positionals.length > 0 ? positionals : ['http']) as SuiteName[],
    };
}

async function runAccess(quick: boolean): Promise<void> {
    const { run } = await import('./access.bench.js');
    console.log('[access]');
    console.log(formatTable(await run({ quick })));
    console.log();
}

type Printed = { sections: Section[]; notes: string[]; profiles?: { title: string; summary: ProfileSummary }[] };

/** A suite whose report is printed, never written to BENCHMARKS.md: its progress, tables, notes and profiles. */
async function runPrintedSuite(run: (log: (line: string) => void) => Promise<Printed>): Promise<void> {
    const started = Date.now();
    const report = await run((line) => console.log(`… ${line} (${((Date.now() - started) / 1000).toFixed(0)} s)`));
    console.log();
    console.log(formatText(report.sections));
    for (const note of report.notes) console.log(`note: ${note}`);
    for (const { title, summary } of report.profiles ?? []) console.log(profileText(title, summary).join('\n'));
}

/** The client-authentication pair alone (bench/client-auth.bench.ts). */
async function runClientAuthSuite(args: ReturnType<typeof readArguments>): Promise<void> {
    const { runClientAuth } = await import('./client-auth.bench.js');
    await runPrintedSuite((log) => runClientAuth(args, log));
}

/** The protocol scenarios against their floors (http.bench.ts runProtocol). */
async function runProtocolSuite(args: ReturnType<typeof readArguments>): Promise<void> {
    const { runProtocol } = await import('./http.bench.js');
    await runPrintedSuite((log) => runProtocol(args, log));
}

async function runHttpSuite(args: ReturnType<typeof readArguments>): Promise<void> {
    const { runHttp } = await import('./http.bench.js');
    const started = Date.now();
    const report = await runHttp(args, (line) => console.log(`… ${line} (${((Date.now() - started) / 1000).toFixed(0)} s)`));
    const seconds = (Date.now() - started) / 1000;
    console.log();
    console.log(formatText(report.sections));
    console.log();
    for (const note of report.notes) console.log(`note: ${note}`);
    if (report.profiles.length > 0) {
        console.log();
        for (const { title, summary } of report.profiles) console.log(profileText(title, summary).join('\n'));
    }
    console.log(`finished in ${seconds.toFixed(0)} s`);
    if (!args.write) return;
    const flags = process.argv.slice(2).filter((flag) => flag !== '--no-write');
    const command = `npm run bench${flags.length ? ` -- ${flags.join(' ')}` : ''}`;
    const markdown = [
        '# Benchmarks',
        '',
        'Generated by `npm run bench` (see `bench/`); every ratio is taken against a figure measured in the',
        'same run on the same machine. Absolute numbers on a small shared host are noise; the ratios are the',
        'result. Load: autocannon on loopback, 10 connections, one scenario at a time; the server, bare',
        'Fastify, oidc-provider and the floors each run in their own process.',
        '',
        'The yardstick of each protocol scenario is its floor: the work its answer cannot skip and nothing',
        'else, served by `bench/references/floor.mjs` over plain `node:http` on the same database engine and',
        'driver settings as the server, in the same run — client_credentials: a constant-time Basic check, the',
        'form, one INSERT of a session row, one ES256 signature; introspection: the form, one ES256',
        'verification, one SELECT of the session by key; a bearer read (`/users/@me`, `/userinfo`): one ES256',
        'verification, one SELECT of the user by key; code redemption: one UPDATE spending a code row, one',
        'INSERT of a session row, three ES256 signatures; refresh: one UPDATE rotating a refresh row, two',
        'ES256 signatures. "Share of the floor" is the scenario\'s req/s ÷ its floor\'s; the targets bound it',
        'per database. Servers run in their default configuration, without Redis; "PostgreSQL + Redis"',
        '(`--db postgres+redis`) is one more PostgreSQL server with the Redis bus, loaded with the protocol',
        'scenarios only and measured against the PostgreSQL floors.',
        '',
        `Command: \`${command}\` (${args.quick ? 'quick' : 'full'} mode, ${args.dbs.join(', ')}, server from ${args.source ? 'source through tsx' : 'the built dist'}, ${seconds.toFixed(0)} s)`,
        '',
        ...machineLines(),
        '',
        formatMarkdown(report.sections),
        '## Notes',
        '',
        ...report.notes.map((note) => `- ${note}`),
        '',
        ...(report.profiles.length > 0 ? [
            '## CPU profiles',
            '',
            'The Realmgate server\'s own time per protocol scenario: the ten frames with the most self samples, as a share of',
            'the samples in which the process was not idle, from a V8 CPU profile taken by the server\'s inspector over one extra',
            'load after the rounds. Locations in the built dist are mapped to the TypeScript sources through their source maps.',
            '',
            ...report.profiles.flatMap(({ title, summary }) => profileMarkdown(title, summary)),
        ] : []),
    ].join('\n');
    writeFileSync(join(ROOT, 'BENCHMARKS.md'), markdown);
    console.log('wrote BENCHMARKS.md');
}

async function main(): Promise<void> {
    const args = readArguments();
    console.log(environmentLines().join('\n'));
    console.log(`mode ${args.quick ? 'quick' : 'full'}\n`);
    for (const suite of args.suites) {
        if (suite === 'access') await runAccess(args.quick);
        else if (suite === 'client-auth') await runClientAuthSuite(args);
        else if (suite === 'protocol') await runProtocolSuite(args);
        else await runHttpSuite(args);
    }
}

main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.stack ?? error.message : error);
    process.exitCode = 1;
});
