import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PACKAGES, inputDigest, outputsPresent, readStamps, staleReason, writeStamps } from './build-stamp.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SERVER = PACKAGES.find((pkg) => pkg.dir === 'packages/server')!;
const CORE = PACKAGES.find((pkg) => pkg.dir === 'packages/core')!;

describe('build staleness (scripts/build-stamp.mjs, what `npm start` rebuilds)', () => {
    let root: string;
    const write = (path: string, text: string) => {
        mkdirSync(dirname(join(root, path)), { recursive: true });
        writeFileSync(join(root, path), text);
    };
    const digest = (deps: Record<string, string> = { 'packages/core': 'core-1', 'packages/access': 'access-1' }) => inputDigest(root, SERVER, deps);

    beforeEach(() => {
        root = mkdtempSync(join(tmpdir(), 'build-stamp-'));
        write('tsconfig.base.json', '{"compilerOptions":{"strict":true}}');
        write('package-lock.json', '{"lockfileVersion":3}');
        write('packages/server/package.json', '{"name":"@realmgate/server"}');
        write('packages/server/tsconfig.build.json', '{"include":["src/**/*.ts"]}');
        write('packages/server/src/app.ts', 'export const app = 1;\n');
        write('packages/server/src/http/route.ts', 'export const route = 1;\n');
        write('packages/server/src/http/route.test.ts', 'it("runs", () => {});\n');
    });
    afterEach(() => rmSync(root, { recursive: true, force: true }));

    it('is fresh when nothing changed since the stamped build', () => {
        write('packages/server/dist/cli.js', '');
        const recorded = digest();
        expect(staleReason({ outputsPresent: outputsPresent(root, SERVER), recordedDigest: recorded, currentDigest: digest() })).toBeNull();
    });

    it('is stale when a source changed, was added or was removed', () => {
        const recorded = digest();
        write('packages/server/src/http/route.ts', 'export const route = 2;\n');
        expect(staleReason({ outputsPresent: true, recordedDigest: recorded, currentDigest: digest() })).toBe('changed');

        const before = digest();
        write('packages/server/src/http/added.ts', 'export {};\n');
        expect(digest()).not.toBe(before);

        const withAdded = digest();
        rmSync(join(root, 'packages/server/src/http/added.ts'));
        expect(digest()).not.toBe(withAdded);
    });

    it('is stale when a file moved, its content unchanged', () => {
        const recorded = digest();
        rmSync(join(root, 'packages/server/src/http/route.ts'));
        write('packages/server/src/route.ts', 'export const route = 1;\n');
        expect(digest()).not.toBe(recorded);
    });

    it('is stale when the package\'s build configuration or a shared one changed', () => {
        for (const config of ['packages/server/tsconfig.build.json', 'packages/server/package.json', 'tsconfig.base.json', 'package-lock.json']) {
            const recorded = digest();
            write(config, `${readFileSync(join(root, config), 'utf8')} `);
            expect(staleReason({ outputsPresent: true, recordedDigest: recorded, currentDigest: digest() }), config).toBe('changed');
        }
    });

    it('is stale when a package it is built against changed', () => {
        const recorded = digest();
        expect(digest({ 'packages/core': 'core-2', 'packages/access': 'access-1' })).not.toBe(recorded);
        expect(digest({ 'packages/core': 'core-1', 'packages/access': 'access-2' })).not.toBe(recorded);
    });

    it('stays fresh when only a test file changed (tests are not built)', () => {
        const recorded = digest();
        write('packages/server/src/http/route.test.ts', 'it("runs again", () => {});\n');
        expect(digest()).toBe(recorded);
    });

    it('is missing without its output, and never recorded without a stamp (a fresh clone builds everything)', () => {
        expect(outputsPresent(root, SERVER)).toBe(false);
        expect(staleReason({ outputsPresent: false, recordedDigest: digest(), currentDigest: digest() })).toBe('missing');
        write('packages/server/dist/cli.js', '');
        expect(staleReason({ outputsPresent: outputsPresent(root, SERVER), recordedDigest: undefined, currentDigest: digest() })).toBe('never recorded');
    });

    it('keeps the stamps of the builds it recorded, and reads none before the first', () => {
        expect(readStamps(root)).toEqual({});
        writeStamps(root, { 'packages/server': digest() });
        expect(readStamps(root)).toEqual({ 'packages/server': digest() });
    });

    it('a package\'s digest does not depend on the stamps of packages it does not build against', () => {
        write('packages/core/package.json', '{}');
        write('packages/core/tsconfig.build.json', '{}');
        write('packages/core/src/index.ts', 'export {};\n');
        expect(inputDigest(root, CORE, { 'packages/server': 'a' })).toBe(inputDigest(root, CORE, { 'packages/server': 'b' }));
    });
});

describe('the build list matches the workspace', () => {
    const manifest = (dir: string) => JSON.parse(readFileSync(join(ROOT, dir, 'package.json'), 'utf8')) as {
        name: string; scripts?: Record<string, string>; dependencies?: Record<string, string>; devDependencies?: Record<string, string>;
    };
    const workspaces = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { workspaces: string[] }).workspaces;

    it('names every workspace with a build, each after the workspaces it depends on', () => {
        expect(PACKAGES.map((pkg) => pkg.dir).sort()).toEqual(workspaces.filter((dir) => manifest(dir).scripts?.build).sort());
        const names = new Map(workspaces.map((dir) => [manifest(dir).name, dir]));
        for (const [index, pkg] of PACKAGES.entries()) {
            const { dependencies = {}, devDependencies = {} } = manifest(pkg.dir);
            const local = Object.keys({ ...dependencies, ...devDependencies }).filter((name) => names.has(name)).map((name) => names.get(name)).sort();
            expect([...pkg.dependsOn].sort(), pkg.dir).toEqual(local);
            for (const dependency of pkg.dependsOn) expect(PACKAGES.findIndex((other) => other.dir === dependency), pkg.dir).toBeLessThan(index);
        }
    });
});
