#!/usr/bin/env node
/*
 * The manifest npm packs for a workspace package (run as its `prepack` and `postpack`).
 *
 * In the workspace every export carries a `source` condition pointing at the TypeScript sources, so
 * tests and tsx run without a build. The tarball ships `dist` only, so a published `source` would
 * point consumers whose bundler or runtime sets that condition at files that are not there. npm
 * does not apply `publishConfig` to manifest fields (only to its own settings), so `prepack`
 * rewrites package.json without the condition and `postpack` puts the workspace one back. The
 * repository's LICENSE is copied beside it for the same time, as npm packs a LICENSE only from the
 * package's own folder.
 *
 *   node ../../scripts/publish-manifest.mjs prepack|postpack   (from a package folder)
 */
import { copyFileSync, existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Conditions that exist for the workspace only. */
const DEVELOPMENT_CONDITIONS = new Set(['source']);

const packageDirectory = process.cwd();
const manifestPath = join(packageDirectory, 'package.json');
const savedPath = join(packageDirectory, '.package.workspace.json');
const licensePath = join(packageDirectory, 'LICENSE');
const rootLicense = join(import.meta.dirname, '..', 'LICENSE');

/** An exports or imports value with the development conditions removed, at every depth. */
function withoutDevelopmentConditions(value) {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
    return Object.fromEntries(Object.entries(value)
        .filter(([key]) => !DEVELOPMENT_CONDITIONS.has(key))
        .map(([key, inner]) => [key, withoutDevelopmentConditions(inner)]));
}

function prepack() {
    // a pack that failed before its postpack left the workspace manifest saved: start from it
    const original = readFileSync(existsSync(savedPath) ? savedPath : manifestPath, 'utf8');
    const manifest = JSON.parse(original);
    writeFileSync(savedPath, original);
    for (const field of ['exports', 'imports']) {
        if (manifest[field] !== undefined) manifest[field] = withoutDevelopmentConditions(manifest[field]);
    }
    writeFileSync(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
    copyFileSync(rootLicense, licensePath);
}

function postpack() {
    if (existsSync(savedPath)) renameSync(savedPath, manifestPath);
    rmSync(licensePath, { force: true });
}

const step = process.argv[2];
if (step === 'prepack') prepack();
else if (step === 'postpack') postpack();
else {
    console.error('usage: publish-manifest.mjs prepack|postpack');
    process.exit(2);
}
