/**
 * The floors in the run: one process of bench/references/floor.mjs per kind and engine, on a
 * bench database of their own (of the engine the Realmgate servers they are compared with run
 * on: its own SQLite file, or its own PostgreSQL / MySQL database on the same local server), and
 * their scenarios, each request shaped like its Realmgate scenario's (method, headers, a body of
 * the same kind); the floor ignores the values it does not need.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { basic, type TokenAnswer } from './api.js';
import { createBenchDatabase, type BenchDatabase, type BenchDialect } from './database.js';
import { FLOOR_KINDS, floorKey, type FloorKind } from './floor-shares.js';
import type { LoadRequest } from './load.js';
import { freePort, rssOf, startService, type Service } from './processes.js';
import { httpScenario, type Scenario } from './scenarios.js';

const FORM = 'application/x-www-form-urlencoded';

export interface FloorSet {
    engine: BenchDialect;
    services: Record<FloorKind, Service>;
    /** the Basic credentials the token and introspection floors check */
    client: { id: string; secret: string };
}

/** The five floors of `engine`, started one after the other (each creates the tables it finds missing). */
export async function startFloors(root: string, engine: BenchDialect, services: Service[], databases: BenchDatabase[]): Promise<FloorSet> {
    const database = await createBenchDatabase(engine);
    databases.push(database);
    // the shape of a Realmgate client: a UUID and a 256-bit secret
    const client = { id: randomUUID(), secret: randomBytes(32).toString('base64url') };
    const started: Partial<Record<FloorKind, Service>> = {};
    for (const kind of FLOOR_KINDS) {
        const port = await freePort();
        const service = await startService({
            name: `${kind} floor (${engine})`,
            args: [join(root, 'bench/references/floor.mjs')],
            port,
            readyPath: '/floor/fixture',
            env: {
                PATH: process.env.PATH, NODE_ENV: 'production', PORT: String(port), FLOOR: kind,
                ...database.env,
                SQLITE_PATH: join(database.directory, 'floor.sqlite'),
                FLOOR_CLIENT_ID: client.id, FLOOR_CLIENT_SECRET: client.secret,
            },
        });
        services.push(service);
        started[kind] = service;
    }
    return { engine, services: started as Record<FloorKind, Service>, client };
}

async function fixtureOf(service: Service): Promise<Required<TokenAnswer>> {
    const response = await fetch(`${service.url}/floor/fixture`);
    if (response.status !== 200) throw new Error(`${service.name}: /floor/fixture answered ${response.status}`);
    return (await response.json()) as Required<TokenAnswer>;
}

const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
const post = (path: string, fields: Record<string, string>, headers: Record<string, string> = {}): LoadRequest =>
    ({ method: 'POST', path, body: form(fields), headers: { 'content-type': FORM, ...headers } });

/** The floors' scenarios, each under `floorKey(engine, kind)`. */
export async function floorScenarios(set: FloorSet, connections: number): Promise<Scenario[]> {
    const { services, client } = set;
    const authorization = basic(client.id, client.secret);
    const bearer = await fixtureOf(services.bearer);
    const introspected = await fixtureOf(services.introspect);
    const refreshed = await fixtureOf(services.refresh);
    const key = (kind: FloorKind) => floorKey(set.engine, kind);
    const redeem = post('/token', {
        grant_type: 'authorization_code', code: randomBytes(32).toString('base64url'), client_id: client.id,
        redirect_uri: 'https://spa.bench.example/cb', code_verifier: randomBytes(32).toString('base64url'),
    });
    return Promise.all([
        httpScenario(key('token'), services.token, post('/token', { grant_type: 'client_credentials', realm_name: 'bench' }, { authorization }), connections),
        httpScenario(key('introspect'), services.introspect, post('/token/introspect', { token: introspected.access_token }, { authorization }), connections),
        httpScenario(key('bearer'), services.bearer, { method: 'GET', path: '/users/@me', headers: { authorization: `Bearer ${bearer.access_token}` } }, connections),
        codeStockScenario(key('redeem'), services.redeem, redeem, connections),
        httpScenario(key('refresh'), services.refresh, post('/token', { grant_type: 'refresh_token', refresh_token: refreshed.refresh_token }), connections),
    ]);
}

/**
 * Every redemption spends a code row: before each load the floor inserts enough unspent rows
 * (untimed) for its best rate so far, ×1.5, as the Realmgate redemption's code pool is sized.
 * A load that outruns them answers 503 and counts as errors.
 */
async function codeStockScenario(key: string, service: Service, request: LoadRequest, connections: number): Promise<Scenario> {
    const scenario = await httpScenario(key, service, request, connections);
    const state = { rate: 5000 };
    return {
        ...scenario,
        async prepare(seconds) {
            const response = await fetch(`${service.url}/floor/stock`, {
                method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ count: Math.ceil(state.rate * seconds * 1.5) + 200 }),
            });
            if (response.status !== 200) throw new Error(`${service.name}: /floor/stock answered ${response.status}`);
            await response.arrayBuffer();
        },
        observe(result) {
            state.rate = Math.max(state.rate, (result.requests - result.errors) / result.seconds);
        },
    };
}

/** RSS of each floor process right after the rounds. */
export function floorMemory(set: FloorSet): Record<FloorKind, number | undefined> {
    return Object.fromEntries(FLOOR_KINDS.map((kind) => [kind, rssOf(set.services[kind].child.pid)])) as Record<FloorKind, number | undefined>;
}
