/**
 * CPU profile summaries for BENCHMARKS.md: the frames a V8 profile of the server spent most
 * samples in (self time), merged per function and source line, as shares of the busy samples.
 */
import { readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CpuProfile } from './instrument.js';

export interface Frame {
    /** the function's name, `(anonymous)` when V8 has none */
    name: string;
    /** `path:line` relative to the repository, `node:…` for Node's own, `(native)` without a script */
    location: string;
    /** share of the busy (non-idle) samples spent in this frame itself */
    self: number;
}

export interface ProfileSummary {
    /** every sample taken */
    samples: number;
    /** share of all samples the process was idle (waiting on the database or the network) */
    idle: number;
    frames: Frame[];
}

/** Maps a generated position (1-based line, 0-based column) to its source, where a map says so. */
export type PositionResolver = (file: string, line: number, column: number) => { file: string; line: number } | undefined;

const SYNTHETIC = new Set(['(root)', '(idle)']);

function locate(url: string, line: number, column: number, root: string, resolve?: PositionResolver): string {
    if (!url) return '(native)';
    if (!url.startsWith('file:')) return `${url}:${line}`;
    const file = fileURLToPath(url);
    const mapped = resolve?.(file, line, column);
    return `${relative(root, mapped?.file ?? file)}:${mapped?.line ?? line}`;
}

/**
 * The top `top` frames by self samples. Samples are counted from `samples` when present (one
 * entry per tick), else from each node's hitCount; `(idle)` is reported apart and left out of
 * the shares, so they say where the CPU went while the server worked.
 */
export function summarizeProfile(profile: CpuProfile, root: string, top = 10, resolve?: PositionResolver): ProfileSummary {
    const hits = new Map<number, number>();
    if (profile.samples && profile.samples.length > 0) {
        for (const id of profile.samples) hits.set(id, (hits.get(id) ?? 0) + 1);
    } else {
        for (const node of profile.nodes) hits.set(node.id, node.hitCount ?? 0);
    }
    let total = 0;
    let idle = 0;
    const merged = new Map<string, { name: string; location: string; count: number }>();
    for (const node of profile.nodes) {
        const count = hits.get(node.id) ?? 0;
        if (count === 0) continue;
        total += count;
        const { functionName, url, lineNumber, columnNumber } = node.callFrame;
        if (SYNTHETIC.has(functionName)) {
            if (functionName === '(idle)') idle += count;
            continue;
        }
        const name = functionName || '(anonymous)';
        // V8 numbers lines and columns from 0
        const location = locate(url, lineNumber + 1, columnNumber, root, resolve);
        const key = `${name}\u0000${location}`;
        const entry = merged.get(key);
        if (entry) entry.count += count;
        else merged.set(key, { name, location, count });
    }
    const busy = total - idle;
    const frames = [...merged.values()]
        .sort((a, b) => b.count - a.count || a.location.localeCompare(b.location))
        .slice(0, top)
        .map(({ name, location, count }) => ({ name, location, self: busy > 0 ? count / busy : 0 }));
    return { samples: total, idle: total > 0 ? idle / total : 0, frames };
}

/**
 * Positions in the built dist mapped back to the TypeScript sources through the `.js.map` files
 * tsc writes beside them (tsconfig.base.json `sourceMap`); files without a map stay as they are.
 */
export function distSourceMaps(): PositionResolver {
    const maps = new Map<string, SourceMap | undefined>();
    return (file, line, column) => {
        if (!file.endsWith('.js') || file.includes('/node_modules/')) return undefined;
        if (!maps.has(file)) {
            try {
                maps.set(file, new SourceMap(JSON.parse(readFileSync(`${file}.map`, 'utf8')) as ConstructorParameters<typeof SourceMap>[0]));
            } catch {
                maps.set(file, undefined);
            }
        }
        const entry = maps.get(file)?.findEntry(line - 1, column) as { originalSource?: string; originalLine?: number } | undefined;
        if (!entry?.originalSource || entry.originalLine === undefined) return undefined;
        const source = entry.originalSource.startsWith('file:') ? fileURLToPath(entry.originalSource) : new URL(entry.originalSource, `file://${file}`).pathname;
        return { file: source, line: entry.originalLine + 1 };
    };
}

const percent = (share: number) => `${(share * 100).toFixed(1)} %`;

function profileHeadline(summary: ProfileSummary): string {
    return `${summary.samples.toLocaleString('en-US')} samples, idle ${percent(summary.idle)} (shares below are of the busy samples)`;
}

/** A `<details>` block per profile: a Markdown table of its frames. */
export function profileMarkdown(title: string, summary: ProfileSummary): string[] {
    const escape = (text: string) => text.replace(/\|/g, '\\|');
    return [
        '<details>',
        `<summary>${title}: ${profileHeadline(summary)}</summary>`,
        '',
        '| self | function | location |',
        '|---:|---|---|',
        ...summary.frames.map((frame) => `| ${percent(frame.self)} | \`${escape(frame.name)}\` | ${escape(frame.location)} |`),
        '',
        '</details>',
        '',
    ];
}

/** The first `top` frames on a line each, for the console. */
export function profileText(title: string, summary: ProfileSummary, top = 5): string[] {
    return [
        `${title}: ${profileHeadline(summary)}`,
        ...summary.frames.slice(0, top).map((frame) => `  ${percent(frame.self).padStart(7)}  ${frame.name}  ${frame.location}`),
    ];
}
