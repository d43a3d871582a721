/*
 * The server's resident set under the HTTP benchmark's loads (bench/http.bench.ts), without the
 * full bench: one server from the built dist started as the bench starts it (same environment, the
 * bench's instrumentation preloaded, no node flags of its own), the bench realm seeded through the
 * API, optionally `--realms N` bulk realms beside it, then autocannon on client_credentials,
 * introspection, bearer GET /users/@me, GET /users?page[limit]=50 and the catalog GET
 * /authorization. Prints RSS after boot, after seeding and after the load, with the process's own
 * view: process.memoryUsage(), V8's heap spaces, and (`--snapshot FILE`) a heap snapshot.
 *
 *   npm run build
 *   node --conditions=source --import tsx packages/server/test/measure/rss-under-load.ts \
 *       [--db sqlite|postgres|mysql] [--realms N] [--rounds N] [--seconds N] [--redis] \
 *       [--snapshot FILE] [--node-option FLAG]... [--env NAME=VALUE]...
 *
 * postgres / mysql use the local servers (BENCH_POSTGRES_URL / BENCH_MYSQL_URL, as the bench);
 * `--redis` gives the server TEST_REDIS_URL or redis://127.0.0.1:6379 as REDIS_URL, as the bench's
 * BENCH_REDIS_URL does. `--node-option` adds a node flag (to compare heap settings); `--env`
 * an environment variable (NODE_OPTIONS, CACHES…).
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { Api, basic, type TokenAnswer } from '../../../../bench/lib/api.js';
import { seedBulk } from '../../../../bench/lib/bulk.js';
import { createBenchDatabase, type BenchDialect } from '../../../../bench/lib/database.js';
import { INSTRUMENT_ARGS, INSTRUMENT_ENV } from '../../../../bench/lib/instrument.js';
import { loadOnce, type LoadRequest } from '../../../../bench/lib/load.js';
import { rssOf, startService } from '../../../../bench/lib/processes.js';
import { seedBenchRealm } from '../../../../bench/lib/seed.js';
import { freePort } from '../network.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../../../..');
const CLI = join(ROOT, 'packages/server/dist/cli.js');
const ADMIN = { name: 'admin', password: 'start123' };
const MB = 2 ** 20;

const { values } = parseArgs({
    options: {
        db: { type: 'string', default: 'sqlite' },
        realms: { type: 'string', default: '0' },
        rounds: { type: 'string', default: '3' },
        seconds: { type: 'string', default: '4' },
        redis: { type: 'boolean', default: false },
        snapshot: { type: 'string' },
        'node-option': { type: 'string', multiple: true, default: [] },
        env: { type: 'string', multiple: true, default: [] },
    },
});

/**
 * Answers `{ type: 'memory' }` over the IPC channel the bench already opens for its counters: the
 * process's own figures, after a full collection when asked (`--expose-gc` is not needed:
 * the flag is set at run time and `gc` taken from a fresh context).
 */
const PROBE = `
import v8 from 'node:v8';
import vm from 'node:vm';
process.on('message', (message) => {
    if (message?.type !== 'memory') return;
    if (message.gc) { v8.setFlagsFromString('--expose-gc'); vm.runInNewContext('gc')(); }
    const spaces = Object.fromEntries(v8.getHeapSpaceStatistics().map((space) => [space.space_name, { size: space.space_size, used: space.space_used_size }]));
    const snapshot = message.snapshot ? v8.writeHeapSnapshot(message.snapshot) : undefined;
    process.send({ id: message.id, usage: process.memoryUsage(), heap: v8.getHeapStatistics(), spaces, snapshot });
});
`;
const PROBE_ARGS = ['--import', `data:text/javascript,${encodeURIComponent(PROBE)}`];

interface Probe {
    usage: NodeJS.MemoryUsage;
    heap: { heap_size_limit: number; total_heap_size: number; used_heap_size: number; malloced_memory: number; external_memory: number };
    spaces: Record<string, { size: number; used: number }>;
    snapshot?: string;
}

function extraEnv(): Record<string, string> {
    return Object.fromEntries(values.env.map((pair) => {
        const at = pair.indexOf('=');
        return [pair.slice(0, at), pair.slice(at + 1)];
    }));
}

/** The anonymous and file-backed shares of the resident set (Linux smaps_rollup). */
function residentShares(pid: number): string {
    try {
        const text = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
        const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? 0) / 1024;
        return `anonymous ${kb('Anonymous').toFixed(0)} MB, file-backed ${(kb('Rss') - kb('Anonymous')).toFixed(0)} MB`;
    } catch {
        return 'no smaps_rollup';
    }
}

/** user + system CPU time of a process in ms (Linux /proc/<pid>/stat, clock ticks of 10 ms) */
function cpuMs(pid: number): number {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
}

const mb = (bytes: number | undefined) => (bytes === undefined ? '?' : `${(bytes / MB).toFixed(1)} MB`);

function print(label: string, pid: number, probe: Probe): void {
    const { usage, heap, spaces } = probe;
    console.log(`\n== ${label}: RSS ${mb(rssOf(pid))} (${residentShares(pid)})`);
    console.log(`   heap limit ${mb(heap.heap_size_limit)}; heap total ${mb(usage.heapTotal)}, used ${mb(usage.heapUsed)}; external ${mb(usage.external)} (array buffers ${mb(usage.arrayBuffers)}); V8 malloced ${mb(heap.malloced_memory)}`);
    console.log(`   spaces (size/used): ${Object.entries(spaces).map(([name, space]) => `${name.replace(/_space$/, '')} ${mb(space.size)}/${mb(space.used)}`).join(', ')}`);
}

