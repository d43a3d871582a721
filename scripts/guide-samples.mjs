#!/usr/bin/env node
/*
 * Every sample of the guides, run as a reader copies it: for each guide page, a fresh built server
 * (packages/server/dist/cli.js start, SQLite in a temporary WRITABLE_DIRECTORY_PATH, a free port),
 * then the page's code blocks in order (scripts/guide-blocks.mjs says which and how to mark one):
 * shell blocks in ONE bash session under `set -euo pipefail` (a variable set in one block is seen
 * by the next), JavaScript blocks with node in the environment that session exported (as the
 * reader's `node` started from that shell), TypeScript blocks compiled by tsc under `strict`.
 * The guides say http://localhost:3000; each block's `localhost:3000` is rewritten to the port the
 * runner's server listens on, so a developer's own server on 3000 is left alone. A page whose reader
 * starts a mail relay (the `smtp` marker) gets the runner's own relay, and its server `SMTP_URL`.
 *
 *   node scripts/guide-samples.mjs                              every guide of GUIDES
 *   node scripts/guide-samples.mjs docs/guide/two-factor.md     the pages named
 *
 * The server and the packages must be built (`npm run build`). Exits 1 when any block fails.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, relative, resolve } from 'node:path';
import { freePort, untilAnswers } from './check-helpers.mjs';
import { guideBlocks } from './guide-blocks.mjs';
import { MAIL_CODE_PLACEHOLDER, startMailRelay } from './guide-mail-relay.mjs';

const ROOT = resolve(import.meta.dirname, '..');
const GUIDES = [
    'getting-started', 'sign-in', 'device-flow', 'two-factor', 'passkeys', 'identity-providers', 'catalog',
    'client-kit', 'access-library', 'adapter', 'default-roles', 'modern-oauth', 'branding', 'packages', 'mail', 'consoles',
].map((name) => `docs/guide/${name}.md`);
/** What one block may take; a sample that waits longer than this is broken or needs a marker. */
const BLOCK_TIMEOUT_MILLISECONDS = 60_000;
/** One tsc run compiles every TypeScript block of a page. */
const TSC_TIMEOUT_MILLISECONDS = 180_000;
const DONE = '__guide_sample_done__';

/** Runs a process to its end with a timeout; resolves with its exit code and output. */
function run(command, args, options, timeout = BLOCK_TIMEOUT_MILLISECONDS) {
    return new Promise((done) => {
        const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], detached: true, ...options });
        let output = '';
        child.stdout.on('data', (chunk) => { output += chunk; });
        child.stderr.on('data', (chunk) => { output += chunk; });
        const timer = setTimeout(() => { output += '\n(timed out)'; killGroup(child); }, timeout);
        child.once('exit', (code) => { clearTimeout(timer); done({ code, output }); });
    });
}

/** Ends a detached child and whatever it started in the background (`&` in a sample). */
function killGroup(child) {
    try {
        process.kill(-child.pid, 'SIGTERM');
    } catch {
        // already gone
    }
}

