/**
 * How far V8 lets the old generation grow past what its last full collection kept alive.
 *
 * V8 bounds that growth by the heap limit, and Node derives the limit from the memory the process
 * may use (the cgroup's, else the host's; verified on Node 20: a 512 MiB cgroup gives a 259 MB
 * limit). Up to 1 GiB of memory the limit is V8's minimum and the growth at most ×1.3; above, the
 * bound climbs towards ×4 (V8 src/heap/heap-controller.cc, MaxGrowingFactor). Realmgate keeps about
 * 50 MB alive, so on a roomy host it carried 150–250 MB of garbage it had no reason to collect yet:
 * most of the resident set the HTTP bench measured (docs/operations/memory.md).
 *
 * The heap limit cannot change once Node runs, but the growth can: V8 reads
 * `--heap-growing-percent` each time it sets the next collection's threshold. So the CLI sets it
 * in its own process at `start`, and `npm start`, the image, the compose file, `realmgate start`
 * and the bench all get it without a flag and without a second process. A heap size chosen in
 * NODE_OPTIONS (or on node's command line) wins: V8's growth for that size is then kept.
 *
 * The price is collection work: measured under the bench's loads on 2 shared cores, ×1.3 costs
 * 10–30 % more CPU per request than V8's own growth, 40–50 % on the allocation-heavy catalog
 * route. HEAP_GROWING_PERCENT trades the other way (0: V8's own).
 */
import { setFlagsFromString } from 'node:v8';
import { memoryLimitOf, readMemorySources, type MemoryLimit, type MemorySources } from './memory-limit.js';

/** ×1.3: the most V8 itself allows a heap at its minimum limit (kMinSmallFactor) */
export const HEAP_GROWING_PERCENT = 30;
/** at or below this, Node's heap limit is V8's minimum and V8 already holds the growth to ×1.3 */
const SMALL_MEMORY_BYTES = 2 ** 30;

/**
 * node flags that size the old generation or its growth: when one is given, the operator chose.
 * NODE_OPTIONS takes only the first (node refuses the others there); node's command line takes all.
 */
const HEAP_SIZING_FLAGS = ['max-old-space-size', 'max-heap-size', 'heap-growing-percent'];

export interface HeapGrowth {
    memory: MemoryLimit;
    /** the growth set, in percent; undefined when V8's own is kept */
    percent?: number;
    /** the heap-sizing flag the operator passed, when that is why V8's growth is kept */
    explicitFlag?: string;
    /** HEAP_GROWING_PERCENT, when the operator set it */
    configured?: number;
}

/** The first heap-sizing flag in NODE_OPTIONS or node's own arguments (V8 spells `-` or `_` alike). */
export function explicitHeapFlag(nodeOptions: string | undefined, execArgv: readonly string[]): string | undefined {
    const args = [...(nodeOptions ?? '').split(/\s+/), ...execArgv];
    for (const arg of args) {
        const name = /^--([\w-]+)/.exec(arg)?.[1]?.replace(/_/g, '-');
        if (name !== undefined && HEAP_SIZING_FLAGS.includes(name)) return `--${name}`;
    }
    return undefined;
}

/** A node flag wins, then HEAP_GROWING_PERCENT (0: V8's own), then the choice from the memory. */
export function heapGrowthFor(memory: MemoryLimit, explicitFlag: string | undefined, configured?: number): HeapGrowth {
    if (explicitFlag !== undefined) return { memory, explicitFlag };
    if (configured !== undefined) return configured > 0 ? { memory, configured, percent: configured } : { memory, configured };
    if (memory.bytes <= SMALL_MEMORY_BYTES) return { memory };
    return { memory, percent: HEAP_GROWING_PERCENT };
}

const inMiB = (bytes: number) => `${Math.round(bytes / 2 ** 20)} MiB`;

/** One line for the boot log. */
export function describeHeapGrowth(growth: HeapGrowth): string {
    const memory = `${growth.memory.source} memory ${inMiB(growth.memory.bytes)}`;
    const source = growth.configured !== undefined ? 'HEAP_GROWING_PERCENT' : 'Realmgate';
    if (growth.percent !== undefined) return `V8 heap growth set to ${growth.percent} % past the live heap by ${source} (${memory})`;
    if (growth.explicitFlag !== undefined) return `V8 heap growth left to ${growth.explicitFlag}, which NODE_OPTIONS or node's arguments set (${memory})`;
    if (growth.configured !== undefined) return `V8 heap growth left to V8, as HEAP_GROWING_PERCENT=0 asks (${memory})`;
    return `V8 heap growth left to V8: it holds it to ×1.3 with ${memory}`;
}

/** Decides from this process's memory, flags and HEAP_GROWING_PERCENT, and sets the growth it chose. */
export function applyHeapGrowth(
    configured: number | undefined,
    env: NodeJS.ProcessEnv = process.env,
    execArgv: readonly string[] = process.execArgv,
    sources: MemorySources = readMemorySources(),
): HeapGrowth {
    const growth = heapGrowthFor(memoryLimitOf(sources), explicitHeapFlag(env.NODE_OPTIONS, execArgv), configured);
    if (growth.percent !== undefined) setFlagsFromString(`--heap-growing-percent=${growth.percent}`);
    return growth;
}
