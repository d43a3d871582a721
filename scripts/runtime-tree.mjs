#!/usr/bin/env node
/*
 * The image's runtime file tree, built without Docker from the Dockerfile's own instructions, then
 * booted as the image runs it: the runtime stage's ENV, USER (uid 1000 when this runs as root),
 * ENTRYPOINT and CMD, and its HEALTHCHECK command. Prints the size of the tree and of its
 * node_modules, which must stay under 100 MB.
 *
 * The `build` stage is this checkout after `npm run build` (the stage runs the same commands). The
 * `dependencies` stage runs here as written, from the npm cache, with one difference: install
 * scripts are skipped and better-sqlite3's addon is taken from this checkout's install, in place of
 * the prebuilt binary its install script downloads (this machine need not reach that download).
 *
 *   node scripts/runtime-tree.mjs            builds the workspace first
 *   SKIP_BUILD=1 node scripts/runtime-tree.mjs
 */
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, chownSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { check, freePort, untilAnswers } from './check-helpers.mjs';

const ROOT = resolve(import.meta.dirname, '..');
const LIMIT_BYTES = 100 * 1024 * 1024;
/** Packages that are build or test tools: none may be in the runtime tree. */
const BUILD_TOOLS = ['typescript', 'vite', 'vitest', 'tsx', 'esbuild', 'vue-tsc', 'playwright-core', 'eslint', 'knip', 'prebuild-install', 'node-gyp'];
const SQLITE_ADDON = 'node_modules/better-sqlite3/build/Release/better_sqlite3.node';

/** The Dockerfile's stages: name, instructions (continuation lines joined, comments dropped). */
function stages(text) {
    const instructions = text.replace(/\\\n/g, ' ').split('\n').map((line) => line.trim()).filter((line) => line && !line.startsWith('#'));
    const list = [];
    for (const line of instructions) {
        const [keyword, ...rest] = line.split(/\s+/);
        if (keyword === 'FROM') list.push({ base: rest[0], name: /\bAS\s+(\S+)/i.exec(line)?.[1] ?? 'runtime', instructions: [] });
        else list.at(-1)?.instructions.push({ keyword, args: rest.join(' ') });
    }
    return list;
}

/** `COPY [--from=stage] src... dest` as paths on this machine. */
function copy(args, contextOf, target) {
    const words = args.split(/\s+/);
    const from = words[0].startsWith('--from=') ? words.shift().slice('--from='.length) : null;
    const destination = words.pop();
    const context = contextOf(from);
    for (const source of words) {
        const origin = join(context, source.replace(/^\/app\/?/, ''));
        const into = destination.endsWith('/') ? join(target, destination, basename(origin)) : join(target, destination);
        cpSync(origin, into, { recursive: true, verbatimSymlinks: true });
    }
}

const run = (command, args, options) => execFileSync(command, args, { stdio: ['ignore', 'pipe', 'pipe'], ...options }).toString();
/** apparent size (`du -sb`), what the image layer holds; `du -sk` (disk blocks) is printed beside it */
const bytes = (path) => Number(run('du', ['-sb', path]).split('\t')[0]);
const diskUsage = (path) => Number(run('du', ['-sk', path]).split('\t')[0]) * 1024;
const megabytes = (size) => `${(size / 1024 / 1024).toFixed(1)} MB`;

