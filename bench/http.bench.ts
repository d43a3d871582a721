/**
 * The HTTP benchmark: the Realmgate server in its own process on a fresh database, the
 * references (bare Fastify, oidc-provider) each in theirs, load from autocannon in this process,
 * one scenario at a time. Every ratio is taken against a figure measured in the same run.
 * With several databases every Realmgate scenario runs on each of them in the same rounds, side
 * by side, while the references run once; the servers count their database statements per
 * request and, after the rounds, give a CPU profile of each protocol scenario. Each engine also
 * gets the floors of the protocol scenarios (bench/lib/floors.ts), measured beside them: the
 * share of its floor is each scenario's yardstick.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { benchDecisions } from './access.bench.js';
import { Api, basic, type TokenAnswer } from './lib/api.js';
import { seedBulk, type BulkPlan } from './lib/bulk.js';
import { createBenchDatabase, type BenchDialect, type BenchDatabase } from './lib/database.js';
import { CHOICE_NAMES, engineOf, isFullChoice, type BenchChoice } from './lib/dialects.js';
import { FLOOR_KINDS, floorSection, floorTargetSection, FLOOR_WORK, roundGroup } from './lib/floor-shares.js';
import { floorMemory, floorScenarios, startFloors, type FloorSet } from './lib/floors.js';
import { INSTRUMENT_ARGS, INSTRUMENT_ENV } from './lib/instrument.js';
import { loadPlan, type LoadPlan, type LoadRequest } from './lib/load.js';
import { bcryptVerifyRate, jwsRates, passkeyAssertionRate } from './lib/micro.js';
import { freePort, rssOf, startService, type Service } from './lib/processes.js';
import { distSourceMaps, summarizeProfile, type ProfileSummary } from './lib/profile.js';
import { compareWithSqlite, type Row, type Section } from './lib/report.js';
import { assertionPool, assertionScenario, seedKeyClient } from './lib/client-assertions.js';
import { codeScenario, httpScenario, inProcessScenario, interleave, profileScenarios, runRounds, type Measured, type Scenario } from './lib/scenarios.js';
import { seedBenchRealm, seedLogins, type Fixtures } from './lib/seed.js';
import { PROTOCOL_SCENARIOS, targetSection } from './lib/targets.js';
import { codePool, oidcUserinfoToken, pushRequest, seedSignIn, signInPagePath } from './lib/sign-in.js';
import { dpopProofPool, dpopScenario } from './lib/dpop.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const ADMIN = { name: 'admin', password: 'start123' };
const OIDC_CLIENT = basic('bench', 'bench-secret-0123456789abcdef0123456789');
const FORM = 'application/x-www-form-urlencoded';
const MB = 2 ** 20;
/** above the cold password-grant rate on this class of host (bcrypt cost 10, 2 cores), so the pool lasts */
const COLD_LOGINS_PER_SECOND = 40;
/** longer than any run: the scenarios' bearer tokens are issued once, at seeding */
const ACCESS_TOKEN_SECONDS = 6 * 3600;

export interface HttpOptions {
    quick: boolean;
    /** every Realmgate scenario runs on each, in this order (SQLite first is the comparison's base); `postgres+redis` the protocol scenarios */
    dbs: readonly BenchChoice[];
    /** run the server from TypeScript source through tsx instead of the built dist */
    source: boolean;
    /** a CPU profile of each protocol scenario after the rounds (`--no-profile` turns it off) */
    profile: boolean;
}

export interface ProfileEntry {
    /** the scenario and its database, e.g. `client_credentials (postgres)` */
    title: string;
    summary: ProfileSummary;
}

export interface HttpReport {
    sections: Section[];
    notes: string[];
    /** the rows that carry a target, for the summary */
    targets: Row[];
    profiles: ProfileEntry[];
}

/**
 * The server as production runs it: the built dist (`npm run build`; tsc still emits when another
 * engineer's in-progress file fails type checking). `--source` runs TypeScript through tsx.
 */
export function serverCommand(options: Pick<HttpOptions, 'source'>, notes: string[]): string[] {
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

/** the Redis of the `postgres+redis` servers */
const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * A Realmgate server on `database`, in its default configuration: with Redis only for the
 * `postgres+redis` choice. `instrument` preloads the bench's counters and profiler
 * (bench/lib/instrument-child.mjs) and opens the IPC channel they answer on.
 */
export async function startRealmgate(args: string[], database: BenchDatabase, instrument = true, redis = false): Promise<Service> {
    const port = await freePort();
    return startService({
        name: `realmgate (${database.dialect}${redis ? ' + redis' : ''})`,
        args: instrument ? [...INSTRUMENT_ARGS, ...args] : args,
        ipc: instrument,
        port,
        // three servers boot at once per database, from source in quick runs: a shared, loaded host needs the margin
        timeoutMs: 300_000,
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
            // a server database is shared by replicas, so its caches are on only with a bus that empties
            // them on every replica (docs/operations/caches.md): PostgreSQL's own LISTEN/NOTIFY without Redis, so
            // the default PostgreSQL server caches too; MySQL only with Redis, which no MySQL server here
            // has. `postgres+redis` benches PostgreSQL with the Redis bus in its stead
            ...(redis ? { REDIS_URL } : {}),
            USER_ADMIN_PASSWORD: ADMIN.password,
            SECRETS_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
            // the limits protect a deployment; a benchmark from one address and few identities measures the work
            RATE_LIMIT_USER_MAX: '1000000000',
            RATE_LIMIT_CLIENT_MAX: '1000000000',
            RATE_LIMIT_ANONYMOUS_MAX: '1000000000',
            // the bearer tokens are issued at seeding and used to the end: with several databases a run
            // outlasts the default 15 minutes (the lifetime changes no work a request does)
            TOKEN_ACCESS_MAX_AGE: String(ACCESS_TOKEN_SECONDS),
            LOG_LEVEL: 'warn',
            // no balancer in front: a stop needs no drain
            SHUTDOWN_DRAIN_MS: '0',
            ...(instrument ? INSTRUMENT_ENV : {}),
        },
    });
}

