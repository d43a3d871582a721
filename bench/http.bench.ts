/**
 * The HTTP benchmark (issue 6): the Realmgate server in its own process on a fresh database, the
 * references (bare Fastify, oidc-provider) each in theirs, load from autocannon in this process,
 * one scenario at a time. Every ratio is taken against a figure measured in the same run.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { benchDecisions } from './access.bench.js';
import { Api, basic, type TokenAnswer } from './lib/api.js';
import { seedBulk, type BulkPlan } from './lib/bulk.js';
import { createBenchDatabase, type BenchDialect, type BenchDatabase } from './lib/database.js';
import { loadOnce, loadPlan, probe, type LoadPlan, type LoadRequest, type RoundResult } from './lib/load.js';
import { bcryptVerifyRate, jwsRates } from './lib/micro.js';
import { rssOf, startService, type Service } from './lib/processes.js';
import type { Row, Section } from './lib/report.js';
import { seedBenchRealm, seedLogins, type Fixtures } from './lib/seed.js';
import { codePool, oidcUserinfoToken, seedSignIn, signInPagePath } from './lib/sign-in.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const ADMIN = { name: 'admin', password: 'start123' };
const OIDC_CLIENT = basic('bench', 'bench-secret-0123456789abcdef0123456789');
const FORM = 'application/x-www-form-urlencoded';
const MB = 2 ** 20;
/** above the cold password-grant rate on this class of host (bcrypt cost 10, 2 cores), so the pool lasts */
const COLD_LOGINS_PER_SECOND = 40;

export interface HttpOptions {
    quick: boolean;
    db: BenchDialect;
    /** run the server from TypeScript source through tsx instead of the built dist */
    source: boolean;
}

export interface HttpReport {
    sections: Section[];
    notes: string[];
    /** the figures the issue's targets name, for the summary */
    targets: Row[];
}

async function freePort(): Promise<number> {
    return new Promise((resolve, reject) => {
        const server = createServer();
        server.once('error', reject);
        server.listen(0, '127.0.0.1', () => {
            const { port } = server.address() as { port: number };
            server.close(() => resolve(port));
        });
    });
}

/**
 * The server as production runs it: the built dist (`npm run build`; tsc still emits when another
 * engineer's in-progress file fails type checking). `--source` runs TypeScript through tsx.
 */
function serverCommand(options: HttpOptions, notes: string[]): string[] {
    if (!options.source) {
        const build = spawnSync('npm', ['run', 'build'], { cwd: ROOT, encoding: 'utf8' });
        const cli = join(ROOT, 'packages/server/dist/cli.js');
        if (existsSync(cli)) {
            if (build.status !== 0) notes.push('`npm run build` reported type errors in files under concurrent change; the emitted dist was used.');
            return [cli, 'start'];
        }
        notes.push('no built dist: the server ran from source through tsx.');
    }
    return ['--conditions=source', '--import', 'tsx', join(ROOT, 'packages/server/src/cli.ts'), 'start'];
}

async function startRealmgate(args: string[], database: BenchDatabase): Promise<Service> {
    const port = await freePort();
    return startService({
        name: 'realmgate',
        args,
        port,
        // the master realm's discovery document: the first answer that needs a migrated, bootstrapped database
        readyPath: '/.well-known/openid-configuration',
        env: {
            PATH: process.env.PATH,
            NODE_ENV: 'production',
            PORT: String(port),
            HOST: '127.0.0.1',
            PUBLIC_URL: `http://127.0.0.1:${port}`,
            WRITABLE_DIRECTORY_PATH: database.directory,
            ...database.env,
            USER_ADMIN_PASSWORD: ADMIN.password,
            SECRETS_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
            // the limits protect a deployment; a benchmark from one address and few identities measures the work
            RATE_LIMIT_USER_MAX: '1000000000',
            RATE_LIMIT_CLIENT_MAX: '1000000000',
            RATE_LIMIT_ANONYMOUS_MAX: '1000000000',
            LOG_LEVEL: 'warn',
        },
    });
}

/** Boots on fresh, empty SQLite databases, to the first 200 answer: the median and the best. */
async function measureBoots(args: string[], count: number): Promise<{ median: number; best: number; all: number[] }> {
    const times: number[] = [];
    for (let i = 0; i < count; i++) {
        const database = await createBenchDatabase('sqlite');
        try {
            const service = await startRealmgate(args, database);
            times.push(service.bootMs);
            await service.stop();
        } finally {
            await database.drop();
        }
    }
    const sorted = [...times].sort((a, b) => a - b);
    return { median: sorted[sorted.length >> 1]!, best: sorted[0]!, all: times };
}

