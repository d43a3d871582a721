import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

/*
 * Whether a workspace package's build output still matches its inputs, so `npm start` builds only
 * what changed. A package's digest covers the contents of its sources and build configuration, the
 * files every build shares (the base tsconfig, the lockfile that pins the compilers), and the
 * digests of the workspace packages it is built against — a change in core rebuilds everything that
 * imports core. Contents, not modification times: a checkout, a copy or a clock that moved leaves
 * the answer right.
 */

/** Files every package's build reads besides its own, relative to the repository root. */
export const SHARED_INPUTS = ['tsconfig.base.json', 'package-lock.json'];

/**
 * The workspaces `npm start` needs, in build order. `inputs` are relative to `dir`; `outputs` are
 * files the build writes (their absence means "never built", whatever the stamp says).
 */
export const PACKAGES = [
    { dir: 'packages/core', inputs: ['src', 'package.json', 'tsconfig.build.json'], outputs: ['dist/index.js'], dependsOn: [] },
    { dir: 'packages/access', inputs: ['src', 'package.json', 'tsconfig.build.json'], outputs: ['dist/index.js'], dependsOn: ['packages/core'] },
    { dir: 'packages/client', inputs: ['src', 'package.json', 'tsconfig.build.json'], outputs: ['dist/index.js'], dependsOn: ['packages/core'] },
    {
        dir: 'packages/adapter', inputs: ['src', 'package.json', 'tsconfig.build.json'], outputs: ['dist/index.js'],
        dependsOn: ['packages/core', 'packages/access', 'packages/client'],
    },
    { dir: 'packages/server', inputs: ['src', 'package.json', 'tsconfig.build.json'], outputs: ['dist/cli.js'], dependsOn: ['packages/core', 'packages/access'] },
    {
        dir: 'apps/console', inputs: ['src', 'admin', 'account', 'vite.config.ts', 'tsconfig.json', 'package.json'],
        outputs: ['dist/admin/index.html', 'dist/account/index.html'], dependsOn: ['packages/core', 'packages/client'],
    },
];

/** Where the digests of the last successful builds are kept (ignored by git with node_modules/). */
export const STAMP_FILE = 'node_modules/.cache/realmgate-build/stamps.json';

/** Test files are not part of any build. */
const isBuildInput = (name) => !/\.test\.ts$/.test(name);

function filesUnder(path) {
    if (!existsSync(path)) return [];
    if (!statSync(path).isDirectory()) return [path];
    return readdirSync(path, { withFileTypes: true })
        .flatMap((entry) => (entry.isDirectory() ? filesUnder(join(path, entry.name)) : isBuildInput(entry.name) ? [join(path, entry.name)] : []));
}

/**
 * The digest of `pkg`'s inputs under `root`: every input file's path and content, the shared
 * inputs, and the digests of the packages it depends on (`dependencyDigests`, by dir).
 */
export function inputDigest(root, pkg, dependencyDigests) {
    const hash = createHash('sha256');
    const files = [...pkg.inputs.flatMap((input) => filesUnder(join(root, pkg.dir, input))), ...SHARED_INPUTS.map((input) => join(root, input))]
        .filter((file) => existsSync(file))
        .sort();
    for (const file of files) {
        hash.update(`${relative(root, file)}\0`);
        hash.update(readFileSync(file));
        hash.update('\0');
    }
    for (const dependency of pkg.dependsOn) hash.update(`${dependency}=${dependencyDigests[dependency] ?? 'unknown'}\0`);
    return hash.digest('hex');
}

/**
 * Why `pkg` must be built, or null when its output is current: `missing` when an output file is
 * absent, `never recorded` when no build of it was stamped, `changed` when its inputs (or a
 * dependency's) differ from the last stamped build.
 */
export function staleReason({ outputsPresent, recordedDigest, currentDigest }) {
    if (!outputsPresent) return 'missing';
    if (recordedDigest === undefined) return 'never recorded';
    if (recordedDigest !== currentDigest) return 'changed';
    return null;
}

export function outputsPresent(root, pkg) {
    return pkg.outputs.every((output) => existsSync(join(root, pkg.dir, output)));
}

export function readStamps(root) {
    try {
        return JSON.parse(readFileSync(join(root, STAMP_FILE), 'utf8'));
    } catch {
        return {};
    }
}

export function writeStamps(root, stamps) {
    const file = join(root, STAMP_FILE);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, `${JSON.stringify(stamps, null, 2)}\n`);
}
