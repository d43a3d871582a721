import { describe, expect, it } from 'vitest';
import { applyHeapGrowth, describeHeapGrowth, explicitHeapFlag, heapGrowthFor, HEAP_GROWING_PERCENT } from './heap-growth.js';

const MiB = 2 ** 20;
const GiB = 2 ** 30;

describe('explicitHeapFlag', () => {
    it('finds a heap size the operator passed in NODE_OPTIONS, in either spelling', () => {
        expect(explicitHeapFlag('--max-old-space-size=512', [])).toBe('--max-old-space-size');
        expect(explicitHeapFlag('--enable-source-maps --max_old_space_size=512', [])).toBe('--max-old-space-size');
    });

    it('finds one on node\'s own command line, where V8 takes the flags NODE_OPTIONS refuses', () => {
        expect(explicitHeapFlag(undefined, ['--import', 'tsx', '--max-old-space-size=300'])).toBe('--max-old-space-size');
        expect(explicitHeapFlag(undefined, ['--max-heap-size=600'])).toBe('--max-heap-size');
        // an explicit growth, V8's default included, is a choice too
        expect(explicitHeapFlag('', ['--heap-growing-percent=0'])).toBe('--heap-growing-percent');
    });

    it('sees none in other flags: the young generation\'s size leaves the old one to Realmgate', () => {
        expect(explicitHeapFlag(undefined, [])).toBeUndefined();
        expect(explicitHeapFlag('', ['--conditions=source'])).toBeUndefined();
        expect(explicitHeapFlag('--max-semi-space-size=8 --enable-source-maps', [])).toBeUndefined();
    });
});

describe('heapGrowthFor', () => {
    it('holds the growth to ×1.3 on a host or container with more than 1 GiB', () => {
        expect(heapGrowthFor({ bytes: 24 * GiB, source: 'host' }, undefined).percent).toBe(HEAP_GROWING_PERCENT);
        expect(heapGrowthFor({ bytes: 2 * GiB, source: 'cgroup v2' }, undefined).percent).toBe(30);
    });

    it('leaves V8 alone with 1 GiB or less: its minimum heap limit already holds the growth to ×1.3', () => {
        expect(heapGrowthFor({ bytes: GiB, source: 'cgroup v1' }, undefined).percent).toBeUndefined();
        expect(heapGrowthFor({ bytes: 512 * MiB, source: 'cgroup v2' }, undefined).percent).toBeUndefined();
    });

    it('takes HEAP_GROWING_PERCENT over the choice from the memory; 0 leaves V8 its own', () => {
        expect(heapGrowthFor({ bytes: 512 * MiB, source: 'cgroup v2' }, undefined, 50)).toEqual({ memory: { bytes: 512 * MiB, source: 'cgroup v2' }, configured: 50, percent: 50 });
        const v8Own = heapGrowthFor({ bytes: 24 * GiB, source: 'host' }, undefined, 0);
        expect(v8Own.percent).toBeUndefined();
        expect(describeHeapGrowth(v8Own)).toMatch(/left to V8, as HEAP_GROWING_PERCENT=0 asks/);
        expect(describeHeapGrowth(heapGrowthFor({ bytes: 24 * GiB, source: 'host' }, undefined, 80))).toMatch(/set to 80 % .* by HEAP_GROWING_PERCENT/);
    });

    it('leaves V8 alone when the operator sized the heap, whatever HEAP_GROWING_PERCENT says', () => {
        expect(heapGrowthFor({ bytes: 24 * GiB, source: 'host' }, '--max-old-space-size', 50).percent).toBeUndefined();
        const growth = heapGrowthFor({ bytes: 24 * GiB, source: 'host' }, '--max-old-space-size');
        expect(growth).toEqual({ memory: { bytes: 24 * GiB, source: 'host' }, explicitFlag: '--max-old-space-size' });
        expect(describeHeapGrowth(growth)).toMatch(/left to --max-old-space-size.*host memory 24576 MiB/);
    });
});

describe('applyHeapGrowth', () => {
    // setting the flag would change this test process: only the decisions that set nothing run here
    // (test/e2e/heap-growth.test.ts starts the CLI and reads what its process got)
    it('sets nothing when NODE_OPTIONS sizes the heap, whatever the memory', () => {
        const growth = applyHeapGrowth(undefined, { NODE_OPTIONS: '--max-old-space-size=256' }, [], { cgroupV2: 'max', hostTotal: 24 * GiB });
        expect(growth.percent).toBeUndefined();
        expect(growth.explicitFlag).toBe('--max-old-space-size');
    });

    it('sets nothing in a 512 MiB container', () => {
        const growth = applyHeapGrowth(undefined, {}, [], { cgroupV2: String(512 * MiB), hostTotal: 24 * GiB });
        expect(growth).toEqual({ memory: { bytes: 512 * MiB, source: 'cgroup v2' } });
        expect(describeHeapGrowth(growth)).toMatch(/left to V8.*cgroup v2 memory 512 MiB/);
    });
});