async function startReference(name: string, file: string): Promise<Service> {
    const port = await freePort();
    return startService({
        name, port, args: [join(ROOT, 'bench/references', file)], readyPath: name === 'fastify' ? '/' : '/.well-known/openid-configuration',
        env: { PATH: process.env.PATH, NODE_ENV: 'production', PORT: String(port) },
    });
}

/**
 * The example resource server (examples/resource-server, Fastify) in its own process, answering
 * through @realmgate/adapter in `mode` (or without authorization: `none`), with the bench realm's
 * plain client as its own credential. It runs through tsx like the sources, resolving the adapter
 * as `options.source` says (the built dist by default, like the server).
 */
async function startResourceServer(mode: 'none' | 'local' | 'remote', realmgate: Service, credential: { id: string; secret: string }, options: HttpOptions, cacheSeconds = 0): Promise<Service> {
    const port = await freePort();
    return startService({
        name: `resource server (${mode}${cacheSeconds ? `, ${cacheSeconds} s cache` : ''})`,
        args: [...(options.source ? ['--conditions=source'] : []), '--import', 'tsx', join(ROOT, 'examples/resource-server/main.ts')],
        port,
        readyPath: '/health',
        env: {
            PATH: process.env.PATH, NODE_ENV: 'production', PORT: String(port), FRAMEWORK: 'fastify', MODE: mode,
            REALMGATE_URL: realmgate.url, CLIENT_ID: credential.id, CLIENT_SECRET: credential.secret,
            INTROSPECTION_CACHE_SECONDS: String(cacheSeconds),
        },
    });
}

const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
const post = (path: string, body: string, headers: Record<string, string> = {}, type = FORM): LoadRequest =>
    ({ method: 'POST', path, body, headers: { 'content-type': type, ...headers } });
const get = (path: string, authorization?: string): LoadRequest =>
    ({ method: 'GET', path, headers: authorization ? { authorization } : {} });
const bearer = (token: TokenAnswer) => `Bearer ${token.access_token}`;

/** A scenario's figures over all rounds. */
interface Measured {
    rps: number;
    p50: number;
    p99: number;
    errors: number;
    firstFailure?: string;
    skipped?: string;
}

/** One line of load: warmed once, then run once per round. */
interface Scenario {
    key: string;
    warm(seconds: number, settleMs: number): Promise<void>;
    round(seconds: number, settleMs: number): Promise<RoundResult>;
    skipped?: string;
    failure?: string;
}

/**
 * An HTTP scenario, probed first: a route that answers 404 while `skipOn404` (being built by
 * others) is skipped and says so; another failure is loaded anyway and reported.
 */
async function httpScenario(
    key: string, service: Service, request: LoadRequest, connections: number, skipOn404 = false, before: () => Promise<void> = async () => undefined,
): Promise<Scenario> {
    let failure: string | undefined;
    if (!request.setupRequest) {
        const answer = await probe(service.url, request);
        if (answer.status === 404 && skipOn404) {
            return { key, skipped: 'route answers 404 (not built yet): skipped', warm: async () => undefined, round: async () => ({ requests: 0, seconds: 0, p50: 0, p99: 0, errors: 0 }) };
        }
        if (answer.status >= 300) failure = `${answer.status} ${answer.body.slice(0, 200)}`;
    }
    return {
        key,
        ...(failure ? { failure } : {}),
        async warm(seconds, settleMs) {
            await before();
            await loadOnce(service.url, request, connections, seconds, settleMs);
        },
        async round(seconds, settleMs) {
            await before();
            return loadOnce(service.url, request, connections, seconds, settleMs);
        },
    };
}

/**
 * Code redemption (issue 13): every round first mints the codes it will spend through
 * `POST /authorize` (the API form, untimed), then loads `POST /token` with them. Skipped, and
 * said so, while `POST /authorize` does not answer.
 */
