#!/usr/bin/env node
/*
 * The published packages as a user gets them: each of @realmgate/core, access, client and adapter is
 * packed with `npm pack` (its prepack step writes the published manifest), the tarballs are
 * installed into a scratch application outside the workspace (third-party dependencies from the npm
 * cache or registry), and the examples of the packages' READMEs run from there against the built
 * server, started on a free port on SQLite: the client kit, the access library, and the adapter's
 * Fastify and Express bindings.
 *
 *   node scripts/packed-packages.mjs              builds the packages and the server first
 *   SKIP_BUILD=1 node scripts/packed-packages.mjs  uses the dist folders as they are
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { check, freePort, untilAnswers } from './check-helpers.mjs';

const ROOT = resolve(import.meta.dirname, '..');
const PACKAGES = ['core', 'access', 'client', 'adapter'];
const ADMIN = { name: 'admin', password: 'start123' };

/** Runs a command to its end; rejects with its output when it fails. */
function run(command, args, { stderr = 'pipe', ...options } = {}) {
    return new Promise((done, fail) => {
        const child = spawn(command, args, { stdio: ['ignore', 'pipe', stderr], ...options });
        let output = '';
        child.stdout.on('data', (chunk) => { output += chunk; });
        child.stderr?.on('data', (chunk) => { output += chunk; });
        child.once('error', fail);
        child.once('exit', (code) => (code === 0 ? done(output) : fail(new Error(`${command} ${args.join(' ')} exited ${code}:\n${output}`))));
    });
}

/** A long-running process, and a promise of the first output line matching `ready`. */
function start(command, args, options, ready) {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], ...options });
    let output = '';
    const started = new Promise((done, fail) => {
        const listen = (chunk) => {
            output += chunk;
            if (ready.test(output)) done();
        };
        child.stdout.on('data', listen);
        child.stderr.on('data', listen);
        child.once('exit', (code) => fail(new Error(`${command} ${args.join(' ')} exited ${code} before it was ready:\n${output}`)));
    });
    // a process stopped before it was ready is no failure of its own: the caller awaits `started` when it matters
    started.catch(() => {});
    const stop = () => new Promise((done) => {
        if (child.exitCode !== null || child.signalCode !== null) return done();
        child.once('exit', () => done());
        child.kill('SIGTERM');
    });
    return { child, started, stop, output: () => output };
}

/** The ```js blocks of a package README, in order. */
function readmeExamples(name) {
    const text = readFileSync(join(ROOT, 'packages', name, 'README.md'), 'utf8');
    return [...text.matchAll(/^```js\n([\s\S]*?)^```$/gm)].map((match) => match[1]);
}