/** One bash process for a page's shell blocks: each block is sourced in it, in order. */
function bashSession(cwd, env) {
    const child = spawn('bash', ['--noprofile', '--norc'], { cwd, env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    let output = '';
    let waiting = null;
    const settle = (result) => { const wake = waiting; waiting = null; wake?.(result); };
    child.stdout.on('data', (chunk) => {
        output += chunk;
        if (output.includes(DONE)) settle({ ok: true, output: output.replace(`${DONE}\n`, '') });
    });
    child.stderr.on('data', (chunk) => { output += chunk; });
    child.once('exit', (code) => settle({ ok: false, output: `${output}\n(bash exited ${code})` }));
    child.stdin.write('set -euo pipefail\n');
    return {
        /** Sources `file` in the session; resolves once it finished, or bash exited, or it timed out. */
        source(file) {
            output = '';
            return new Promise((done) => {
                const timer = setTimeout(() => settle({ ok: false, output: `${output}\n(timed out)` }), BLOCK_TIMEOUT_MILLISECONDS);
                waiting = (result) => { clearTimeout(timer); done(result); };
                if (child.exitCode !== null) return settle({ ok: false, output: '(bash exited before this block)' });
                // stdin is the session's script: a sample's command must not read it
                child.stdin.write(`source ${JSON.stringify(file)} </dev/null\nprintf '\\n%s\\n' ${DONE}\n`);
            });
        },
        /**
         * The session's exported variables, as a `node` the reader starts from this shell gets them
         * (a variable set without `export` stays the shell's); null once the session has ended.
         */
        async exported() {
            const file = join(cwd, 'exported.sh');
            const listing = join(cwd, 'exported.env');
            writeFileSync(file, `env -0 > ${JSON.stringify(listing)}\n`);
            const result = await this.source(file);
            if (!result.ok) return null;
            // NUL-separated NAME=value records: a value may hold any other character, newlines too
            const entries = readFileSync(listing, 'utf8').split('\0').filter((record) => record.includes('='))
                .map((record) => [record.slice(0, record.indexOf('=')), record.slice(record.indexOf('=') + 1)]);
            return Object.fromEntries(entries);
        },
        end() {
            child.stdin.end();
            killGroup(child);
        },
    };
}

/**
 * The page's server: built, SQLite, fresh data directory; resolves once it answers. It logs every
 * request (LOG_LEVEL info), so the runner sees what the samples were answered: a sample that
 * prints a 4xx answer may mean it (an example of a refusal), but a 5xx other than 503 (a documented
 * "unavailable", such as mail without a relay) is the server failing and fails the page.
 */
async function startServer(dataDirectory, smtpUrl) {
    const port = await freePort();
    const baseUrl = `http://localhost:${port}`;
    const server = spawn(process.execPath, [join(ROOT, 'packages/server/dist/cli.js'), 'start'], {
        cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, NODE_ENV: 'development', PORT: String(port), HOST: '127.0.0.1', PUBLIC_URL: baseUrl, WRITABLE_DIRECTORY_PATH: dataDirectory, LOG_LEVEL: 'info', DB_TYPE: 'sqlite', ...(smtpUrl ? { SMTP_URL: smtpUrl } : {}) },
    });
    let output = '';
    let pending = '';
    const requests = new Map();
    /** @type {{ status: number, request: string }[]} */
    const answers = [];
    let answered = () => {};
    server.stdout.on('data', (chunk) => {
        output += chunk;
        pending += chunk;
        const lines = pending.split('\n');
        pending = lines.pop();
        for (const line of lines) {
            let entry;
            try {
                entry = JSON.parse(line);
            } catch {
                continue; // not a log record
            }
            if (entry.req) requests.set(entry.reqId, `${entry.req.method} ${entry.req.url}`);
            if (entry.res) {
                answers.push({ status: entry.res.statusCode, request: requests.get(entry.reqId) ?? entry.reqId });
                answered();
            }
        }
    });
    server.stderr.on('data', (chunk) => { output += chunk; });
    await untilAnswers(`http://127.0.0.1:${port}/.well-known/openid-configuration`, server, () => output);
    return {
        port,
        answers,
        /** Resolves once every answer the samples received is logged: one more request, and its line. */
        async settled() {
            const logged = new Promise((done) => {
                answered = () => { if (answers.at(-1)?.request === 'GET /.well-known/openid-configuration?settled') done(); };
            });
            await fetch(`http://127.0.0.1:${port}/.well-known/openid-configuration?settled`);
            await logged;
            answers.pop();
        },
        stop: () => server.kill('SIGTERM'),
    };
}

/** The scratch project a page's samples run in: inside the repository, so `@realmgate/*` and
 * every dependency resolve to the workspace, with the repository's `examples` at hand. */
function scratchProject(guide) {
    const dir = join(ROOT, 'node_modules/.cache/guide-samples', basename(guide, '.md'));
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    symlinkSync(join(ROOT, 'examples'), join(dir, 'examples'));
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module', private: true }));
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({
        compilerOptions: {
            strict: true, noEmit: true, skipLibCheck: true, target: 'es2022', module: 'nodenext',
            moduleResolution: 'nodenext', lib: ['es2023', 'dom', 'dom.iterable'], types: ['node'],
        },
        include: ['*.ts'],
    }));
    return dir;
}

/**
 * What the reader of a `mail` block pastes: the code of the link in the next mail the relay got,
 * or why there is none (no relay on the page, no placeholder to put it in, no mail).
 */
async function mailCode(block, relay) {
    if (relay === null) return { failure: 'a `mail` block on a page without an `smtp` block (no relay to read the mail from)' };
    if (!block.code.includes(MAIL_CODE_PLACEHOLDER)) return { failure: `a \`mail\` block without ${MAIL_CODE_PLACEHOLDER} to put the code in` };
    try {
        return { code: await relay.nextCode(BLOCK_TIMEOUT_MILLISECONDS) };
    } catch (error) {
        return { failure: error.message };
    }
}