/** Boots on fresh, empty SQLite databases, to the first 200 answer: the median and the best. */
async function measureBoots(args: string[], count: number): Promise<{ median: number; best: number; all: number[] }> {
    const times: number[] = [];
    for (let i = 0; i < count; i++) {
        const database = await createBenchDatabase('sqlite');
        try {
            // without the bench's preload: the boot as a deployment sees it
            const service = await startRealmgate(args, database, false);
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

export function row(scenario: string, result: Measured, reference?: { name: string; rps: number }, target?: { ratio: number; text?: string }): Row {
    if (result.skipped) return { scenario, note: result.skipped };
    const ratio = reference ? result.rps / reference.rps : undefined;
    return {
        scenario, rps: result.rps, p50: result.p50, p99: result.p99, errors: result.errors,
        ...(reference ? { reference: reference.name, ratio } : {}),
        ...(target && ratio !== undefined ? { target: target.text ?? `≥ ${target.ratio} ×`, met: ratio >= target.ratio && result.errors === 0 } : {}),
        ...(result.firstFailure ? { note: `first failure: ${result.firstFailure.replace(/\s+/g, ' ').slice(0, 120)}` } : {}),
        ...(result.roundTrips !== undefined ? { roundTrips: result.roundTrips } : {}),
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

/** The catalog's current ETag for this caller (its reach is part of it). */
async function catalogEtag(service: Service, authorization: string): Promise<string> {
    const response = await fetch(`${service.url}/authorization`, { headers: { authorization } });
    await response.arrayBuffer();
    const etag = response.headers.get('etag');
    if (response.status !== 200 || !etag) throw new Error(`GET /authorization answered ${response.status} without an ETag`);
    return etag;
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

async function startSeeded(args: string[], choice: BenchChoice, services: Service[], databases: BenchDatabase[]): Promise<Seeded> {
    const database = await createBenchDatabase(engineOf(choice));
    databases.push(database);
    const service = await startRealmgate(args, database, true, choice === 'postgres+redis');
    services.push(service);
    const rssBoot = rssOf(service.child.pid);
    // Basic verifies bcrypt on every request: seed as an operator script would, with a bearer token
    const basicApi = new Api(service.url, basic(ADMIN.name, ADMIN.password));
    const adminApi = async () => new Api(service.url, bearer(await basicApi.token({ grant_type: 'password', username: ADMIN.name, password: ADMIN.password })));
    const fixtures = await seedBenchRealm(await adminApi());
    return { service, database, fixtures, adminApi, rssBoot };
}

/** V8's default is 1,000 µs; finer gives enough samples from a short window */
const PROFILE_INTERVAL_MICROS = 500;
const profileSeconds = (quick: boolean) => (quick ? 1 : 2);

/** The references every database's figures are compared with, measured once per pass. */
interface References {
    fastify: Service;
    oidc: Service;
    scenarios: Scenario[];
}

async function startReferences(plan: LoadPlan, services: Service[], hashCost: () => number): Promise<References> {
    const c = plan.connections;
    const fastify = await startReference('fastify', 'fastify.mjs');
    services.push(fastify);
    const oidc = await startReference('oidc-provider', 'oidc-provider.mjs');
    services.push(oidc);
    const opaque = await (await fetch(`${oidc.url}/token`, {
        method: 'POST', headers: { 'content-type': FORM, authorization: OIDC_CLIENT }, body: form({ grant_type: 'client_credentials', scope: 'api' }),
    })).json() as TokenAnswer;
    // oidc-provider's development adapter keeps 1,000 entries: a fresh token before each round
    const oidcUserinfo = get('/me', `Bearer ${await oidcUserinfoToken(oidc.url)}`);
    const freshOidcToken = async () => {
        oidcUserinfo.headers!.authorization = `Bearer ${await oidcUserinfoToken(oidc.url)}`;
    };
    const scenarios = await Promise.all([
        httpScenario('fastifyGet', fastify, get('/'), c),
        httpScenario('fastifyPost', fastify, post('/echo', JSON.stringify({ name: 'bench', value: 42 }), {}, 'application/json'), c),
        httpScenario('oidcJwt', oidc, post('/token', form({ grant_type: 'client_credentials', scope: 'api', resource: 'urn:bench:api' }), { authorization: OIDC_CLIENT }), c),
        httpScenario('oidcOpaque', oidc, post('/token', form({ grant_type: 'client_credentials', scope: 'api' }), { authorization: OIDC_CLIENT }), c),
        httpScenario('oidcIntrospect', oidc, post('/token/introspection', form({ token: opaque.access_token }), { authorization: OIDC_CLIENT }), c),
        httpScenario('oidcUserinfo', oidc, oidcUserinfo, c, { before: freshOidcToken }),
        // the password grant's ceiling, at the cost the server's stored hashes use
        inProcessScenario('bcrypt', (seconds) => bcryptVerifyRate(hashCost(), c, seconds)),
    ]);
    return { fastify, oidc, scenarios };
}

/**
 * One session per pooled refresh token (refreshing one chain twice would be a replay); topped up
 * before every run, since the rotations in flight when autocannon stops are lost.
 */
function refreshPool(api: Api, fixtures: Fixtures, connections: number) {
    const pool: string[] = [];
    const fillPool = async () => {
        while (pool.length < connections * 2) {
            pool.push((await api.token({ grant_type: 'password', username: fixtures.user.name, password: fixtures.user.password, realm_name: fixtures.realmName })).refresh_token!);
        }
    };
    return { pool, fillPool };
}

/**
 * PostgreSQL with the Redis bus, beside the full passes: the protocol scenarios (the ones with a
 * floor) on one seeded server, which holds the bench realm only. A full pass would add the length
 * of one database to the run for rows the PostgreSQL pass already gives.
 */
interface ProtocolRun {
    choice: BenchChoice;
    seeded: Seeded;
    codes: ReturnType<typeof codePool>;
    scenarios: Scenario[];
}

async function prepareProtocolRun(
    choice: BenchChoice, args: string[], plan: LoadPlan, services: Service[], databases: BenchDatabase[], log: (line: string) => void,
): Promise<ProtocolRun> {
    log(`starting a realmgate server (${choice}${choice === 'postgres+redis' ? `, REDIS_URL ${new URL(REDIS_URL).host}` : ''}); seeding the bench realm through the API`);
    const seeded = await startSeeded(args, choice, services, databases);
    const { fixtures, service } = seeded;
    const api = await seeded.adminApi();
    const tokens = await issueTokens(api, fixtures);
    const { pool, fillPool } = refreshPool(api, fixtures, plan.connections);
    const signIn = await seedSignIn(api, fixtures);
    const codes = codePool(service.url, signIn, signIn.clientId);
    const c = plan.connections;
    const k = (key: string) => keyOn(choice, key);
    const realmgate = { server: true };
    const scenarios = await Promise.all([
        httpScenario(k('cc'), service, ccRequest(fixtures, fixtures.plain), c, realmgate),
        httpScenario(k('introspect'), service, introspectRequest(fixtures, tokens.user), c, realmgate),
        httpScenario(k('me'), service, get('/users/@me', bearer(tokens.user)), c, realmgate),
        httpScenario(k('userinfo'), service, get('/userinfo', bearer(signIn.openid)), c, realmgate),
        codeScenario(k('redeem'), service, codes, c),
        httpScenario(k('refresh'), service, refreshRequest(pool), c, { ...realmgate, before: fillPool }),
    ]);
    return { choice, seeded, codes, scenarios };
}

/** Everything one database contributes to the pass: its servers, fixtures and scenarios. */
interface DatabaseRun {
    dialect: BenchDialect;
    small: Seeded;
    one: Seeded;
    large: Seeded;
    resourceServers: Record<'none' | 'local' | 'remote' | 'remoteCached', Service>;
    fixtures: Fixtures;
    bulk: BulkPlan;
    seedSeconds: number;
    hashCost: number;
    coldReused: { count: number };
    codes: ReturnType<typeof codePool>;
    rs256Codes: ReturnType<typeof codePool>;
    assertions: ReturnType<typeof assertionPool>;
    /** the same list, in the same order, on every database */
    scenarios: Scenario[];
}

/** The scenario key of `key` on a database: the rounds hold every database's scenarios at once. */
const keyOn = (choice: BenchChoice, key: string) => `${choice}:${key}`;

async function prepareDatabase(
    dialect: BenchDialect, args: string[], plan: LoadPlan, options: HttpOptions, services: Service[], databases: BenchDatabase[], log: (line: string) => void,
): Promise<DatabaseRun> {
    log(`starting three realmgate servers (${dialect}); seeding the bench realm through the API`);
    // `small` serves the bench scenarios; the scaling scenarios run on twins with the same
    // history, one with the bench realm only and one with the bulk realms beside it, so the
    // sessions and caches the other scenarios leave behind weigh on neither side
    // settled, not raced: a server that boots after its sibling failed is still in `services` when the run stops them
    const started = await Promise.allSettled([0, 1, 2].map(() => startSeeded(args, dialect, services, databases)));
    const failed = started.find((result) => result.status === 'rejected');
    if (failed) throw failed.reason;
    const [small, one, large] = started.map((result) => (result as PromiseFulfilledResult<Seeded>).value) as [Seeded, Seeded, Seeded];

    // the example resource server, the same route with no authorization and through the adapter
    const resourceServers = {
        none: await startResourceServer('none', small.service, small.fixtures.plain, options),
        local: await startResourceServer('local', small.service, small.fixtures.plain, options),
        remote: await startResourceServer('remote', small.service, small.fixtures.plain, options),
        remoteCached: await startResourceServer('remote', small.service, small.fixtures.plain, options, 30),
    };
    services.push(...Object.values(resourceServers));

    const bulk = bulkPlan(options.quick);
    log(`bulk seeding ${bulk.realms} realms × ${bulk.clients} clients × ${bulk.users} users × ${bulk.roles} roles into the third server (${dialect})`);
    const seedStart = Date.now();
    await seedBulk(await large.adminApi(), large.database, bulk);
    const seedSeconds = (Date.now() - seedStart) / 1000;

    const { fixtures } = small;
    const api = await small.adminApi();
    const tokens = await issueTokens(api, fixtures);
    const oneTokens = await issueTokens(await one.adminApi(), one.fixtures);
    const largeTokens = await issueTokens(await large.adminApi(), large.fixtures);
    const { pool, fillPool } = refreshPool(api, fixtures, plan.connections);
    // accounts signed in once each by the cold password-grant scenario (and its profile window)
    // autocannon builds each connection's next request ahead and drops it when it stops: a margin per run
    const coldCount = Math.ceil(COLD_LOGINS_PER_SECOND * (plan.warmup + plan.rounds * plan.roundSeconds)) + 3 * plan.connections * (plan.rounds + 1);
    log(`creating ${coldCount} accounts for the cold password grant (${dialect})`);
    const coldPool = await seedLogins(api, fixtures.realmId, coldCount);
    const coldReused = { count: 0 };
    const signIn = await seedSignIn(api, fixtures);
    const codes = codePool(small.service.url, signIn, signIn.clientId);
    // client_credentials with private_key_jwt, a fresh ES256 assertion per request (issuer as audience)
    const assertions = assertionPool(await seedKeyClient(api, fixtures.realmId), `${small.service.url}/realms/${fixtures.realmName}`, fixtures.realmName);
    const rs256Codes = codePool(small.service.url, signIn, signIn.rs256ClientId);
    const hashCost = Number(/^\$2[abxy]\$(\d{2})\$/.exec(await adminHash(small.database))?.[1] ?? 10);

    const c = plan.connections;
    const server = small.service;
    const k = (key: string) => keyOn(dialect, key);
    const realmgate = { server: true };
    const scaling = (key: string, request: (seeded: Seeded, own: Tokens) => LoadRequest) => [
        httpScenario(k(key), one.service, request(one, oneTokens), c, realmgate),
        httpScenario(k(`${key}@large`), large.service, request(large, largeTokens), c, realmgate),
    ];
    const scenarios = await Promise.all([
        httpScenario(k('encrypted'), server, ccRequest(fixtures, fixtures.encrypted), c, realmgate),
        httpScenario(k('hashed'), server, ccRequest(fixtures, fixtures.hashed), c, realmgate),
        // the password grant beside its ceiling (the bcrypt reference)
        httpScenario(k('passwordCold'), server, coldLoginRequest(fixtures, coldPool, coldReused), c, realmgate),
        httpScenario(k('password'), server, loginRequest(fixtures), c, realmgate),
        httpScenario(k('refresh'), server, refreshRequest(pool), c, { ...realmgate, before: fillPool }),
        httpScenario(k('check'), server, post('/authorization/check', JSON.stringify({ names: fixtures.checkNames }), { authorization: bearer(tokens.user) }, 'application/json'), c, { ...realmgate, skipOn404: true }),
        httpScenario(k('catalog'), server, get('/authorization', bearer(tokens.admin)), c, { ...realmgate, skipOn404: true }),
        // latency as one caller sees it: one request in flight, so no time is spent queued behind others
        httpScenario(k('checkSolo'), server, post('/authorization/check', JSON.stringify({ names: fixtures.checkNames }), { authorization: bearer(tokens.user) }, 'application/json'), 1, { ...realmgate, skipOn404: true }),
        httpScenario(k('catalogSolo'), server, get('/authorization', bearer(tokens.admin)), 1, { ...realmgate, skipOn404: true }),
        // a consumer that kept the catalog asks again with its ETag and gets 304
        httpScenario(k('catalog304'), server, { ...get('/authorization', bearer(tokens.admin)), headers: { authorization: bearer(tokens.admin), 'if-none-match': await catalogEtag(server, bearer(tokens.admin)) }, expectStatus: 304 }, c, realmgate),
        httpScenario(k('rsCc'), server, ccRequest(fixtures, fixtures.rs256.client, fixtures.rs256.realmName), c, realmgate),
        // browser sign-in, each beside its reference on the same server: redemption and client_credentials,
        // GET /userinfo and GET /users/@me with one token (scope openid profile email global)
        httpScenario(k('ccSmall'), server, ccRequest(fixtures, fixtures.plain), c, realmgate),
        assertionScenario(k('privateKeyJwt'), server, assertions, c),
        // RFC 9449: the same client_credentials with a fresh DPoP proof per request (a bound token)
        dpopScenario(k('ccDpop'), server, ccRequest(fixtures, fixtures.plain), c, dpopProofPool('POST', `${server.url}/token`)),
        // RFC 9126: a pushed authorization request, beside client_credentials on the same server
        httpScenario(k('parPush'), server, pushRequest(signIn), c, realmgate),
        codeScenario(k('redeem'), server, codes, c),
        codeScenario(k('redeemRs256'), server, rs256Codes, c),
        httpScenario(k('userinfo'), server, get('/userinfo', bearer(signIn.openid)), c, { ...realmgate, skipOn404: true }),
        // one request in flight: the page as one person's browser sees it
        httpScenario(k('signInPage'), server, get(signInPagePath(signIn)), 1, realmgate),
        httpScenario(k('meOpenid'), server, get('/users/@me', bearer(signIn.openid)), c, realmgate),
        httpScenario(k('rsMe'), server, get('/users/@me', bearer(tokens.rsUser)), c, realmgate),
        // GET /profile of the example resource server, one token throughout (the cache's best case)
        httpScenario(k('rsNone'), resourceServers.none, get('/profile', bearer(tokens.user)), c),
        httpScenario(k('rsLocal'), resourceServers.local, get('/profile', bearer(tokens.user)), c),
        httpScenario(k('rsRemote'), resourceServers.remote, get('/profile', bearer(tokens.user)), c),
        httpScenario(k('rsRemoteCached'), resourceServers.remoteCached, get('/profile', bearer(tokens.user)), c),
        // 1 realm and many realms adjacent in every round
        ...scaling('cc', ({ fixtures: own }) => ccRequest(own, own.plain)),
        ...scaling('introspect', ({ fixtures: own }, own_tokens) => introspectRequest(own, own_tokens.user)),
        ...scaling('me', (_seeded, own) => get('/users/@me', bearer(own.user))),
        ...scaling('list', (_seeded, own) => get(LIST_PATH, bearer(own.user))),
    ]);
    return { dialect, small, one, large, resourceServers, fixtures, bulk, seedSeconds, hashCost, coldReused, codes, rs256Codes, assertions, scenarios };
}

/** the keys of databaseSections' sections, in the report's order */
const TOPICS = ['realmgate', 'sign-in', 'resource', 'scaling', 'process'];

const DIALECT_NAMES: Record<BenchDialect, string> = { sqlite: 'SQLite', postgres: 'PostgreSQL', mysql: 'MySQL' };

const memory = (label: string, bytes: number | undefined, target?: number): Row => ({
    scenario: label,
    note: bytes === undefined ? 'unavailable (no /proc)' : `${(bytes / MB).toFixed(0)} MB`,
    ...(target !== undefined && bytes !== undefined ? { target: `< ${target} MB`, met: bytes / MB < target } : {}),
});

/** The figures of the references a database's rows are compared with. */
interface ReferenceFigures {
    bareGet: { name: string; rps: number };
    barePost: { name: string; rps: number };
    oidcCc: { name: string; rps: number };
    oidcUserinfo: { name: string; rps: number };
    bcrypt: { name: string; rps: number };
}

/** RSS of every server of a database run, read right after the rounds. */
interface RunMemory {
    small: number | undefined;
    one: number | undefined;
    large: number | undefined;
    resourceServers: Record<keyof DatabaseRun['resourceServers'], number | undefined>;
}

function readRunMemory(run: DatabaseRun): RunMemory {
    const rs = run.resourceServers;
    return {
        small: rssOf(run.small.service.child.pid),
        one: rssOf(run.one.service.child.pid),
        large: rssOf(run.large.service.child.pid),
        resourceServers: { none: rssOf(rs.none.child.pid), local: rssOf(rs.local.child.pid), remote: rssOf(rs.remote.child.pid), remoteCached: rssOf(rs.remoteCached.child.pid) },
    };
}

function databaseSections(
    run: DatabaseRun, measured: (key: string) => Measured, refs: ReferenceFigures, memoryAfter: RunMemory, boot: Row[], connections: number,
): Section[] {
    const { dialect, fixtures } = run;
    const m = (key: string) => measured(keyOn(dialect, key));
    const c = connections;
    const many = `${run.bulk.realms.toLocaleString('en-US')} realms`;
    const scaled = (name: string, key: string): Row => {
        const one = m(key);
        return row(`${name} @ ${many}`, m(`${key}@large`), { name: `same @ 1 realm (${Math.round(one.rps).toLocaleString('en-US')}/s)`, rps: one.rps }, { ratio: 0.9 });
    };
    const checkSolo = m('checkSolo');
    const checkSoloRow = row('POST /authorization/check, 256 names, 1 connection', checkSolo, refs.barePost);
    if (!checkSolo.skipped) Object.assign(checkSoloRow, { target: 'p50 < 5 ms', met: checkSolo.p50 < 5 && checkSolo.errors === 0 });
    const ccSmall = { name: 'client_credentials, plain (this server)', rps: m('ccSmall').rps };
    const dry = (state: { dry: number }) => (state.dry > 0 ? { note: `${state.dry} requests found the code pool dry and replayed a code` } : {});
    const unauthorized = { name: 'same route, no authorization', rps: m('rsNone').rps };
    const rss = memoryAfter.resourceServers;
    return [
        {
            key: 'realmgate', dialect,
            title: `realmgate (${dialect}, the bench realm; client_credentials plain, introspection and the /users rows from the 1-realm twin)`,
            rows: [
                row('client_credentials, plain secret', m('cc'), refs.oidcCc, { ratio: 1 }),
                row('client_credentials, encrypted secret', m('encrypted'), refs.oidcCc, { ratio: 1 }),
                row('client_credentials, bcrypt-hashed secret', m('hashed'), refs.oidcCc, { ratio: 0.5 }),
                {
                    ...row('password grant, every login a first bcrypt verification', m('passwordCold'), refs.bcrypt, { ratio: 0.9 }),
                    ...(run.coldReused.count > 0 ? { note: `${run.coldReused.count} requests reused an account (pool ran dry)` } : {}),
                },
                row(`password grant, ${fixtures.logins.length} accounts signing in again (remembered verification)`, m('password'), refs.bcrypt),
                row('refresh_token (rotation)', m('refresh'), refs.barePost),
                row('introspection, 50 grants', m('introspect'), refs.barePost, { ratio: 0.5 }),
                row('bearer GET /users/@me', m('me'), refs.bareGet, { ratio: 0.5 }),
                row('bearer GET /users?page[limit]=50', m('list'), refs.bareGet),
                row(`POST /authorization/check, 256 names, ${c} connections`, m('check'), refs.barePost),
                checkSoloRow,
                row(`GET /authorization, 1,000 definitions, ${c} connections`, m('catalog'), refs.bareGet),
                row('GET /authorization, 1,000 definitions, 1 connection', m('catalogSolo'), refs.bareGet),
                row(`GET /authorization, 1,000 definitions, If-None-Match → 304, ${c} connections`, m('catalog304'), refs.bareGet, { ratio: 0.5 }),
                row('client_credentials, plain, RS256 realm', m('rsCc'), { name: 'same, ES256 (twin)', rps: m('cc').rps }),
                row('bearer GET /users/@me, RS256 realm', m('rsMe'), { name: 'same, ES256 (twin)', rps: m('me').rps }),
            ],
        },
        {
            key: 'sign-in', dialect,
            title: `browser sign-in (the bench realm server, ${dialect})`,
            rows: [
                row('client_credentials, plain secret (this server)', m('ccSmall'), refs.oidcCc),
                row('client_credentials (DPoP), a fresh proof per request', m('ccDpop'), { name: 'client_credentials, plain (this server)', rps: m('ccSmall').rps }, { ratio: 0.7 }),
                {
                    ...row('client_credentials (private_key_jwt), an ES256 assertion per request', m('privateKeyJwt'), ccSmall, { ratio: 0.7 }),
                    ...dry(run.assertions.state),
                },
                {
                    // its target is a share of the redemption floor (the share-of-floor targets)
                    ...row('authorization_code redemption (public client, PKCE S256, access + refresh + ES256 ID token)', m('redeem'), ccSmall),
                    ...dry(run.codes.state),
                },
                {
                    // the default ID token algorithm: an RSA-2048 signature costs about 15 ES256 ones (the JWS rows)
                    ...row('same, RS256 ID token (the default when a client registers no algorithm)', m('redeemRs256'), ccSmall),
                    ...dry(run.rs256Codes.state),
                },
                row('PAR push: POST /par, Basic with a plain secret (RFC 9126)', m('parPush'), ccSmall, { ratio: 0.8 }),
                { ...row('sign-in page: GET /authorize to the form, 1 connection', m('signInPage'), refs.bareGet), note: 'target: p50 < 5 ms' },
                row('bearer GET /users/@me (token with openid profile email global)', m('meOpenid'), refs.bareGet),
                row('GET /userinfo (the same token)', m('userinfo'), { name: 'bearer GET /users/@me, same token', rps: m('meOpenid').rps }, { ratio: 0.9 }),
                row('GET /userinfo against oidc-provider\'s', m('userinfo'), refs.oidcUserinfo),
            ],
        },
        {
            key: 'resource', dialect,
            title: `resource server (examples/resource-server on Fastify through @realmgate/adapter, GET /profile, one bearer; Realmgate on ${dialect})`,
            rows: [
                row('no authorization (the same route, adapter off)', m('rsNone'), refs.bareGet),
                row('adapter, local mode (JWT verified with the realm key, cached by kid)', m('rsLocal'), unauthorized, { ratio: 0.7 }),
                row('adapter, remote mode (introspection per request)', m('rsRemote'), unauthorized),
                row('adapter, remote mode, 30 s introspection cache', m('rsRemoteCached'), unauthorized),
                memory('RSS after the load: resource server, no authorization', rss.none),
                memory('RSS after the load: resource server, local mode', rss.local),
                memory('RSS after the load: resource server, remote mode', rss.remote),
                memory('RSS after the load: resource server, remote mode, 30 s cache', rss.remoteCached),
            ],
        },
        {
            key: 'scaling', dialect,
            title: `realm-count scaling (${dialect}; twin servers: the bench realm alone, and beside ${many} × ${run.bulk.clients} clients × ${run.bulk.users} users × ${run.bulk.roles} roles)`,
            rows: [
                scaled('client_credentials, plain secret', 'cc'),
                scaled('introspection, 50 grants', 'introspect'),
                scaled('bearer GET /users/@me', 'me'),
                scaled('bearer GET /users?page[limit]=50', 'list'),
            ],
        },
        {
            key: 'process', dialect,
            title: `server process (${dialect})`,
            rows: [
                ...boot,
                memory('RSS after boot', run.small.rssBoot),
                memory('RSS after the load (bench realm server)', memoryAfter.small, 200),
                memory('RSS after the load (1-realm twin)', memoryAfter.one, 200),
                memory(`RSS after the load (${many} twin)`, memoryAfter.large, 200),
            ],
        },
    ];
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
        const runs: DatabaseRun[] = [];
        for (const dialect of options.dbs.filter(isFullChoice)) runs.push(await prepareDatabase(dialect, args, plan, options, services, databases, log));
        const protocolRuns: ProtocolRun[] = [];
        for (const choice of options.dbs.filter((choice) => !isFullChoice(choice))) protocolRuns.push(await prepareProtocolRun(choice, args, plan, services, databases, log));
        const floorSets: FloorSet[] = [];
        for (const engine of new Set(options.dbs.map(engineOf))) {
            log(`starting the floors (${engine}: ${FLOOR_KINDS.join(', ')})`);
            floorSets.push(await startFloors(ROOT, engine, services, databases));
        }
        const floors = await Promise.all(floorSets.map((set) => floorScenarios(set, plan.connections)));
        log('starting the references (once for every database)');
        const references = await startReferences(plan, services, () => runs[0]!.hashCost);

        // each Realmgate scenario on every database back to back, and each floor beside the first
        // scenario measured against it, so drift in the host's load touches both sides of a ratio alike
        const passes: { choice: BenchChoice; scenarios: Scenario[] }[] = [...runs.map((run) => ({ choice: run.dialect, scenarios: run.scenarios })), ...protocolRuns];
        const interleaved = interleave([...passes.map((pass) => pass.scenarios), ...floors], roundGroup);
        const measured = await runRounds([...references.scenarios, ...interleaved], plan, log);
        const m = (key: string) => measured.get(key)!;
        const referenceMemory = { fastify: rssOf(references.fastify.child.pid), oidc: rssOf(references.oidc.child.pid) };
        const runMemory = runs.map(readRunMemory);
        const protocolMemory = protocolRuns.map((run) => rssOf(run.seeded.service.child.pid));
        const floorsMemory = floorSets.map(floorMemory);

        const profiles: ProfileEntry[] = [];
        if (options.profile) {
            const seconds = profileSeconds(options.quick);
            const profiled = Object.keys(PROTOCOL_SCENARIOS).flatMap((key) => passes.flatMap((pass) => {
                const scenario = pass.scenarios.find((candidate) => candidate.key === keyOn(pass.choice, key));
                return scenario ? [{ key, choice: pass.choice, scenario }] : [];
            }));
            const started = Date.now();
            const raw = await profileScenarios(profiled.map(({ scenario }) => scenario), seconds, plan.settleMs, PROFILE_INTERVAL_MICROS, log);
            const resolve = options.source ? undefined : distSourceMaps();
            for (const { key, choice, scenario } of profiled) {
                const profile = raw.get(scenario.key);
                if (profile) profiles.push({ title: `${PROTOCOL_SCENARIOS[key]} (${choice})`, summary: summarizeProfile(profile, ROOT, 10, resolve) });
            }
            notes.push(`CPU profiles: one extra load of ${seconds} s per protocol scenario and database after the rounds, sampled every ${PROFILE_INTERVAL_MICROS} µs by the server's own inspector; the measured figures carry no profiler. They took ${((Date.now() - started) / 1000).toFixed(0)} s of the run (\`--no-profile\` skips them).`);
        }

        log('in-process micro-benchmarks');
        const evaluate = (await benchDecisions({ quick: options.quick })).find((result) => result.scenario.startsWith('await evaluate()'))!;
        const es256 = await jwsRates('ES256', { quick: options.quick });
        const rs256 = await jwsRates('RS256', { quick: options.quick });
        const passkeys = await passkeyAssertionRate({ quick: options.quick });
        const jws = (rates: typeof es256): Row => ({
            scenario: `${rates.algorithm} sign (in-process, calls/s)`,
            rps: rates.signPerSecond,
            reference: 'ES256 sign',
            ratio: rates.signPerSecond / es256.signPerSecond,
            note: `verify ${Math.round(rates.verifyPerSecond).toLocaleString('en-US')}/s (${(rates.verifyPerSecond / es256.verifyPerSecond).toFixed(2)} × ES256 verify)`,
        });

        const hashCost = runs[0]!.hashCost;
        const refs: ReferenceFigures = {
            bareGet: { name: 'bare Fastify GET', rps: m('fastifyGet').rps },
            barePost: { name: 'bare Fastify POST', rps: m('fastifyPost').rps },
            oidcCc: { name: 'oidc-provider client_credentials', rps: m('oidcJwt').rps },
            oidcUserinfo: { name: 'oidc-provider GET /me', rps: m('oidcUserinfo').rps },
            bcrypt: { name: `bcrypt verify, cost ${hashCost}`, rps: m('bcrypt').rps },
        };
        const sqliteBoot: Row = {
            scenario: 'boot to first 200, empty SQLite (median of 3)',
            note: `${Math.round(boots.median)} ms (best ${Math.round(boots.best)} ms)`,
            target: '< 2000 ms',
            met: boots.median < 2000,
        };
        const bootRows = (run: DatabaseRun, index: number): Row[] => {
            if (run.dialect === 'sqlite') return [sqliteBoot];
            const own = { scenario: `boot to first 200, empty ${run.dialect} database`, note: `${Math.round(run.small.service.bootMs)} ms` };
            // the SQLite median is measured in every pass: it goes with the first database when SQLite is not benched
            return index === 0 && !options.dbs.includes('sqlite') ? [sqliteBoot, own] : [own];
        };
        const perRun = runs.map((run, index) => databaseSections(run, m, refs, runMemory[index]!, bootRows(run, index), plan.connections));
        const floorSections = options.dbs.map((choice) => {
            const engine = engineOf(choice);
            // an engine's floors are listed once: with the engine's own pass, else with PostgreSQL + Redis
            const listsFloors = choice === engine || !options.dbs.includes(engine);
            const bytes = floorsMemory[floorSets.findIndex((set) => set.engine === engine)]!;
            const protocolRun = protocolRuns.findIndex((run) => run.choice === choice);
            return floorSection(choice, m, {
                floors: listsFloors,
                memory: [
                    ...(protocolRun >= 0 ? [memory(`RSS after the load: Realmgate server (${CHOICE_NAMES[choice]})`, protocolMemory[protocolRun], 200)] : []),
                    ...(listsFloors ? FLOOR_KINDS.map((kind) => memory(`RSS after the load: ${kind} floor`, bytes[kind])) : []),
                ],
            });
        });
        const sections: Section[] = [
            {
                title: 'references (each in its own process, measured once for every database)',
                rows: [
                    row('bare Fastify GET', m('fastifyGet')),
                    row('bare Fastify POST (small JSON)', m('fastifyPost')),
                    row('oidc-provider client_credentials (ES256 JWT)', m('oidcJwt')),
                    row('oidc-provider client_credentials (opaque)', m('oidcOpaque')),
                    row('oidc-provider introspection (opaque)', m('oidcIntrospect')),
                    row('oidc-provider userinfo GET /me (opaque token)', m('oidcUserinfo')),
                    { scenario: `bcrypt verify, cost ${hashCost} (in-process, ${plan.connections} in flight)`, rps: m('bcrypt').rps },
                    memory('RSS after the load: bare Fastify', referenceMemory.fastify),
                    memory('RSS after the load: oidc-provider', referenceMemory.oidc),
                ],
            },
            ...floorSections,
            // the sections of one topic side by side, database after database
            ...TOPICS.flatMap((topic) => perRun.flatMap((own) => own.filter((section) => section.key === topic))),
            {
                title: 'in-process (no database)',
                rows: [
                    { scenario: 'in-process evaluate() calls/s (1 grant)', rps: evaluate.median, note: 'packages/access; `npm run bench -- access` for the rest' },
                    jws(es256),
                    jws(rs256),
                    {
                        scenario: 'passkey assertion verification (in process, calls/s)', rps: passkeys, target: '≥ 5,000/s', met: passkeys >= 5_000,
                        reference: 'ES256 verify', ratio: passkeys / es256.verifyPerSecond, note: 'WebAuthn §7.2 (authn/passkey-signature.ts) without its SQL',
                    },
                ],
            },
        ];
        const compared = compareWithSqlite(sections);
        // the targets, each with its figure, first in the report: the shares of the floors, then the rest
        // a run without SQLite (`--db postgres`) has no SQLite figures: those rows say "not measured"
        sections.unshift(targetSection(runs.map((run) => run.dialect), (key) => measured.get(key), runs.map((run, index) => {
            const memory = runMemory[index]!;
            const known = [memory.small, memory.one, memory.large].filter((bytes): bytes is number => bytes !== undefined);
            return { dialect: run.dialect, largestMb: known.length > 0 ? Math.max(...known) / MB : undefined };
        })));
        sections.unshift(floorTargetSection(options.dbs, m));

        notes.push(`${plan.rounds} rounds of ${plan.roundSeconds} s per scenario after ${plan.warmup} s of warm-up, ${plan.connections} connections; every scenario runs once per round, so drift in the host's load touches all figures alike. Latency columns are the mean of the rounds' percentiles (whole milliseconds, as autocannon records them).`);
        if (runs.length > 1) {
            notes.push(`databases: ${runs.map((run) => DIALECT_NAMES[run.dialect]).join(', ')}, each with its own three servers, every Realmgate scenario run on each back to back within a round; the references run once.${compared.length > 0 ? ` ${compared.map((dialect) => `"${DIALECT_NAMES[dialect]} ÷ SQLite"`).join(' and ')}: the row's req/s over the same row's on SQLite.` : ''}`);
        }
        notes.push(`floors (bench/references/floor.mjs): per engine one process per kind, plain node:http, on a bench database of their own of the same engine and driver settings as the servers (SQLite: WAL, synchronous=NORMAL, foreign_keys, busy_timeout, statements prepared once; PostgreSQL: a pg pool of 10 — DB_POOL_SIZE's default — with named prepared statements; MySQL: a mysql2 pool of 10), doing only the work the answer cannot skip: ${FLOOR_KINDS.map((kind) => `${kind} — ${FLOOR_WORK[kind]}`).join('; ')}. Each floor runs in the rounds right after the first Realmgate scenario measured against it; the share of the floor is the scenario's req/s ÷ the floor's. The shares take client_credentials, introspection and bearer GET /users/@me from the 1-realm twin, GET /userinfo, redemption and refresh from the bench realm server.`);
        notes.push('the bearer and introspection scenarios present one token throughout, and the server remembers a token whose signature verified (packages/server/src/tokens/verifying.ts), so after the first request it verifies no signature; every floor request verifies one. Their share can pass 1 for that reason alone.');
        notes.push(`Redis: the servers of every database run in the default configuration, without Redis${protocolRuns.length > 0 ? `; PostgreSQL + Redis is one more server on PostgreSQL with REDIS_URL (BENCH_REDIS_URL, default redis://127.0.0.1:6379), the bench realm only, loaded with the six protocol scenarios in the same rounds and measured against the PostgreSQL floors` : ' (`--db postgres+redis` adds PostgreSQL with the Redis bus)'}.`);
        notes.push('db trips/req: statements the server handed to its database driver during the measured loads ÷ HTTP responses it finished in them (counted inside the server process by a preload, bench/lib/instrument-child.mjs; background work in the window, such as batched session writes, is included). On PostgreSQL and MySQL each is a network round trip; on SQLite a call into the library.');
        if (options.quick) notes.push(`quick mode: ${runs[0]!.bulk.realms.toLocaleString('en-US')} realms instead of 1,000 for the scaling rows.`);
        for (const run of runs) notes.push(`bulk seeding (${run.dialect}) took ${run.seedSeconds.toFixed(0)} s: realms through POST /realms, their clients, users and roles cloned in SQL batches from rows the API wrote.`);
        notes.push('the rate limits (RATE_LIMIT_*_MAX) are raised for the run: one address and a few identities would otherwise measure the limiter.');
        notes.push(`access tokens live ${ACCESS_TOKEN_SECONDS / 3600} h (TOKEN_ACCESS_MAX_AGE) instead of 15 min: the scenarios' bearers are issued at seeding, and a run over several databases outlasts the default.`);
        const targets = sections.flatMap((section) => section.rows).filter((entry) => entry.target !== undefined);
        return { sections, notes, targets, profiles };
    } finally {
        for (const service of services.reverse()) await service.stop().catch(() => undefined);
        for (const database of databases) await database.drop().catch((error: unknown) => console.error(`could not drop a bench database: ${String(error)}`));
    }
}

/**
 * The protocol scenarios and their floors alone (`npm run bench -- --db sqlite protocol`): one
 * seeded server per database choice, the floors of its engine and oidc-provider's
 * client_credentials, in interleaved rounds; the share-of-floor targets as the full report
 * states them, printed and never written. The quick loop for work on a hot path.
 */
export async function runProtocol(options: HttpOptions, log: (line: string) => void): Promise<{ sections: Section[]; notes: string[]; profiles: ProfileEntry[] }> {
    const plan = loadPlan(options.quick);
    const notes: string[] = [];
    const args = serverCommand(options, notes);
    const services: Service[] = [];
    const databases: BenchDatabase[] = [];
    try {
        const runs: ProtocolRun[] = [];
        for (const choice of options.dbs) runs.push(await prepareProtocolRun(choice, args, plan, services, databases, log));
        const floorSets: FloorSet[] = [];
        for (const engine of new Set(options.dbs.map(engineOf))) floorSets.push(await startFloors(ROOT, engine, services, databases));
        const floors = await Promise.all(floorSets.map((set) => floorScenarios(set, plan.connections)));
        const oidc = await startReference('oidc-provider', 'oidc-provider.mjs');
        services.push(oidc);
        const oidcJwt = await httpScenario('oidcJwt', oidc, post('/token', form({ grant_type: 'client_credentials', scope: 'api', resource: 'urn:bench:api' }), { authorization: OIDC_CLIENT }), plan.connections);
        const interleaved = interleave([...runs.map((run) => run.scenarios), ...floors], roundGroup);
        const measured = await runRounds([oidcJwt, ...interleaved], plan, log);
        const m = (key: string) => measured.get(key)!;
        const profiles: ProfileEntry[] = [];
        if (options.profile) {
            const profiled = Object.keys(PROTOCOL_SCENARIOS).flatMap((key) => runs.flatMap((run) => {
                const scenario = run.scenarios.find((candidate) => candidate.key === keyOn(run.choice, key));
                return scenario ? [{ key, choice: run.choice, scenario }] : [];
            }));
            const raw = await profileScenarios(profiled.map(({ scenario }) => scenario), profileSeconds(options.quick), plan.settleMs, PROFILE_INTERVAL_MICROS, log);
            const resolve = options.source ? undefined : distSourceMaps();
            for (const { key, choice, scenario } of profiled) {
                const profile = raw.get(scenario.key);
                if (profile) profiles.push({ title: `${PROTOCOL_SCENARIOS[key]} (${choice})`, summary: summarizeProfile(profile, ROOT, 10, resolve) });
            }
        }
        const sections: Section[] = [
            floorTargetSection(options.dbs, m),
            ...options.dbs.map((choice) => floorSection(choice, m, { floors: true, memory: [] })),
        ];
        notes.push(`${plan.rounds} rounds of ${plan.roundSeconds} s per scenario after ${plan.warmup} s of warm-up, ${plan.connections} connections; one seeded server per database (the bench realm alone).`);
        return { sections, notes, profiles };
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
