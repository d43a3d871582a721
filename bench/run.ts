/**
 * Benchmark dispatcher: `npm run bench [-- [--quick] [suite...]]`. Each suite module exports
 * `run(options)` returning report rows; suites load lazily so one suite's setup (a server, a
 * database) never runs when another is picked.
 */
import { parseArgs } from 'node:util';
import { environmentLines, formatTable, type BenchOptions, type BenchResult } from './harness.js';

type Suite = (options: BenchOptions) => Promise<BenchResult[]>;

const SUITES: Record<string, () => Promise<Suite>> = {
    access: async () => (await import('./access.bench.js')).run,
};

function usage(): string {
    return `usage: npm run bench -- [--quick] [${Object.keys(SUITES).join('|')} ...]`;
}

function readArguments(): { options: BenchOptions; suites: string[] } {
    const { values, positionals } = parseArgs({
        options: { quick: { type: 'boolean', default: false }, help: { type: 'boolean', default: false } },
        allowPositionals: true,
    });
    if (values.help) {
        console.log(usage());
        process.exit(0);
    }
    const unknown = positionals.filter((name) => !(name in SUITES));
    if (unknown.length > 0) throw new Error(`unknown suite ${unknown.join(', ')}; ${usage()}`);
    return { options: { quick: values.quick }, suites: positionals.length > 0 ? positionals : Object.keys(SUITES) };
}

async function main(): Promise<void> {
    const { options, suites } = readArguments();
    console.log(environmentLines().join('\n'));
    console.log(`mode ${options.quick ? 'quick' : 'full'}; figures are per round, median and best of the rounds\n`);
    for (const name of suites) {
        const suite = await SUITES[name]!();
        console.log(`[${name}]`);
        console.log(formatTable(await suite(options)));
        console.log();
    }
}

main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
});