async function runGuide(guide) {
    const blocks = guideBlocks(readFileSync(resolve(ROOT, guide), 'utf8'));
    const counts = { shell: 0, javascript: 0, typescript: 0, skipped: 0, refused: 0 };
    const skips = [];
    const notes = []; // the refusals the samples received, listed so a reader of the log can judge them
    const failures = [];
    const dir = scratchProject(guide);
    const data = mkdtempSync(join(tmpdir(), 'guide-samples-'));
    const relay = blocks.some((block) => block.smtp) ? await startMailRelay() : null;
    const server = await startServer(data, relay?.smtpUrl);
    const env = process.env;
    const bash = bashSession(dir, env);
    const name = (block) => `${guide}:${block.line} (${block.kind})`;
    try {
        const typescript = [];
        let answered = server.answers.length; // the answers of the blocks run so far (and the readiness probe's)
        let sessionEnded = false; // a failed shell block ends the session; later shell blocks would fail for that alone
        for (const [index, block] of blocks.entries()) {
            if (block.skip !== null || block.server || block.smtp) {
                counts.skipped++;
                skips.push(`${name(block)}: ${block.server ? "the runner's server" : block.smtp ? "the runner's mail relay" : block.skip}`);
                continue;
            }
            let source = block.code;
            if (block.mail !== null && !(sessionEnded && block.kind === 'shell')) {
                const pasted = await mailCode(block, relay);
                if (pasted.failure) {
                    failures.push(`${name(block)}: ${pasted.failure}`);
                    if (block.kind === 'shell') sessionEnded = true;
                    continue;
                }
                source = source.replaceAll(MAIL_CODE_PLACEHOLDER, pasted.code);
            }
            const code = `${block.prelude}\n${source.replaceAll('localhost:3000', `localhost:${server.port}`)}\n`;
            if (block.kind === 'typescript') {
                typescript.push({ file: `block-${index + 1}.ts`, block });
                writeFileSync(join(dir, `block-${index + 1}.ts`), `${code}export {};\n`);
                continue;
            }
            if (sessionEnded && block.kind === 'shell') continue;
            counts[block.kind]++;
            const file = join(dir, `block-${index + 1}.${block.kind === 'shell' ? 'sh' : 'mjs'}`);
            writeFileSync(file, code);
            // a JavaScript block is the reader's `node` started from the shell of the blocks before
            const nodeEnv = block.kind === 'javascript' && !sessionEnded ? await bash.exported() ?? env : env;
            const result = block.kind === 'shell'
                ? await bash.source(file)
                : await run(process.execPath, [file], { cwd: dir, env: nodeEnv }).then(({ code: exit, output }) => ({ ok: exit === 0, output }));
            // the answers this block received, named by it: a reader of the log judges a refusal by its sample
            await server.settled();
            for (const answer of server.answers.slice(answered)) answer.block = name(block);
            answered = server.answers.length;
            if (!result.ok) failures.push(`${name(block)} failed:\n${result.output.trim()}`);
            if (!result.ok && block.kind === 'shell') sessionEnded = true;
        }
        if (typescript.length > 0) {
            counts.typescript = typescript.length;
            const { code, output } = await run(join(ROOT, 'node_modules/.bin/tsc'), ['-p', 'tsconfig.json'], { cwd: dir, env }, TSC_TIMEOUT_MILLISECONDS);
            for (const { file, block } of typescript) {
                // the file's first line is the prelude's: a line of the block is one less
                const errors = output.split('\n').filter((line) => line.startsWith(`${file}(`))
                    .map((line) => line.replace(/^[^(]+\((\d+),(\d+)\)/, (_, row, column) => (row === '1' ? 'the prelude' : `line ${row - 1}, column ${column}`)));
                if (errors.length > 0) failures.push(`${name(block)} does not compile:\n${errors.join('\n')}`);
            }
            if (code !== 0 && failures.length === 0) failures.push(`${guide}: tsc failed:\n${output}`);
        }
        await server.settled();
        const { answers } = server; // the readiness probe's 200 among them
        const refused = answers.filter(({ status }) => status >= 400 && status < 500);
        counts.refused = refused.length;
        notes.push(...refused.map(({ status, request, block }) => `answered ${status}: ${request}${block ? `, to the block ${block}` : ''}`));
        for (const { status, request, block } of answers.filter(({ status }) => status >= 500 && status !== 503)) {
            failures.push(`${guide}: the server answered ${status} to ${request}${block ? `, to the block ${block}` : ''}`);
        }
    } finally {
        bash.end();
        server.stop();
        await relay?.close();
        rmSync(data, { recursive: true, force: true });
    }
    return { counts, skips, notes, failures };
}

const guides = process.argv.length > 2 ? process.argv.slice(2).map((path) => relative(ROOT, resolve(path))) : GUIDES;
const total = { shell: 0, javascript: 0, typescript: 0, skipped: 0, refused: 0 };
let failed = 0;
for (const guide of guides) {
    const { counts, skips, notes, failures } = await runGuide(guide);
    for (const key of Object.keys(total)) total[key] += counts[key];
    const verdict = failures.length === 0 ? 'ok  ' : 'FAIL';
    console.log(`${verdict} ${guide}: ${counts.shell} shell, ${counts.javascript} js run, ${counts.typescript} ts compiled, ${counts.skipped} skipped; ${counts.refused} answers 4xx`);
    for (const skip of skips) console.log(`       skipped ${skip}`);
    for (const note of notes) console.log(`       ${note}`);
    for (const failure of failures) console.log(failure.replace(/^/gm, '       '));
    if (failures.length > 0) failed++;
}
console.log(`guide samples: ${guides.length - failed}/${guides.length} guides pass; ${total.shell} shell and ${total.javascript} JavaScript blocks run, ${total.typescript} TypeScript blocks compiled, ${total.skipped} skipped`);
process.exitCode = failed > 0 ? 1 : 0;
