import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../server-process.js';

/*
 * One license for the repository (Apache-2.0) and publishable manifests. The packed tarballs
 * themselves are installed and run by scripts/packed-packages.mjs (.ci/run).
 */

const PUBLISHED = ['core', 'access', 'client', 'adapter'];
const WORKSPACES = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { workspaces: string[] }).workspaces;

interface Manifest {
    name: string;
    license?: string;
    private?: boolean;
    files?: string[];
    repository?: { type: string; url: string; directory?: string };
    scripts?: Record<string, string>;
    engines?: { node?: string };
}
const manifestOf = (folder: string): Manifest => JSON.parse(readFileSync(join(ROOT, folder, 'package.json'), 'utf8')) as Manifest;

describe('package manifests', () => {
    it('the repository carries the full Apache License 2.0 text', () => {
        const license = readFileSync(join(ROOT, 'LICENSE'), 'utf8');
        expect(license).toContain('Apache License\n                           Version 2.0, January 2004');
        expect(license).toContain('TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION');
        expect(license).toContain('END OF TERMS AND CONDITIONS');
        expect(license).toContain('APPENDIX: How to apply the Apache License to your work.');
    });

    it('every workspace and the root are Apache-2.0 and name the repository folder they live in', () => {
        const root = manifestOf('.');
        expect(root.license).toBe('Apache-2.0');
        for (const folder of WORKSPACES) {
            const manifest = manifestOf(folder);
            expect(manifest.license, folder).toBe('Apache-2.0');
            expect(manifest.repository?.url, folder).toBe(root.repository?.url);
            expect(manifest.repository?.directory, folder).toBe(folder);
        }
    });

    it('the published packages ship dist without source maps, and pack through the manifest rewrite', () => {
        for (const name of PUBLISHED) {
            const manifest = manifestOf(`packages/${name}`);
            expect(manifest.private, name).toBeUndefined();
            expect(manifest.files, name).toEqual(['dist', '!dist/**/*.map']);
            expect(manifest.scripts?.prepack, name).toBe('node ../../scripts/publish-manifest.mjs prepack');
            expect(manifest.scripts?.postpack, name).toBe('node ../../scripts/publish-manifest.mjs postpack');
            expect(manifest.engines?.node, name).toBe(manifestOf('.').engines?.node);
            expect(readFileSync(join(ROOT, 'packages', name, 'README.md'), 'utf8'), name).toMatch(/^# @realmgate\/.*\n[\s\S]*## Install[\s\S]*## Example/);
        }
    });

    it('the Node.js range admits the release CI runs and the one the image runs, and neither odd release line', () => {
        const range = manifestOf('.').engines!.node!;
        expect(range).toBe('^20.19.0 || ^22.12.0 || >=24.0.0');
        const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
        const imageNode = /^FROM node:(\d+)\.(\d+)\.(\d+)-/m.exec(dockerfile);
        expect(imageNode, 'the Dockerfile pins node:X.Y.Z').not.toBeNull();
        const admits = (major: number, minor: number) => (major === 20 && minor >= 19) || (major === 22 && minor >= 12) || major >= 24;
        expect(admits(Number(imageNode![1]), Number(imageNode![2]))).toBe(true);
        const [major, minor] = process.versions.node.split('.').map(Number);
        expect(admits(major!, minor!)).toBe(true);
    });
});