async function codeScenario(key: string, service: Service, codes: ReturnType<typeof codePool>, connections: number): Promise<Scenario> {
    const unavailable = await codes.probe();
    if (unavailable) {
        return { key, skipped: `${unavailable}: skipped`, warm: async () => undefined, round: async () => ({ requests: 0, seconds: 0, p50: 0, p99: 0, errors: 0 }) };
    }
    const request = codes.request();
    const run = async (seconds: number, settleMs: number) => {
        await codes.fill(seconds);
        const result = await loadOnce(service.url, request, connections, seconds, settleMs);
        // successful redemptions only: a refused replay is fast and would inflate the next pool
        codes.observe((result.requests - result.errors) / result.seconds);
        return result;
    };
    return { key, warm: async (seconds, settleMs) => void await run(seconds, settleMs), round: run };
}

/** An in-process rate (calls per second for `seconds`) taking its turn in the rounds like a scenario. */
function inProcessScenario(key: string, rate: (seconds: number) => Promise<number>): Scenario {
    return {
        key,
        warm: async () => undefined,
        round: async (seconds) => ({ requests: (await rate(seconds)) * seconds, seconds, p50: Number.NaN, p99: Number.NaN, errors: 0 }),
    };
}

async function runRounds(scenarios: readonly Scenario[], plan: LoadPlan, log: (line: string) => void): Promise<Map<string, Measured>> {
    const rounds = new Map<string, RoundResult[]>(scenarios.map((scenario) => [scenario.key, []]));
    for (let round = 0; round < plan.rounds; round++) {
        log(`round ${round + 1} of ${plan.rounds} over ${scenarios.length} scenarios`);
        for (const scenario of scenarios) {
            if (scenario.skipped) continue;
            if (round === 0 && plan.warmup > 0) await scenario.warm(plan.warmup, plan.settleMs);
            rounds.get(scenario.key)!.push(await scenario.round(plan.roundSeconds, plan.settleMs));
        }
    }
    const measured = new Map<string, Measured>();
    for (const scenario of scenarios) {
        const results = rounds.get(scenario.key)!;
        if (scenario.skipped) {
            measured.set(scenario.key, { rps: Number.NaN, p50: Number.NaN, p99: Number.NaN, errors: 0, skipped: scenario.skipped });
            continue;
        }
        const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
        const failure = scenario.failure ?? results.find((result) => result.firstFailure)?.firstFailure;
        measured.set(scenario.key, {
            rps: results.reduce((sum, result) => sum + result.requests, 0) / results.reduce((sum, result) => sum + result.seconds, 0),
            // latency: the mean of the rounds' percentiles (autocannon keeps no merged histogram)
            p50: mean(results.map((result) => result.p50)),
            p99: mean(results.map((result) => result.p99)),
            errors: results.reduce((sum, result) => sum + result.errors, 0),
            ...(failure ? { firstFailure: failure } : {}),
        });
    }
    return measured;
}

function row(scenario: string, result: Measured, reference?: { name: string; rps: number }, target?: { ratio: number; text?: string }): Row {
    if (result.skipped) return { scenario, note: result.skipped };
    const ratio = reference ? result.rps / reference.rps : undefined;
    return {
        scenario, rps: result.rps, p50: result.p50, p99: result.p99, errors: result.errors,
        ...(reference ? { reference: reference.name, ratio } : {}),
        ...(target && ratio !== undefined ? { target: target.text ?? `≥ ${target.ratio} ×`, met: ratio >= target.ratio && result.errors === 0 } : {}),
        ...(result.firstFailure ? { note: `first failure: ${result.firstFailure.replace(/\s+/g, ' ').slice(0, 120)}` } : {}),
    };
}

/**
 * Refresh tokens rotate and a replayed one revokes its session, so every request must spend a
 * fresh one: a shared pool, each answer returning its successor.
 */
function refreshRequest(pool: string[]): LoadRequest {
    return {
        method: 'POST', path: '/token', headers: { 'content-type': FORM },
        setupRequest(request, context) {
            const token = pool.shift();
            if (token === undefined) throw new Error('the refresh-token pool ran dry');
            context.token = token;
            return { ...request, body: form({ grant_type: 'refresh_token', refresh_token: token }) };
        },
        onResponse(status, body, context) {
            if (status === 200) pool.push((JSON.parse(body) as TokenAnswer).refresh_token!);
            // a failed rotation must not stall its connection: the consumed token goes back once
            else pool.push(context.token as string);
        },
    };
}

/**
 * Password grants that each pay a full bcrypt verification: the server remembers a successful
 * verification (a keyed digest over the stored hash and the password), so every request signs in
 * an account not signed in before. Should the pool run dry, the run falls back to repeated
 * logins and counts them.
 */