async function main() {
    const scratch = mkdtempSync(join(tmpdir(), 'realmgate-packed-'));
    const stops = [];
    try {
        if (!process.env.SKIP_BUILD) {
            console.log('packed-packages: building the packages and the server');
            await run('npm', ['run', 'build', ...[...PACKAGES, 'server'].flatMap((name) => ['-w', `packages/${name}`])], { cwd: ROOT });
        }

        console.log('packed-packages: npm pack');
        const tarballs = join(scratch, 'tarballs');
        mkdirSync(tarballs);
        // --silent keeps the lifecycle scripts' banners out of the JSON answer
        const packed = JSON.parse(await run('npm', ['pack', '--silent', '--json', '--pack-destination', tarballs, ...PACKAGES.flatMap((name) => ['-w', `packages/${name}`])], { cwd: ROOT, stderr: 'ignore' }));
        check(packed.length === PACKAGES.length, `npm pack made ${packed.length} tarballs`);
        for (const name of PACKAGES) {
            const manifest = readFileSync(join(ROOT, 'packages', name, 'package.json'), 'utf8');
            check(manifest.includes('"source"'), `packages/${name}/package.json lost its workspace "source" condition (postpack did not restore it)`);
            check(!existsSync(join(ROOT, 'packages', name, 'LICENSE')), `packages/${name}/LICENSE was left behind by the pack`);
        }
        for (const entry of packed) {
            const files = entry.files.map((file) => file.path);
            check(files.includes('LICENSE') && files.includes('README.md') && files.includes('package.json'), `${entry.name} lacks LICENSE, README.md or package.json`);
            const stray = files.filter((file) => !/^(dist\/.*\.(js|d\.ts)|LICENSE|README\.md|package\.json)$/.test(file));
            check(stray.length === 0, `${entry.name} ships files beside dist: ${stray.join(', ')}`);
        }

        console.log('packed-packages: installing the tarballs into a scratch application');
        const app = join(scratch, 'app');
        mkdirSync(app);
        writeFileSync(join(app, 'package.json'), `${JSON.stringify({ name: 'scratch-application', private: true, type: 'module' }, null, 2)}\n`);
        const files = readdirSync(tarballs).filter((file) => file.endsWith('.tgz')).map((file) => join(tarballs, file));
        await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', ...files, 'fastify@^5', 'express@^5'], { cwd: app });
        for (const name of PACKAGES) {
            const installed = JSON.parse(readFileSync(join(app, 'node_modules/@realmgate', name, 'package.json'), 'utf8'));
            check(installed.license === 'Apache-2.0', `@realmgate/${name} is not licensed Apache-2.0`);
            check(!JSON.stringify(installed.exports).includes('"source"'), `@realmgate/${name} was published with the "source" condition`);
            check(!existsSync(join(app, 'node_modules/@realmgate', name, 'src')), `@realmgate/${name} ships its sources`);
        }

        console.log('packed-packages: starting the built server on SQLite');
        const port = await freePort();
        const baseUrl = `http://127.0.0.1:${port}`;
        const data = join(scratch, 'data');
        const server = start(process.execPath, [join(ROOT, 'packages/server/dist/cli.js'), 'start'], {
            cwd: scratch,
            env: { ...process.env, NODE_ENV: 'development', PORT: String(port), HOST: '127.0.0.1', PUBLIC_URL: baseUrl, WRITABLE_DIRECTORY_PATH: data, LOG_LEVEL: 'warn', DB_TYPE: 'sqlite' },
        }, /$^/);
        stops.push(server.stop);
        await untilAnswers(`${baseUrl}/health/ready`, server.child, server.output);

        const env = { ...process.env, REALMGATE_URL: baseUrl, ADMIN_NAME: ADMIN.name, ADMIN_PASSWORD: ADMIN.password };
        const example = async (file, source, extraEnv = {}) => {
            writeFileSync(join(app, file), source);
            return run(process.execPath, [file], { cwd: app, env: { ...env, ...extraEnv } });
        };

        const [core] = readmeExamples('core');
        check((await example('core.mjs', core)).includes('realm reach values: own, ownOrNull, any, none'), 'the core example printed something else');
        const [client] = readmeExamples('client');
        const signedIn = await example('client.mjs', client);
        check(/alice of realm shop-\d+ signed in: Bearer token/.test(signedIn), `the client example printed: ${signedIn}`);
        const [access] = readmeExamples('access');
        const decided = await example('access.mjs', access);
        check(decided.includes('user_read on a user of the master realm: allowed'), `the access example printed: ${decided}`);
        console.log('packed-packages: core, client and access examples ran');

        const [setup, fastify, express] = readmeExamples('adapter');
        const exported = /export CLIENT_ID=(\S+) CLIENT_SECRET=(\S+)/.exec(await example('setup.mjs', setup));
        check(exported, 'the adapter setup printed no export line');
        const token = (await (await fetch(`${baseUrl}/token`, {
            method: 'POST', body: new URLSearchParams({ grant_type: 'password', username: ADMIN.name, password: ADMIN.password, realm_name: 'master' }),
        })).json()).access_token;
        for (const [binding, source] of [['fastify', fastify], ['express', express]]) {
            const apiPort = await freePort();
            writeFileSync(join(app, `${binding}.mjs`), source);
            const api = start(process.execPath, [`${binding}.mjs`], { cwd: app, env: { ...env, CLIENT_ID: exported[1], CLIENT_SECRET: exported[2], PORT: String(apiPort) } }, /listening on/);
            stops.push(api.stop);
            await api.started;
            const whoami = (authorization) => fetch(`http://127.0.0.1:${apiPort}/whoami`, authorization ? { headers: { authorization } } : {});
            const anonymous = await whoami();
            check(anonymous.status === 401, `${binding}: without a token /whoami answered ${anonymous.status}`);
            const allowed = await whoami(`Bearer ${token}`);
            const identity = await allowed.json();
            check(allowed.status === 200 && identity.realmName === 'master' && identity.type === 'user', `${binding}: the admin's /whoami answered ${allowed.status} ${JSON.stringify(identity)}`);
            await api.stop();
            console.log(`packed-packages: the adapter's ${binding} binding ran`);
        }
        console.log('packed-packages: ok');
    } finally {
        for (const stop of stops.reverse()) await stop();
        rmSync(scratch, { recursive: true, force: true });
    }
}

main().catch((error) => {
    console.error(`packed-packages: ${error.stack ?? error}`);
    process.exitCode = 1;
});