const dialect = values.db as BenchDialect;
if (!existsSync(CLI)) throw new Error('no built dist: run `npm run build` first');
const database = await createBenchDatabase(dialect);
const port = await freePort();
const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const service = await startService({
    name: `realmgate (${dialect})`,
    args: [...values['node-option'], ...INSTRUMENT_ARGS, ...PROBE_ARGS, CLI, 'start'],
    ipc: true,
    port,
    timeoutMs: 120_000,
    readyPath: '/.well-known/openid-configuration',
    // the bench's environment (bench/http.bench.ts startRealmgate)
    env: {
        PATH: process.env.PATH,
        NODE_ENV: 'production',
        PORT: String(port),
        HOST: '127.0.0.1',
        PUBLIC_URL: `http://127.0.0.1:${port}`,
        WRITABLE_DIRECTORY_PATH: database.directory,
        ...database.env,
        ...(values.redis ? { REDIS_URL: redisUrl } : {}),
        USER_ADMIN_PASSWORD: ADMIN.password,
        SECRETS_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
        RATE_LIMIT_USER_MAX: '1000000000',
        RATE_LIMIT_CLIENT_MAX: '1000000000',
        RATE_LIMIT_ANONYMOUS_MAX: '1000000000',
        TOKEN_ACCESS_MAX_AGE: String(6 * 3600),
        LOG_LEVEL: 'warn',
        ...INSTRUMENT_ENV,
        ...extraEnv(),
    },
});
const pid = service.child.pid!;

let nextId = 0;
function probe(options: { gc?: boolean; snapshot?: string } = {}): Promise<Probe> {
    const id = `memory-${++nextId}`;
    return new Promise((resolve) => {
        const listen = (message: unknown) => {
            const answer = message as { id?: string } & Probe;
            if (answer?.id !== id) return;
            service.child.off('message', listen);
            resolve(answer);
        };
        service.child.on('message', listen);
        service.child.send({ type: 'memory', id, ...options });
    });
}

try {
    print('after boot', pid, await probe());
    const basicApi = new Api(service.url, basic(ADMIN.name, ADMIN.password));
    const adminToken = async () => basicApi.token({ grant_type: 'password', username: ADMIN.name, password: ADMIN.password });
    const admin = new Api(service.url, `Bearer ${(await adminToken()).access_token}`);
    const fixtures = await seedBenchRealm(admin);
    const realms = Number(values.realms);
    if (realms > 0) await seedBulk(admin, database, { realms, clients: 20, users: 20, roles: 10 });
    print(`after seeding (${realms} bulk realms)`, pid, await probe());

    const bearer = (token: TokenAnswer) => `Bearer ${token.access_token}`;
    const user = await admin.token({ grant_type: 'password', username: fixtures.user.name, password: fixtures.user.password, realm_name: fixtures.realmName });
    const adminBearer = bearer(await adminToken());
    const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
    const FORM = 'application/x-www-form-urlencoded';
    const scenarios: [string, LoadRequest][] = [
        ['client_credentials', { method: 'POST', path: '/token', body: form({ grant_type: 'client_credentials', realm_name: fixtures.realmName }), headers: { 'content-type': FORM, authorization: fixtures.plain.authorization } }],
        ['introspection', { method: 'POST', path: '/token/introspect', body: form({ token: user.access_token }), headers: { 'content-type': FORM, authorization: fixtures.plain.authorization } }],
        ['GET /users/@me', { method: 'GET', path: '/users/@me', headers: { authorization: bearer(user) } }],
        ['GET /users?page[limit]=50', { method: 'GET', path: '/users?page[limit]=50', headers: { authorization: bearer(user) } }],
        ['GET /authorization', { method: 'GET', path: '/authorization', headers: { authorization: adminBearer } }],
    ];
    const rounds = Number(values.rounds);
    const seconds = Number(values.seconds);
    // as the bench: every scenario once per round, 10 connections; the server's CPU time per
    // request (steadier than req/s on a shared host) over every round
    const totals = new Map<string, { requests: number; seconds: number; cpu: number; errors: number }>();
    for (let round = 0; round < rounds; round++) {
        for (const [name, request] of scenarios) {
            const cpuBefore = cpuMs(pid);
            const result = await loadOnce(service.url, request, 10, seconds, 500);
            const total = totals.get(name) ?? { requests: 0, seconds: 0, cpu: 0, errors: 0 };
            totals.set(name, { requests: total.requests + result.requests, seconds: total.seconds + result.seconds, cpu: total.cpu + cpuMs(pid) - cpuBefore, errors: total.errors + result.errors });
        }
    }
    for (const [name, total] of totals) {
        console.log(`${name}: ${(total.requests / total.seconds).toFixed(0)} req/s, ${(1000 * total.cpu / total.requests).toFixed(0)} µs CPU/request, ${total.errors} errors`);
    }
    // what the bench reads: the resident set right after the rounds
    print('after the load (what the bench reports)', pid, await probe());
    print('after a full collection', pid, await probe({ gc: true, ...(values.snapshot ? { snapshot: values.snapshot } : {}) }));
    if (values.snapshot) console.log(`heap snapshot: ${values.snapshot}`);
} finally {
    await service.stop();
    await database.drop();
}