function coldLoginRequest(fixtures: Fixtures, pool: Fixtures['logins'], reused: { count: number }): LoadRequest {
    let next = 0;
    return {
        method: 'POST', path: '/token', headers: { 'content-type': FORM },
        setupRequest(request) {
            let login = pool.shift();
            if (login === undefined) {
                reused.count++;
                login = fixtures.logins[next++ % fixtures.logins.length]!;
            }
            return { ...request, body: form({ grant_type: 'password', username: login.name, password: login.password, realm_name: fixtures.realmName }) };
        },
    };
}

/** Password grants rotating over the login accounts, as many users signing in again would. */
function loginRequest(fixtures: Fixtures): LoadRequest {
    let next = 0;
    return {
        method: 'POST', path: '/token', headers: { 'content-type': FORM },
        setupRequest(request) {
            const login = fixtures.logins[next++ % fixtures.logins.length]!;
            return { ...request, body: form({ grant_type: 'password', username: login.name, password: login.password, realm_name: fixtures.realmName }) };
        },
    };
}

interface Tokens {
    user: TokenAnswer;
    admin: TokenAnswer;
    rsUser: TokenAnswer;
}

async function issueTokens(api: Api, fixtures: Fixtures): Promise<Tokens> {
    return {
        user: await api.token({ grant_type: 'password', username: fixtures.user.name, password: fixtures.user.password, realm_name: fixtures.realmName }),
        admin: await api.token({ grant_type: 'password', username: ADMIN.name, password: ADMIN.password }),
        rsUser: await api.token({ grant_type: 'password', username: fixtures.rs256.user.name, password: fixtures.rs256.user.password, realm_name: fixtures.rs256.realmName }),
    };
}

const ccRequest = (fixtures: Fixtures, client: Fixtures['plain'], realmName = fixtures.realmName) =>
    post('/token', form({ grant_type: 'client_credentials', realm_name: realmName }), { authorization: client.authorization });
const introspectRequest = (fixtures: Fixtures, token: TokenAnswer) =>
    post('/token/introspect', form({ token: token.access_token }), { authorization: fixtures.plain.authorization });
const LIST_PATH = '/users?page[limit]=50';

function bulkPlan(quick: boolean): BulkPlan {
    return quick ? { realms: 50, clients: 20, users: 20, roles: 10 } : { realms: 1_000, clients: 20, users: 20, roles: 10 };
}

/** A Realmgate server with the bench realm seeded through its API. */
interface Seeded {
    service: Service;
    database: BenchDatabase;
    fixtures: Fixtures;
    adminApi(): Promise<Api>;
    rssBoot: number | undefined;
}

async function startSeeded(args: string[], dialect: BenchDialect, services: Service[], databases: BenchDatabase[]): Promise<Seeded> {
    const database = await createBenchDatabase(dialect);
    databases.push(database);
    const service = await startRealmgate(args, database);
    services.push(service);
    const rssBoot = rssOf(service.child.pid);
    // Basic verifies bcrypt on every request: seed as an operator script would, with a bearer token
    const basicApi = new Api(service.url, basic(ADMIN.name, ADMIN.password));
    const adminApi = async () => new Api(service.url, bearer(await basicApi.token({ grant_type: 'password', username: ADMIN.name, password: ADMIN.password })));
    const fixtures = await seedBenchRealm(await adminApi());
    return { service, database, fixtures, adminApi, rssBoot };
}

