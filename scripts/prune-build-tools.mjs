#!/usr/bin/env node
/*
 * Leaves a production node_modules (from `npm ci --omit=dev`) with what runs, not what installed it:
 * better-sqlite3 keeps its compiled addon and its JavaScript, not the SQLite sources, the C++ sources
 * or the compiler's intermediate files; prebuild-install (the step that fetched or built that addon)
 * goes, with every package nothing else at run time requires. Run in the folder holding node_modules
 * (the image's dependencies stage, scripts/runtime-tree.mjs).
 *
 *   node prune-build-tools.mjs <workspace folder whose dependencies are the roots, e.g. packages/server>
 */
import { existsSync, lstatSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** Dependency edges that only install: the addon is already in place when they would run. */
const INSTALL_ONLY = new Set(['better-sqlite3>prebuild-install']);
/** Inside better-sqlite3, what its `bindings` lookup and its lib/ need at run time. */
const SQLITE_KEEP = new Set(['package.json', 'lib', 'build', 'LICENSE', 'README.md']);
const SQLITE_ADDON = join('build', 'Release', 'better_sqlite3.node');

const workspace = process.argv[2];
if (!workspace) {
    console.error('usage: prune-build-tools.mjs <workspace folder>');
    process.exit(2);
}
const lock = JSON.parse(readFileSync('node_modules/.package-lock.json', 'utf8')).packages;

/** npm's lookup: the nearest node_modules/<name> from the requiring package's folder upwards. */
function resolve(from, name) {
    for (let folder = from; ; folder = dirname(folder)) {
        const candidate = folder === '.' ? `node_modules/${name}` : `${folder}/node_modules/${name}`;
        if (lock[candidate]) return candidate;
        if (folder === '.' || folder === '') return undefined;
    }
}

const packageName = (path) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);
const reachable = new Set();
const queue = [workspace];
while (queue.length > 0) {
    const path = queue.pop();
    const entry = lock[path] ?? {};
    // a workspace link (node_modules/@realmgate/core) stands for its folder (packages/core)
    if (entry.link && entry.resolved) {
        queue.push(entry.resolved);
        continue;
    }
    const names = { ...entry.dependencies, ...entry.optionalDependencies, ...entry.peerDependencies };
    for (const name of Object.keys(names)) {
        if (path.startsWith('node_modules/') && INSTALL_ONLY.has(`${packageName(path)}>${name}`)) continue;
        const target = resolve(path, name);
        if (target && !reachable.has(target)) {
            reachable.add(target);
            queue.push(target);
        }
    }
}

let removed = 0;
for (const path of Object.keys(lock)) {
    // workspace links stay: they are the packages' own folders
    if (!path.startsWith('node_modules/') || reachable.has(path) || lock[path].link || !existsSync(path)) continue;
    // a package nested under one already removed went with it
    rmSync(path, { recursive: true, force: true });
    removed += 1;
}

const sqlite = resolve('.', 'better-sqlite3');
if (sqlite && existsSync(join(sqlite, SQLITE_ADDON))) {
    for (const entry of readdirSync(sqlite)) if (!SQLITE_KEEP.has(entry)) rmSync(join(sqlite, entry), { recursive: true, force: true });
    for (const entry of readdirSync(join(sqlite, 'build'))) if (entry !== 'Release') rmSync(join(sqlite, 'build', entry), { recursive: true, force: true });
    for (const entry of readdirSync(join(sqlite, 'build', 'Release'))) if (entry !== 'better_sqlite3.node') rmSync(join(sqlite, 'build', 'Release', entry), { recursive: true, force: true });
}

// commands whose package is gone
if (existsSync('node_modules/.bin')) {
    for (const entry of readdirSync('node_modules/.bin')) {
        const link = join('node_modules/.bin', entry);
        if (lstatSync(link).isSymbolicLink() && !existsSync(link)) rmSync(link);
    }
}
console.log(`prune-build-tools: removed ${removed} install-only packages${sqlite ? ' and better-sqlite3\'s sources' : ''}`);
