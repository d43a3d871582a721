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
 *       [--snapshot FILE] [--node-option FLAG]... [--env NAME=VALUE]... [--compare 'FLAG…']... [--allocations]
 *
 * postgres / mysql use the local servers (BENCH_POSTGRES_URL / BENCH_MYSQL_URL, as the bench);
 * `--redis` gives the server TEST_REDIS_URL or redis://127.0.0.1:6379 as REDIS_URL, as the bench's
 * BENCH_REDIS_URL does. `--node-option` adds a node flag; `--env` an environment variable
 * (NODE_OPTIONS, CACHES…). Each `--compare 'FLAG…'` starts a twin server whose node also gets
 * those flags (e.g. `--heap-growing-percent=0`: V8's own heap growth) on a database seeded alike,
 * and runs each load on every server back to back, so a busy host weighs on all alike; the
 * figures compared are each server's CPU time and its garbage-collection pauses per request.
 * `--allocations` then loads each scenario once more under V8's sampling heap profiler (objects
 * collected since counted too) and prints the bytes allocated per request and where.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { Api, basic, type TokenAnswer } from '../../../../bench/lib/api.js';
import { seedBulk } from '../../../../bench/lib/bulk.js';
import { createBenchDatabase, type BenchDatabase, type BenchDialect } from '../../../../bench/lib/database.js';
import { INSTRUMENT_ARGS, INSTRUMENT_ENV } from '../../../../bench/lib/instrument.js';
import { loadOnce, type LoadRequest } from '../../../../bench/lib/load.js';
import { rssOf, startService, type Service } from '../../../../bench/lib/processes.js';
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
        compare: { type: 'string', multiple: true, default: [] },
        allocations: { type: 'boolean', default: false },
    },
});

/**
 * Answers `{ type: 'memory' }` over the IPC channel the bench already opens for its counters: the
 * process's own figures, after a full collection when asked (`--expose-gc` is not needed:
 * the flag is set at run time and `gc` taken from a fresh context), and the time its
 * garbage-collection pauses took so far.
 */
const PROBE = `
import v8 from 'node:v8';
import vm from 'node:vm';
import { PerformanceObserver } from 'node:perf_hooks';
const gcPauses = { ms: 0, count: 0 };
new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) { gcPauses.ms += entry.duration; gcPauses.count += 1; }
}).observe({ entryTypes: ['gc'] });
import { Session } from 'node:inspector';
let session;
const post = (method, params) => new Promise((resolve, reject) => session.post(method, params, (error, result) => (error ? reject(error) : resolve(result))));
process.on('message', async (message) => {
    if (message?.type === 'allocationsStart') {
        session = new Session();
        session.connect();
        await post('HeapProfiler.startSampling', { samplingInterval: 4096, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
        process.send({ id: message.id });
        return;
    }
    if (message?.type === 'allocationsStop') {
        const { profile } = await post('HeapProfiler.stopSampling');
        session.disconnect();
        process.send({ id: message.id, profile });
        return;
    }
    if (message?.type !== 'memory') return;
    if (message.gc) { v8.setFlagsFromString('--expose-gc'); vm.runInNewContext('gc')(); }
    const spaces = Object.fromEntries(v8.getHeapSpaceStatistics().map((space) => [space.space_name, { size: space.space_size, used: space.space_used_size }]));
    const snapshot = message.snapshot ? v8.writeHeapSnapshot(message.snapshot) : undefined;
    process.send({ id: message.id, usage: process.memoryUsage(), heap: v8.getHeapStatistics(), spaces, snapshot, gcPauses });
});
`;
const PROBE_ARGS = ['--import', `data:text/javascript,${encodeURIComponent(PROBE)}`];

