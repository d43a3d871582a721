/**
 * The memory this process may use: the container's limit when its cgroup sets one, else the
 * host's total. Read from the files the kernel exposes (cgroup v2 `memory.max`, cgroup v1
 * `memory.limit_in_bytes`), which a container runtime mounts as the container's own.
 */
import { readFileSync } from 'node:fs';
import { totalmem } from 'node:os';

const CGROUP_V2_MEMORY_MAX = '/sys/fs/cgroup/memory.max';
const CGROUP_V1_MEMORY_LIMIT = '/sys/fs/cgroup/memory/memory.limit_in_bytes';

/** What the files said (undefined: absent or unreadable) and the host's total memory in bytes. */
export interface MemorySources {
    cgroupV2?: string;
    cgroupV1?: string;
    hostTotal: number;
}

export interface MemoryLimit {
    bytes: number;
    source: 'cgroup v2' | 'cgroup v1' | 'host';
}

/**
 * A limit in bytes from a cgroup file's text, or undefined when it sets none: v2 writes `max`;
 * v1 writes its "unlimited" as the largest page-aligned counter (9223372036854771712 with 4 KiB
 * pages), so a value at or above the host's memory is no limit either — it constrains nothing.
 */
function cgroupBytes(text: string | undefined, hostTotal: number): number | undefined {
    const value = text?.trim();
    if (value === undefined || !/^\d+$/.test(value)) return undefined;
    const bytes = Number(value);
    return bytes > 0 && bytes < hostTotal ? bytes : undefined;
}

export function memoryLimitOf(sources: MemorySources): MemoryLimit {
    // a host has one hierarchy mounted: v2 where it exists, else v1
    const v2 = cgroupBytes(sources.cgroupV2, sources.hostTotal);
    if (v2 !== undefined) return { bytes: v2, source: 'cgroup v2' };
    const v1 = cgroupBytes(sources.cgroupV1, sources.hostTotal);
    if (v1 !== undefined) return { bytes: v1, source: 'cgroup v1' };
    return { bytes: sources.hostTotal, source: 'host' };
}

function readOptional(path: string): string | undefined {
    try {
        return readFileSync(path, 'utf8');
    } catch {
        return undefined;
    }
}

export function readMemorySources(): MemorySources {
    return { cgroupV2: readOptional(CGROUP_V2_MEMORY_MAX), cgroupV1: readOptional(CGROUP_V1_MEMORY_LIMIT), hostTotal: totalmem() };
}
