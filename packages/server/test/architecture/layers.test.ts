import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { queryStatements, typeAssertions } from './code-metrics.js';
import { allowedImports, importCycles, importGraph, layerOf } from './import-graph.js';

const SOURCE_ROOT = fileURLToPath(new URL('../../src', import.meta.url));
const ARCHITECTURE = fileURLToPath(new URL('../../../../docs/architecture.md', import.meta.url));

// docs/architecture.md is the rule: its allowed-imports table is what this test enforces, so the
// document cannot drift from the code (DESIGN.md §9: "an arrow only points down, and the lint enforces it").
describe('server layers (docs/architecture.md)', () => {
    const table = allowedImports(readFileSync(ARCHITECTURE, 'utf8'));
    const edges = importGraph(SOURCE_ROOT);

    it('names every folder and root module of packages/server/src, and nothing else', () => {
        const present = readdirSync(SOURCE_ROOT, { withFileTypes: true })
            .filter((entry) => entry.isDirectory() || (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts')))
            .map((entry) => entry.name.replace(/\.ts$/, ''))
            .sort();
        expect([...table.keys()].sort()).toEqual(present);
    });

    it('has no import that points up or sideways', () => {
        const violations = edges
            .filter((edge) => layerOf(edge.from) !== layerOf(edge.to))
            .filter((edge) => !table.get(layerOf(edge.from))?.has(layerOf(edge.to)))
            .map((edge) => `${edge.from} → ${edge.to}`);
        expect(violations).toEqual([]);
    });

    it('has no import cycle', () => {
        expect(importCycles(edges)).toEqual([]);
    });
});

// the other packages have no layers table, but a cycle between their modules is as much a defect:
// two modules that need each other are one job split in two (DESIGN.md §7, small modules with one job)
describe('no import cycle in the other packages', () => {
    for (const name of ['core', 'access', 'client', 'adapter']) {
        it(`packages/${name}/src`, () => {
            expect(importCycles(importGraph(fileURLToPath(new URL(`../../../${name}/src`, import.meta.url))))).toEqual([]);
        });
    }
});

describe('storage layer and typing', () => {
    it('runs every query statement from storage/ (migrations aside)', () => {
        const outside = queryStatements(SOURCE_ROOT).filter((place) => !place.startsWith('storage/') && !place.startsWith('db/migrations/'));
        expect(outside).toEqual([]);
    });

    it('keeps type assertions in domains/ at or under 29 (a fifth of the 147 before the storage layer)', () => {
        expect(typeAssertions(`${SOURCE_ROOT}/domains`).length).toBeLessThanOrEqual(29);
    });
});
