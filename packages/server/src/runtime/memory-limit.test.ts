import { describe, expect, it } from 'vitest';
import { memoryLimitOf } from './memory-limit.js';

const GiB = 2 ** 30;
const HOST = 24 * GiB;
/** what cgroup v1 reports for "no limit" on a 64-bit kernel with 4 KiB pages */
const V1_UNLIMITED = '9223372036854771712\n';

describe('memoryLimitOf', () => {
    it('takes the cgroup v2 limit of the container', () => {
        expect(memoryLimitOf({ cgroupV2: '536870912\n', hostTotal: HOST })).toEqual({ bytes: 512 * 2 ** 20, source: 'cgroup v2' });
    });

    it('takes the host memory when cgroup v2 says "max"', () => {
        expect(memoryLimitOf({ cgroupV2: 'max\n', hostTotal: HOST })).toEqual({ bytes: HOST, source: 'host' });
    });

    it('takes the cgroup v1 limit of the container', () => {
        expect(memoryLimitOf({ cgroupV1: '1073741824\n', hostTotal: HOST })).toEqual({ bytes: GiB, source: 'cgroup v1' });
    });

    it('reads cgroup v1 "unlimited" (the largest page-aligned counter) as no limit: the host memory', () => {
        expect(memoryLimitOf({ cgroupV1: V1_UNLIMITED, hostTotal: HOST })).toEqual({ bytes: HOST, source: 'host' });
    });

    it('takes the host memory when a limit is at or above it, or no file can be read', () => {
        expect(memoryLimitOf({ cgroupV2: String(HOST), hostTotal: HOST })).toEqual({ bytes: HOST, source: 'host' });
        expect(memoryLimitOf({ cgroupV1: String(64 * GiB), hostTotal: HOST })).toEqual({ bytes: HOST, source: 'host' });
        expect(memoryLimitOf({ hostTotal: HOST })).toEqual({ bytes: HOST, source: 'host' });
    });

    it('ignores a file whose text is not a byte count', () => {
        expect(memoryLimitOf({ cgroupV2: '', cgroupV1: '-1\n', hostTotal: HOST })).toEqual({ bytes: HOST, source: 'host' });
        expect(memoryLimitOf({ cgroupV2: '0\n', hostTotal: HOST })).toEqual({ bytes: HOST, source: 'host' });
    });

    it('prefers cgroup v2 when both files are there (a hybrid host)', () => {
        expect(memoryLimitOf({ cgroupV2: String(2 * GiB), cgroupV1: String(GiB), hostTotal: HOST })).toEqual({ bytes: 2 * GiB, source: 'cgroup v2' });
        expect(memoryLimitOf({ cgroupV2: 'max', cgroupV1: String(GiB), hostTotal: HOST })).toEqual({ bytes: GiB, source: 'cgroup v1' });
    });
});
