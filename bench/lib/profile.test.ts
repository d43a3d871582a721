import { describe, expect, it } from 'vitest';
import type { CpuProfile } from './instrument.js';
import { profileMarkdown, summarizeProfile } from './profile.js';

const ROOT = '/repo';

/** A profile from frames and the node each sample landed in. */
function profile(frames: [string, string, number][], samples: number[]): CpuProfile {
    return {
        nodes: frames.map(([functionName, url, lineNumber], index) => ({ id: index + 1, callFrame: { functionName, url, lineNumber, columnNumber: 4 } })),
        startTime: 0,
        endTime: samples.length * 500,
        samples,
    };
}

describe('summarizeProfile', () => {
    it('ranks frames by self samples, as shares of the busy samples, with idle apart', () => {
        const summary = summarizeProfile(profile([
            ['(root)', '', -1],
            ['(idle)', '', -1],
            ['verify', 'file:///repo/packages/server/src/token.ts', 9],
            ['', 'node:internal/streams/readable', 99],
            ['(garbage collector)', '', -1],
        ], [2, 2, 3, 3, 3, 3, 3, 3, 4, 4, 5]), ROOT);
        expect(summary.samples).toBe(11);
        expect(summary.idle).toBeCloseTo(2 / 11);
        expect(summary.frames).toEqual([
            { name: 'verify', location: 'packages/server/src/token.ts:10', self: 6 / 9 },
            { name: '(anonymous)', location: 'node:internal/streams/readable:100', self: 2 / 9 },
            { name: '(garbage collector)', location: '(native)', self: 1 / 9 },
        ]);
    });

    it('merges the nodes of one function and line reached through different callers', () => {
        const summary = summarizeProfile(profile([
            ['query', 'file:///repo/node_modules/pg/lib/client.js', 5],
            ['query', 'file:///repo/node_modules/pg/lib/client.js', 5],
            ['parse', 'file:///repo/node_modules/pg/lib/result.js', 1],
        ], [1, 2, 2, 3]), ROOT);
        expect(summary.frames.map((frame) => [frame.name, frame.self])).toEqual([['query', 0.75], ['parse', 0.25]]);
    });

    it('keeps the top frames only and falls back to hit counts without samples', () => {
        const nodes = Array.from({ length: 15 }, (_, index) => ({
            id: index + 1, hitCount: index + 1, callFrame: { functionName: `f${index}`, url: 'file:///repo/a.js', lineNumber: index, columnNumber: 0 },
        }));
        const summary = summarizeProfile({ nodes, startTime: 0, endTime: 1 }, ROOT, 3);
        expect(summary.frames.map((frame) => frame.name)).toEqual(['f14', 'f13', 'f12']);
        expect(summary.samples).toBe(120);
    });

    it('maps a location through the resolver and reports an empty profile as empty', () => {
        const summary = summarizeProfile(profile([['handler', 'file:///repo/dist/app.js', 41]], [1]), ROOT, 10,
            (file, line) => (file === '/repo/dist/app.js' && line === 42 ? { file: '/repo/src/app.ts', line: 30 } : undefined));
        expect(summary.frames[0]!.location).toBe('src/app.ts:30');
        expect(summarizeProfile(profile([], []), ROOT)).toEqual({ samples: 0, idle: 0, frames: [] });
    });
});

describe('profileMarkdown', () => {
    it('writes a collapsible table, escaping pipes in names', () => {
        const lines = profileMarkdown('GET /userinfo (sqlite)', { samples: 4000, idle: 0.25, frames: [{ name: 'a|b', location: 'x.ts:1', self: 0.125 }] });
        expect(lines[0]).toBe('<details>');
        expect(lines[1]).toBe('<summary>GET /userinfo (sqlite): 4,000 samples, idle 25.0 % (shares below are of the busy samples)</summary>');
        expect(lines).toContain('| 12.5 % | `a\\|b` | x.ts:1 |');
        expect(lines.at(-2)).toBe('</details>');
    });
});
