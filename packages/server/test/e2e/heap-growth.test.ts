import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeHeapGrowth, heapGrowthFor } from '../../src/runtime/heap-growth.js';
import { memoryLimitOf, readMemorySources } from '../../src/runtime/memory-limit.js';
import { ROOT, spawnServer, stopServer, untilReady, type ServerProcess } from '../server-process.js';

const TIMEOUT = 120_000;
const CLI = join(ROOT, 'packages/server/src/cli.ts');
/** how the test processes run TypeScript (server-process.ts): the references run node the same way */
const NODE_ARGS = ['--conditions=source', '--import', 'tsx'];

/**
 * V8 flags cannot be read back, but v8.cachedDataVersionTag() hashes every V8 flag in force (the
 * ones set at run time too): the started process's tag equals the tag of a node given the expected
 * flags on its command line. Written when the process exits, beside its heap limit.
 */
const PROBE = `
import { writeFileSync } from 'node:fs';
import v8 from 'node:v8';
process.on('exit', () => writeFileSync(process.env.HEAP_PROBE_FILE, JSON.stringify({ tag: v8.cachedDataVersionTag(), limit: v8.getHeapStatistics().heap_size_limit })));
`;
const PROBE_ARGS = ['--import', `data:text/javascript,${encodeURIComponent(PROBE)}`];

interface HeapProbe {
    tag: number;
    limit: number;
}

/** A plain node with `flags` (and NODE_OPTIONS): what a process started that way reports. */
function reference(flags: string[], nodeOptions = ''): HeapProbe {
    const script = 'const v8 = require("node:v8"); console.log(JSON.stringify({ tag: v8.cachedDataVersionTag(), limit: v8.getHeapStatistics().heap_size_limit }))';
    const run = spawnSync(process.execPath, [...NODE_ARGS, ...flags, '-e', script], { cwd: ROOT, env: { ...process.env, NODE_OPTIONS: nodeOptions }, encoding: 'utf8' });
    if (run.status !== 0) throw new Error(run.stderr);
    return JSON.parse(run.stdout) as HeapProbe;
}

/**
 * `realmgate start` sets V8's heap growth in its own process (docs/operations/memory.md): the server as
 * `npm start`, the image and the bench start it — no flag — gets it; HEAP_GROWING_PERCENT=0 and a
 * heap size the operator passed in NODE_OPTIONS leave V8 its own.
 */
describe('the heap growth of a started server process', () => {
    let directory: string;
    const servers: ServerProcess[] = [];
    beforeAll(async () => {
        directory = await mkdtemp(join(tmpdir(), 'realmgate-heap-'));
    });
    afterAll(async () => {
        await Promise.all(servers.map(stopServer));
        if (directory) await rm(directory, { recursive: true, force: true });
    }, TIMEOUT);

    /** boots `start` on a fresh SQLite folder, stops it, and returns what its process had and logged */
    async function startAndStop(name: string, nodeOptions: string, extra: Record<string, string> = {}): Promise<{ probe: HeapProbe; output: string }> {
        const probeFile = join(directory, `${name}.json`);
        const env = { WRITABLE_DIRECTORY_PATH: join(directory, name), NODE_OPTIONS: nodeOptions, LOG_LEVEL: 'info', HEAP_PROBE_FILE: probeFile, ...extra };
        const server = await untilReady(await spawnServer(env, [...PROBE_ARGS, CLI, 'start']));
        servers.push(server);
        await stopServer(server);
        return { probe: JSON.parse(await readFile(probeFile, 'utf8')) as HeapProbe, output: server.output.join('') };
    }

    it('runs with the growth derived from this machine\'s memory, and logs it', async () => {
        const expected = heapGrowthFor(memoryLimitOf(readMemorySources()), undefined);
        const { probe, output } = await startAndStop('derived', '');
        const flags = expected.percent === undefined ? [] : [`--heap-growing-percent=${expected.percent}`];
        expect(probe.tag).toBe(reference(flags).tag);
        // the tag does tell the flag apart (on a machine with more than 1 GiB, where one is set)
        if (expected.percent !== undefined) expect(reference([]).tag).not.toBe(probe.tag);
        expect(output).toContain(describeHeapGrowth(expected));
    }, TIMEOUT);

    it('HEAP_GROWING_PERCENT=0 leaves V8 its own growth', async () => {
        const { probe, output } = await startAndStop('v8-own', '', { HEAP_GROWING_PERCENT: '0' });
        expect(probe.tag).toBe(reference([]).tag);
        expect(output).toContain('V8 heap growth left to V8, as HEAP_GROWING_PERCENT=0 asks');
    }, TIMEOUT);

    it('keeps the heap size given in NODE_OPTIONS and adds no growth of its own', async () => {
        const { probe, output } = await startAndStop('explicit', '--max-old-space-size=256');
        const expected = reference([], '--max-old-space-size=256');
        expect(probe).toEqual(expected);
        expect(probe.limit).toBeLessThan(reference([]).limit);
        expect(output).toContain('V8 heap growth left to --max-old-space-size');
    }, TIMEOUT);
});