export async function runHttp(options: HttpOptions, log: (line: string) => void): Promise<HttpReport> {
    const plan = loadPlan(options.quick);
    const notes: string[] = [];
    const args = serverCommand(options, notes);
    log('boot time on empty SQLite databases');
    const boots = await measureBoots(args, 3);
    const services: Service[] = [];
    const databases: BenchDatabase[] = [];
    try {
        log(`starting three realmgate servers (${options.db}) and the references; seeding the bench realm through the API`);
        // `small` serves the bench scenarios; the scaling scenarios run on twins with the same
        // history, one with the bench realm only and one with the bulk realms beside it, so the
        // sessions and caches the other scenarios leave behind weigh on neither side
        const [small, one, large] = await Promise.all([
            startSeeded(args, options.db, services, databases),
            startSeeded(args, options.db, services, databases),
            startSeeded(args, options.db, services, databases),
        ]);
        const fastify = await startReference('fastify', 'fastify.mjs');
        services.push(fastify);
        const oidc = await startReference('oidc-provider', 'oidc-provider.mjs');
        services.push(oidc);

        // issue 17: the example resource server, the same route with no authorization and through the adapter
        const resourceServers = {
            none: await startResourceServer('none', small.service, small.fixtures.plain, options),
            local: await startResourceServer('local', small.service, small.fixtures.plain, options),
            remote: await startResourceServer('remote', small.service, small.fixtures.plain, options),
            remoteCached: await startResourceServer('remote', small.service, small.fixtures.plain, options, 30),
        };
        services.push(...Object.values(resourceServers));

        const bulk = bulkPlan(options.quick);
        log(`bulk seeding ${bulk.realms} realms × ${bulk.clients} clients × ${bulk.users} users × ${bulk.roles} roles into the third server`);
        const seedStart = Date.now();
        await seedBulk(await large.adminApi(), large.database, bulk);
        const seedSeconds = (Date.now() - seedStart) / 1000;

        const { fixtures } = small;
        const api = await small.adminApi();
        const tokens = await issueTokens(api, fixtures);
        const oneTokens = await issueTokens(await one.adminApi(), one.fixtures);
        const largeTokens = await issueTokens(await large.adminApi(), large.fixtures);
        // one session per pooled token (refreshing one chain twice would be a replay); topped up
        // before every run, since the rotations in flight when autocannon stops are lost
        const pool: string[] = [];
        const fillPool = async () => {
            while (pool.length < plan.connections * 2) {
                pool.push((await api.token({ grant_type: 'password', username: fixtures.user.name, password: fixtures.user.password, realm_name: fixtures.realmName })).refresh_token!);
            }
        };
        // accounts signed in once each by the cold password-grant scenario
        // autocannon builds each connection's next request ahead and drops it when it stops: a margin per run
        const coldCount = Math.ceil(COLD_LOGINS_PER_SECOND * (plan.warmup + plan.rounds * plan.roundSeconds)) + 3 * plan.connections * (plan.rounds + 1);
        log(`creating ${coldCount} accounts for the cold password grant`);
        const coldPool = await seedLogins(api, fixtures.realmId, coldCount);
        const coldReused = { count: 0 };
        const opaque = await (await fetch(`${oidc.url}/token`, {
            method: 'POST', headers: { 'content-type': FORM, authorization: OIDC_CLIENT }, body: form({ grant_type: 'client_credentials', scope: 'api' }),
        })).json() as TokenAnswer;
        const signIn = await seedSignIn(api, fixtures);
        const codes = codePool(small.service.url, signIn, signIn.clientId);
        const rs256Codes = codePool(small.service.url, signIn, signIn.rs256ClientId);
        // oidc-provider's development adapter keeps 1,000 entries: a fresh token before each round
        const oidcUserinfo = get('/me', `Bearer ${await oidcUserinfoToken(oidc.url)}`);
        const freshOidcToken = async () => {
            oidcUserinfo.headers!.authorization = `Bearer ${await oidcUserinfoToken(oidc.url)}`;
        };
        const hashCost = Number(/^\$2[abxy]\$(\d{2})\$/.exec(await adminHash(small.database))?.[1] ?? 10);

        const c = plan.connections;
        const server = small.service;
        const scaling = (key: string, request: (seeded: Seeded, own: Tokens) => LoadRequest) => [
            httpScenario(key, one.service, request(one, oneTokens), c),
            httpScenario(`${key}@large`, large.service, request(large, largeTokens), c),
        ];
        const scenarios = await Promise.all([
            httpScenario('fastifyGet', fastify, get('/'), c),
            httpScenario('fastifyPost', fastify, post('/echo', JSON.stringify({ name: 'bench', value: 42 }), {}, 'application/json'), c),
            httpScenario('oidcJwt', oidc, post('/token', form({ grant_type: 'client_credentials', scope: 'api', resource: 'urn:bench:api' }), { authorization: OIDC_CLIENT }), c),
            httpScenario('oidcOpaque', oidc, post('/token', form({ grant_type: 'client_credentials', scope: 'api' }), { authorization: OIDC_CLIENT }), c),
            httpScenario('oidcIntrospect', oidc, post('/token/introspection', form({ token: opaque.access_token }), { authorization: OIDC_CLIENT }), c),
            httpScenario('encrypted', server, ccRequest(fixtures, fixtures.encrypted), c),
            httpScenario('hashed', server, ccRequest(fixtures, fixtures.hashed), c),
            // the password grant and its ceiling side by side
            httpScenario('passwordCold', server, coldLoginRequest(fixtures, coldPool, coldReused), c),
            inProcessScenario('bcrypt', (seconds) => bcryptVerifyRate(hashCost, c, seconds)),
            httpScenario('password', server, loginRequest(fixtures), c),
            httpScenario('refresh', server, refreshRequest(pool), c, false, fillPool),
            httpScenario('check', server, post('/authorization/check', JSON.stringify({ names: fixtures.checkNames }), { authorization: bearer(tokens.user) }, 'application/json'), c, true),
            httpScenario('catalog', server, get('/authorization', bearer(tokens.admin)), c, true),
            // latency as one caller sees it: one request in flight, so no time is spent queued behind others
            httpScenario('checkSolo', server, post('/authorization/check', JSON.stringify({ names: fixtures.checkNames }), { authorization: bearer(tokens.user) }, 'application/json'), 1, true),
            httpScenario('catalogSolo', server, get('/authorization', bearer(tokens.admin)), 1, true),
            httpScenario('rsCc', server, ccRequest(fixtures, fixtures.rs256.client, fixtures.rs256.realmName), c),
            // issue 13, each beside its reference on the same server: redemption and client_credentials,
            // GET /userinfo and GET /users/@me with one token (scope openid profile email global)
            httpScenario('ccSmall', server, ccRequest(fixtures, fixtures.plain), c),
            codeScenario('redeem', server, codes, c),
            codeScenario('redeemRs256', server, rs256Codes, c),
            httpScenario('userinfo', server, get('/userinfo', bearer(signIn.openid)), c, true),
            // one request in flight: the page as one person's browser sees it
            httpScenario('signInPage', server, get(signInPagePath(signIn)), 1),
            httpScenario('meOpenid', server, get('/users/@me', bearer(signIn.openid)), c),
            httpScenario('oidcUserinfo', oidc, oidcUserinfo, c, false, freshOidcToken),
            httpScenario('rsMe', server, get('/users/@me', bearer(tokens.rsUser)), c),
            // issue 17: GET /profile of the example resource server, one token throughout (the cache's best case)
            httpScenario('rsNone', resourceServers.none, get('/profile', bearer(tokens.user)), c),
            httpScenario('rsLocal', resourceServers.local, get('/profile', bearer(tokens.user)), c),
            httpScenario('rsRemote', resourceServers.remote, get('/profile', bearer(tokens.user)), c),
            httpScenario('rsRemoteCached', resourceServers.remoteCached, get('/profile', bearer(tokens.user)), c),
            // 1 realm and many realms adjacent in every round
            ...scaling('cc', ({ fixtures: own }) => ccRequest(own, own.plain)),
            ...scaling('introspect', ({ fixtures: own }, own_tokens) => introspectRequest(own, own_tokens.user)),
            ...scaling('me', (_seeded, own) => get('/users/@me', bearer(own.user))),
            ...scaling('list', (_seeded, own) => get(LIST_PATH, bearer(own.user))),
        ]);
        const measured = await runRounds(scenarios, plan, log);
        const m = (key: string) => measured.get(key)!;
        const rssLoad = rssOf(server.child.pid);
        const rssOne = rssOf(one.service.child.pid);
        const rssLarge = rssOf(large.service.child.pid);

        log('in-process micro-benchmarks');
        const evaluate = (await benchDecisions({ quick: options.quick })).find((result) => result.scenario.startsWith('await evaluate()'))!;
        const es256 = await jwsRates('ES256', { quick: options.quick });
        const rs256 = await jwsRates('RS256', { quick: options.quick });

        const bareGet = { name: 'bare Fastify GET', rps: m('fastifyGet').rps };
        const barePost = { name: 'bare Fastify POST', rps: m('fastifyPost').rps };
        const oidcCc = { name: 'oidc-provider client_credentials', rps: m('oidcJwt').rps };
        const many = `${bulk.realms.toLocaleString('en-US')} realms`;
        const scaled = (name: string, key: string): Row => {
            const one = m(key);
            return row(`${name} @ ${many}`, m(`${key}@large`), { name: `same @ 1 realm (${Math.round(one.rps).toLocaleString('en-US')}/s)`, rps: one.rps }, { ratio: 0.9 });
        };
        const checkSolo = m('checkSolo');
        const checkSoloRow = row('POST /authorization/check, 256 names, 1 connection', checkSolo, barePost);
        if (!checkSolo.skipped) Object.assign(checkSoloRow, { target: 'p50 < 5 ms', met: checkSolo.p50 < 5 && checkSolo.errors === 0 });
        const jws = (rates: typeof es256): Row => ({
            scenario: `${rates.algorithm} sign (in-process, calls/s)`,
            rps: rates.signPerSecond,
            reference: 'ES256 sign',
            ratio: rates.signPerSecond / es256.signPerSecond,
            note: `verify ${Math.round(rates.verifyPerSecond).toLocaleString('en-US')}/s (${(rates.verifyPerSecond / es256.verifyPerSecond).toFixed(2)} × ES256 verify)`,
        });
        const memory = (label: string, bytes: number | undefined, target?: number): Row => ({
            scenario: label,
            note: bytes === undefined ? 'unavailable (no /proc)' : `${(bytes / MB).toFixed(0)} MB`,
            ...(target !== undefined && bytes !== undefined ? { target: `< ${target} MB`, met: bytes / MB < target } : {}),
        });

        const sections: Section[] = [
            {
                title: 'references (each in its own process)',
                rows: [
                    row('bare Fastify GET', m('fastifyGet')),
                    row('bare Fastify POST (small JSON)', m('fastifyPost')),
                    row('oidc-provider client_credentials (ES256 JWT)', m('oidcJwt')),
                    row('oidc-provider client_credentials (opaque)', m('oidcOpaque')),
                    row('oidc-provider introspection (opaque)', m('oidcIntrospect')),
                    row('oidc-provider userinfo GET /me (opaque token)', m('oidcUserinfo')),
                    { scenario: `bcrypt verify, cost ${hashCost} (in-process, ${c} in flight)`, rps: m('bcrypt').rps },
                ],
            },
            {
                title: `realmgate (${options.db}, the bench realm; client_credentials plain, introspection and the /users rows from the 1-realm twin)`,
                rows: [
                    row('client_credentials, plain secret', m('cc'), oidcCc, { ratio: 1 }),
                    row('client_credentials, encrypted secret', m('encrypted'), oidcCc, { ratio: 1 }),
                    row('client_credentials, bcrypt-hashed secret', m('hashed'), oidcCc, { ratio: 0.5 }),
                    {
                        ...row('password grant, every login a first bcrypt verification', m('passwordCold'), { name: `bcrypt verify, cost ${hashCost}`, rps: m('bcrypt').rps }, { ratio: 0.9 }),
                        ...(coldReused.count > 0 ? { note: `${coldReused.count} requests reused an account (pool ran dry)` } : {}),
                    },
                    row(`password grant, ${fixtures.logins.length} accounts signing in again (remembered verification)`, m('password'), { name: `bcrypt verify, cost ${hashCost}`, rps: m('bcrypt').rps }),
                    row('refresh_token (rotation)', m('refresh'), barePost),
                    row('introspection, 50 grants', m('introspect'), barePost, { ratio: 0.5 }),
                    row('bearer GET /users/@me', m('me'), bareGet, { ratio: 0.5 }),
                    row('bearer GET /users?page[limit]=50', m('list'), bareGet),
                    row(`POST /authorization/check, 256 names, ${c} connections`, m('check'), barePost),
                    checkSoloRow,
                    row(`GET /authorization, 1,000 definitions, ${c} connections`, m('catalog'), bareGet),
                    row('GET /authorization, 1,000 definitions, 1 connection', m('catalogSolo'), bareGet),
                    row('client_credentials, plain, RS256 realm', m('rsCc'), { name: 'same, ES256 (twin)', rps: m('cc').rps }),
                    row('bearer GET /users/@me, RS256 realm', m('rsMe'), { name: 'same, ES256 (twin)', rps: m('me').rps }),
                    { scenario: 'in-process evaluate() calls/s (1 grant)', rps: evaluate.median, note: 'packages/access; `npm run bench -- access` for the rest' },
                    jws(es256),
                    jws(rs256),
                ],
            },
            {
                title: 'browser sign-in (issue 13; the bench realm server)',
                rows: [
                    row('client_credentials, plain secret (this server)', m('ccSmall'), oidcCc),
                    {
                        ...row('authorization_code redemption (public client, PKCE S256, access + refresh + ES256 ID token)', m('redeem'),
                            { name: 'client_credentials, plain (this server)', rps: m('ccSmall').rps }, { ratio: 0.8 }),
                        ...(codes.state.dry > 0 ? { note: `${codes.state.dry} requests found the code pool dry and replayed a code` } : {}),
                    },
                    {
                        // the default ID token algorithm: an RSA-2048 signature costs about 15 ES256 ones (the JWS rows above)
                        ...row('same, RS256 ID token (the default when a client registers no algorithm)', m('redeemRs256'),
                            { name: 'client_credentials, plain (this server)', rps: m('ccSmall').rps }),
                        ...(rs256Codes.state.dry > 0 ? { note: `${rs256Codes.state.dry} requests found the code pool dry and replayed a code` } : {}),
                    },
                    {
                        ...row('sign-in page: GET /authorize to the form, 1 connection', m('signInPage'), bareGet),
                        note: 'target: p50 < 5 ms',
                    },
                    row('bearer GET /users/@me (token with openid profile email global)', m('meOpenid'), bareGet),
                    row('GET /userinfo (the same token)', m('userinfo'), { name: 'bearer GET /users/@me, same token', rps: m('meOpenid').rps }, { ratio: 0.9 }),
                    row('GET /userinfo against oidc-provider\'s', m('userinfo'), { name: 'oidc-provider GET /me', rps: m('oidcUserinfo').rps }),
                ],
            },
            {
                title: 'resource server (examples/resource-server on Fastify through @realmgate/adapter, GET /profile, one bearer)',
                rows: [
                    row('no authorization (the same route, adapter off)', m('rsNone'), bareGet),
                    row('adapter, local mode (JWT verified with the realm key, cached by kid)', m('rsLocal'), { name: 'same route, no authorization', rps: m('rsNone').rps }, { ratio: 0.7 }),
                    row('adapter, remote mode (introspection per request)', m('rsRemote'), { name: 'same route, no authorization', rps: m('rsNone').rps }),
                    row('adapter, remote mode, 30 s introspection cache', m('rsRemoteCached'), { name: 'same route, no authorization', rps: m('rsNone').rps }),
                ],
            },
            {
                title: `realm-count scaling (twin servers: the bench realm alone, and beside ${many} × ${bulk.clients} clients × ${bulk.users} users × ${bulk.roles} roles)`,
                rows: [
                    scaled('client_credentials, plain secret', 'cc'),
                    scaled('introspection, 50 grants', 'introspect'),
                    scaled('bearer GET /users/@me', 'me'),
                    scaled('bearer GET /users?page[limit]=50', 'list'),
                ],
            },
            {
                title: 'server process',
                rows: [
                    {
                        scenario: 'boot to first 200, empty SQLite (median of 3)',
                        note: `${Math.round(boots.median)} ms (best ${Math.round(boots.best)} ms)`,
                        target: '< 2000 ms',
                        met: boots.median < 2000,
                    },
                    ...(options.db !== 'sqlite' ? [{ scenario: `boot to first 200, empty ${options.db} database`, note: `${Math.round(small.service.bootMs)} ms` }] : []),
                    memory('RSS after boot', small.rssBoot),
                    memory('RSS after the load (bench realm server)', rssLoad, 200),
                    memory('RSS after the load (1-realm twin)', rssOne, 200),
                    memory(`RSS after the load (${many} twin)`, rssLarge, 200),
                ],
            },
        ];
        notes.push(`${plan.rounds} rounds of ${plan.roundSeconds} s per scenario after ${plan.warmup} s of warm-up, ${c} connections; every scenario runs once per round, so drift in the host's load touches all figures alike. Latency columns are the mean of the rounds' percentiles (whole milliseconds, as autocannon records them).`);
        if (options.quick) notes.push(`quick mode: ${many} instead of 1,000 for the scaling rows.`);
        notes.push(`bulk seeding took ${seedSeconds.toFixed(0)} s: realms through POST /realms, their clients, users and roles cloned in SQL batches from rows the API wrote.`);
        notes.push('the rate limits (RATE_LIMIT_*_MAX) are raised for the run: one address and a few identities would otherwise measure the limiter.');
        const targets = sections.flatMap((section) => section.rows).filter((entry) => entry.target !== undefined);
        return { sections, notes, targets };
    } finally {
        for (const service of services.reverse()) await service.stop().catch(() => undefined);
        for (const database of databases) await database.drop().catch((error: unknown) => console.error(`could not drop a bench database: ${String(error)}`));
    }
}

async function adminHash(database: BenchDatabase): Promise<string> {
    const handle = await database.open();
    try {
        const row = await handle.db.selectFrom('auth_users').select('password').where('name', '=', ADMIN.name).executeTakeFirst();
        return row?.password ?? '';
    } finally {
        await handle.destroy();
    }
}