interface Probe {
    usage: NodeJS.MemoryUsage;
    heap: { heap_size_limit: number; total_heap_size: number; used_heap_size: number; malloced_memory: number; external_memory: number };
    spaces: Record<string, { size: number; used: number }>;
    snapshot?: string;
    gcPauses: { ms: number; count: number };
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
const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

interface SamplingNode {
    callFrame: { functionName: string; url: string; lineNumber: number };
    selfSize: number;
    children: SamplingNode[];
}

/** Bytes allocated by function (self), the biggest first. */
function allocationSites(head: SamplingNode): { site: string; bytes: number }[] {
    const bytes = new Map<string, number>();
    const visit = (node: SamplingNode) => {
        const { functionName, url, lineNumber } = node.callFrame;
        const file = url.replace(/^.*\/node_modules\//, '').replace(/^.*\/packages\//, 'packages/');
        const site = `${functionName || '(anonymous)'} ${file}:${lineNumber + 1}`;
        if (node.selfSize > 0) bytes.set(site, (bytes.get(site) ?? 0) + node.selfSize);
        node.children.forEach(visit);
    };
    visit(head);
    return [...bytes].map(([site, size]) => ({ site, bytes: size })).sort((a, b) => b.bytes - a.bytes);
}

interface Server {
    name: string;
    service: Service;
    database: BenchDatabase;
    pid: number;
    probe(options?: { gc?: boolean; snapshot?: string }): Promise<Probe>;
    ask<T>(type: string): Promise<T>;
}

async function startServer(name: string, extraNodeOptions: string[]): Promise<Server> {
    const database = await createBenchDatabase(dialect);
    const port = await freePort();
    const service = await startService({
        name: `realmgate (${dialect}, ${name})`,
        args: [...values['node-option'], ...extraNodeOptions, ...INSTRUMENT_ARGS, ...PROBE_ARGS, CLI, 'start'],
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
    let nextId = 0;
    const ask = <T>(type: string, options: Record<string, unknown> = {}): Promise<T> => {
        const id = `probe-${++nextId}`;
        return new Promise((resolve) => {
            const listen = (message: unknown) => {
                const answer = message as { id?: string } & T;
                if (answer?.id !== id) return;
                service.child.off('message', listen);
                resolve(answer);
            };
            service.child.on('message', listen);
            service.child.send({ type, id, ...options });
        });
    };
    const probe = (options: { gc?: boolean; snapshot?: string } = {}) => ask<Probe>('memory', options);
    return { name, service, database, pid: service.child.pid!, probe, ask };
}

const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
const FORM = 'application/x-www-form-urlencoded';
const bearer = (token: TokenAnswer) => `Bearer ${token.access_token}`;

/** The bench realm (and bulk realms) seeded through the API; the loads of the bench's scaling rows and the catalog. */
async function seed(server: Server): Promise<[string, LoadRequest][]> {
    const url = server.service.url;
    const basicApi = new Api(url, basic(ADMIN.name, ADMIN.password));
    const adminToken = async () => basicApi.token({ grant_type: 'password', username: ADMIN.name, password: ADMIN.password });
    const admin = new Api(url, `Bearer ${(await adminToken()).access_token}`);
    const fixtures = await seedBenchRealm(admin);
    const realms = Number(values.realms);
    if (realms > 0) await seedBulk(admin, server.database, { realms, clients: 20, users: 20, roles: 10 });
    const user = await admin.token({ grant_type: 'password', username: fixtures.user.name, password: fixtures.user.password, realm_name: fixtures.realmName });
    const adminBearer = bearer(await adminToken());
    return [
        ['client_credentials', { method: 'POST', path: '/token', body: form({ grant_type: 'client_credentials', realm_name: fixtures.realmName }), headers: { 'content-type': FORM, authorization: fixtures.plain.authorization } }],
        ['introspection', { method: 'POST', path: '/token/introspect', body: form({ token: user.access_token }), headers: { 'content-type': FORM, authorization: fixtures.plain.authorization } }],
        ['GET /users/@me', { method: 'GET', path: '/users/@me', headers: { authorization: bearer(user) } }],
        ['GET /users?page[limit]=50', { method: 'GET', path: '/users?page[limit]=50', headers: { authorization: bearer(user) } }],
        ['GET /authorization', { method: 'GET', path: '/authorization', headers: { authorization: adminBearer } }],
    ];
}

interface Total {
    requests: number;
    seconds: number;
    cpu: number;
    gcMs: number;
    errors: number;
}

const servers: Server[] = [];
try {
    servers.push(await startServer('as started', []));
    for (const flags of values.compare) servers.push(await startServer(flags, flags.split(' ')));
    for (const server of servers) print(`${server.name}: after boot`, server.pid, await server.probe());
    const loads = new Map<Server, [string, LoadRequest][]>();
    for (const server of servers) {
        loads.set(server, await seed(server));
        print(`${server.name}: after seeding (${values.realms} bulk realms)`, server.pid, await server.probe());
    }
    const rounds = Number(values.rounds);
    const seconds = Number(values.seconds);
    // as the bench: every scenario once per round, 10 connections, each server's run of a scenario
    // right after the other's; the server's CPU time per request (steadier than req/s on a shared
    // host) and its GC pauses per request over every round
    const totals = new Map<string, Total>();
    const scenarioCount = loads.get(servers[0]!)!.length;
    for (let round = 0; round < rounds; round++) {
        for (let index = 0; index < scenarioCount; index++) {
            for (const server of servers) {
                const [name, request] = loads.get(server)![index]!;
                const cpuBefore = cpuMs(server.pid);
                const gcBefore = (await server.probe()).gcPauses.ms;
                const result = await loadOnce(server.service.url, request, 10, seconds, 500);
                const gcMs = (await server.probe()).gcPauses.ms - gcBefore;
                const key = `${server.name}\u0000${name}`;
                const total = totals.get(key) ?? { requests: 0, seconds: 0, cpu: 0, gcMs: 0, errors: 0 };
                totals.set(key, {
                    requests: total.requests + result.requests, seconds: total.seconds + result.seconds,
                    cpu: total.cpu + cpuMs(server.pid) - cpuBefore, gcMs: total.gcMs + gcMs, errors: total.errors + result.errors,
                });
            }
        }
    }
    console.log('');
    for (const [key, total] of totals) {
        const [server, name] = key.split('\u0000');
        console.log(`${server} | ${name}: ${(total.requests / total.seconds).toFixed(0)} req/s, ${(1000 * total.cpu / total.requests).toFixed(0)} µs CPU/request, ${(1000 * total.gcMs / total.requests).toFixed(1)} µs GC pause/request, ${total.errors} errors`);
    }
    // what the bench reads: the resident set right after the rounds
    for (const server of servers) print(`${server.name}: after the load (what the bench reports)`, server.pid, await server.probe());
    if (values.allocations) {
        const server = servers[0]!;
        for (const [name, request] of loads.get(server)!) {
            await server.ask('allocationsStart');
            const result = await loadOnce(server.service.url, request, 10, 2, 500);
            const { profile } = await server.ask<{ profile: { head: SamplingNode } }>('allocationsStop');
            const sites = allocationSites(profile.head);
            const total = sites.reduce((sum, site) => sum + site.bytes, 0);
            console.log(`\n${name}: ${(total / result.requests / 1024).toFixed(1)} kB allocated per request; where:`);
            for (const { site, bytes } of sites.slice(0, 12)) console.log(`   ${(bytes / result.requests / 1024).toFixed(2).padStart(7)} kB  ${site}`);
        }
    }
    const [first] = servers;
    print(`${first!.name}: after a full collection`, first!.pid, await first!.probe({ gc: true, ...(values.snapshot ? { snapshot: values.snapshot } : {}) }));
    if (values.snapshot) console.log(`heap snapshot: ${values.snapshot}`);
} finally {
    for (const server of servers) {
        await server.service.stop();
        await server.database.drop();
    }
}