async function main() {
    const dockerfile = stages(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'));
    const scratch = mkdtempSync(join(tmpdir(), 'realmgate-runtime-'));
    chmodSync(scratch, 0o755);
    let server;
    try {
        if (!process.env.SKIP_BUILD) {
            console.log('runtime-tree: building the workspace (the build stage)');
            run('npm', ['run', 'build'], { cwd: ROOT });
        }
        const folders = { build: ROOT };
        const contextOf = (stage) => (stage === null ? ROOT : folders[stage]);
        const user = { uid: undefined, gid: undefined };
        let dataDirectory;
        const env = {};

        for (const stage of dockerfile.filter((entry) => entry.name !== 'build')) {
            const folder = join(scratch, stage.name);
            // a stage built on an earlier one starts from its files
            if (folders[stage.base]) cpSync(folders[stage.base], folder, { recursive: true, verbatimSymlinks: true });
            else mkdirSync(folder);
            folders[stage.name] = folder;
            for (const { keyword, args } of stage.instructions) {
                if (keyword === 'COPY') copy(args, contextOf, folder);
                else if (keyword === 'ENV') for (const [, name, value] of args.matchAll(/(\w+)=(\S+)/g)) env[name] = value;
                else if (keyword === 'USER' && args === 'node' && process.getuid?.() === 0) Object.assign(user, { uid: 1000, gid: 1000 });
                else if (keyword === 'RUN' && /^mkdir -p \/data && chown node:node \/data$/.test(args)) {
                    // the volume: WRITABLE_DIRECTORY_PATH, owned by the image's user
                    dataDirectory = join(scratch, 'data');
                    mkdirSync(dataDirectory);
                    if (process.getuid?.() === 0) chownSync(dataDirectory, 1000, 1000);
                } else if (keyword === 'RUN') {
                    console.log(`runtime-tree: ${stage.name}: RUN ${args}`);
                    const npmCi = /^npm ci\b/.test(args);
                    run('sh', ['-c', args], { cwd: folder, env: { ...process.env, ...(npmCi ? { npm_config_offline: 'true', npm_config_ignore_scripts: 'true' } : {}) } });
                    if (npmCi && existsSync(join(folder, 'node_modules/better-sqlite3'))) cpSync(join(ROOT, SQLITE_ADDON), join(folder, SQLITE_ADDON));
                }
            }
        }

        const tree = folders.runtime;
        for (const tool of BUILD_TOOLS) check(!existsSync(join(tree, 'node_modules', tool)), `the runtime tree holds the build tool ${tool}`);
        check(existsSync(join(tree, 'apps/console/dist/admin/index.html')), 'the runtime tree lacks the built admin console');
        check(!existsSync(join(tree, 'apps/console/src')) && !existsSync(join(tree, 'packages/server/src')), 'the runtime tree holds sources');
        const nodeModules = bytes(join(tree, 'node_modules'));
        const total = bytes(tree);
        console.log(`runtime-tree: the runtime tree is ${megabytes(total)}, of which node_modules ${megabytes(nodeModules)} (on this disk: ${megabytes(diskUsage(tree))} and ${megabytes(diskUsage(join(tree, 'node_modules')))})`);
        check(nodeModules < LIMIT_BYTES, `node_modules is ${megabytes(nodeModules)}, over ${megabytes(LIMIT_BYTES)}`);

        const entrypoint = JSON.parse(dockerfile.at(-1).instructions.find((entry) => entry.keyword === 'ENTRYPOINT').args);
        const command = JSON.parse(dockerfile.at(-1).instructions.find((entry) => entry.keyword === 'CMD').args);
        const healthcheck = JSON.parse(/CMD (\[.*\])$/.exec(dockerfile.at(-1).instructions.find((entry) => entry.keyword === 'HEALTHCHECK').args)[1]);
        check(entrypoint[0] === 'node' && healthcheck[0] === 'node', 'the image runs node');
        const port = await freePort();
        const bootEnv = { PATH: process.env.PATH, ...env, PORT: String(port), HOST: '127.0.0.1', PUBLIC_URL: `http://127.0.0.1:${port}`, WRITABLE_DIRECTORY_PATH: dataDirectory, SECRETS_ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64') };
        const options = { cwd: tree, env: bootEnv, stdio: ['ignore', 'pipe', 'pipe'], ...(user.uid === undefined ? {} : user) };
        console.log(`runtime-tree: booting ${[...entrypoint, ...command].join(' ')}${user.uid === undefined ? '' : ' as uid 1000'}`);
        server = spawn(process.execPath, [...entrypoint.slice(1), ...command], options);
        let output = '';
        server.stdout.on('data', (chunk) => { output += chunk; });
        server.stderr.on('data', (chunk) => { output += chunk; });
        await untilAnswers(`http://127.0.0.1:${port}/health/ready`, server, () => output);
        const consolePage = await fetch(`http://127.0.0.1:${port}/console/admin/`);
        check(consolePage.status === 200, `the admin console answered ${consolePage.status}`);
        const probe = run(process.execPath, [...healthcheck.slice(1), ...command], { ...options, stdio: undefined });
        check(probe.includes('answered 200'), `the healthcheck said: ${probe}`);
        console.log(`runtime-tree: ok (${probe.trim()})`);
    } finally {
        if (server && server.exitCode === null) {
            const exited = new Promise((done) => server.once('exit', done));
            server.kill('SIGTERM');
            await exited;
        }
        rmSync(scratch, { recursive: true, force: true });
    }
}

main().catch((error) => {
    console.error(`runtime-tree: ${error.stack ?? error}`);
    process.exitCode = 1;
});
