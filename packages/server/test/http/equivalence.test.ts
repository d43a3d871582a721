import { randomUUID } from 'node:crypto';
import {
    createAuthorizationEvaluator,
    isAuthorizationCatalogStaleError,
    WITHHELD_POLICY_TYPE,
    type AuthorizationCatalog,
    type AuthorizationCheckEntry,
    type AuthorizationEvaluator,
    type AuthorizationGrant,
} from '@realmgate/access';
import { RealmScope } from '@realmgate/core';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { DialectName } from '../../src/db/values.js';
import { startTestApp, type TestApp } from '../app.js';
import { systemDefaultId } from '../check-fixtures.js';
import { describeEachDialect } from '../databases.js';
import { buildWorld, USER_PASSWORD, type BuiltSubject, type BuiltWorld, type Pool } from '../equivalence-rows.js';
import { EXAMPLE_WORLD, worldArbitrary, type RealmAsk, type RealmsSpec, type TokenVia, type WorldSpec } from '../equivalence-world.js';
import { createRealm, globalId, insertScope, uniqueName } from '../grant-fixtures.js';
import { createClient, masterRealmId } from '../identities.js';

/*
 * The equivalence proof (spec model line 6, "Catalog consumer rules"): for
 * generated worlds of realms, users and clients, direct and role grants at every realmScope,
 * junction policies, client-owned definitions and roles (tokens through the owning client and
 * through another, spec Authentication rule 8), definitions with and without extra
 * definition-layer trees, and unprojectable trees, the server's decision — POST
 * /authorization/check, POST /permissions/:id/check and a real GET /scopes/:id — equals the
 * decision of createAuthorizationEvaluator built from the catalog a resource server's own
 * credential fetches plus the grants a fresh introspection reports. The test holds no rule of its
 * own: both sides are asked, and only asked.
 *
 * Clock: the server evaluates with Date.now (no injectable clock); the consumer gets a fixed clock
 * (the instant the suite started). Generated date windows lie years and time windows hours (or two
 * days) away from that instant (equivalence-world.ts), so no verdict can flip during a run.
 *
 * Size: one generated case is one world, and every world compares some sixty decisions (each
 * subject view × names × requested realms in the batch check, up to three definitions through the
 * check route, two scope reads). Each world's rows are deleted after it, so the catalog stays the
 * size of one world and a world costs the same at the thousandth run as at the first. SQLite runs
 * 1,000 worlds (23–27 s here, ~58,000 compared decisions); PostgreSQL and MySQL run 200 (15–22 s each),
 * to keep the file well under a minute per dialect. EQUIVALENCE_SEED, EQUIVALENCE_RUNS and
 * EQUIVALENCE_PATH replay or widen a run; a failure names its seed and path.
 */

const SEED = Number(process.env.EQUIVALENCE_SEED ?? 20_260_501);
const runsFor = (dialect: DialectName) => Number(process.env.EQUIVALENCE_RUNS ?? (dialect === 'sqlite' ? 1_000 : 200));
/** the consumer's fixed clock; see "Clock" above */
const NOW = Date.now();
const clock = () => NOW;

type Introspection = {
    active: boolean; sub: string; sub_kind: 'user' | 'client'; realm_id: string; realm_name: string; permissions?: AuthorizationGrant[];
};
type ScopeRow = { id: string; realmId: string | null; record: Record<string, unknown> };
type Mismatch = Record<string, unknown>;

const keyOf = (name: string, realmId: string | null, clientId: string | null) => `${name}|${realmId}|${clientId}`;

describeEachDialect('equivalence: a catalog consumer decides exactly as the server does', (dialect) => {
    let app: TestApp;
    let pool: Pool;
    let masterId: string;
    let consumer: { id: string; secret: string };
    let narrow: { id: string; secret: string };
    let scopes: ScopeRow[];
    /** the resource server's cached copy, carried from world to world as a real consumer's cache is */
    let copy: AuthorizationCatalog;
    const unknownRealm = randomUUID();
    const tally = { worlds: 0, views: 0, decisions: 0, allowed: 0, reads: 0, stale: 0, unprojectableDefinitions: 0, narrowEqual: 0 };

    const token = async (payload: Record<string, unknown>, as: string | null = null): Promise<string> => {
        const response = await app.request({ method: 'POST', url: '/token', payload, as });
        expect(response.statusCode, response.body).toBe(200);
        return (response.json() as { access_token: string }).access_token;
    };
    const clientToken = (client: { id: string; secret: string }, realmId: string) =>
        token({ grant_type: 'client_credentials', realm_id: realmId }, app.basic(client.id, client.secret));
    /** a resource server keeps its client_credentials token while it lasts (a long replay outlives one) */
    const bearers = new Map<string, string>();
    const fetchCatalog = async (client: { id: string; secret: string }, realmId: string): Promise<AuthorizationCatalog> => {
        const get = async () => {
            if (!bearers.has(client.id)) bearers.set(client.id, await clientToken(client, realmId));
            return app.request({ method: 'GET', url: '/authorization', as: `Bearer ${bearers.get(client.id)}` });
        };
        let response = await get();
        if (response.statusCode === 401) {
            bearers.delete(client.id);
            response = await get();
        }
        expect(response.statusCode, response.body).toBe(200);
        return response.json() as AuthorizationCatalog;
    };
    const bindClient = async (clientId: string, permission: string, realmScope: RealmScope) => app.json({
        method: 'POST', url: '/client-permissions', payload: { clientId, permissionId: await globalId(app, 'auth_permissions', permission), realmScope },
    }, 201);

    beforeAll(async () => {
        // request budgets are not under test here (limits.test.ts), and a thousand worlds from one
        // address and one admin spend more than a minute's default budget
        app = await startTestApp(dialect, { rateLimit: { userMax: 10_000_000, clientMax: 10_000_000, anonymousMax: 10_000_000 } });
        masterId = await masterRealmId(app);
        const realms = [];
        for (let i = 0; i < 3; i++) {
            const name = uniqueName('eqrealm');
            realms.push({ id: await createRealm(app, name), name });
        }
        const apps = [];
        for (const realm of realms) apps.push({ A: await createClient(app, realm.id), B: await createClient(app, realm.id) });
        pool = {
            realms, apps, systemDefaultId: await systemDefaultId(app), scopeReadId: await globalId(app, 'auth_permissions', 'scope_read'),
            passwordHash: await app.deps.passwords.hash(USER_PASSWORD),
        };
        // spec consumer rule 12 and 14: a resource server serving every realm holds permission_read at
        // any; a narrower one (ownOrNull in the first realm) gets a narrowed catalog
        consumer = await createClient(app, masterId);
        await bindClient(consumer.id, 'permission_read', RealmScope.ANY);
        narrow = await createClient(app, realms[0]!.id);
        await bindClient(narrow.id, 'permission_read', RealmScope.OWN_OR_NULL);
        // rows behind the real reads: realm and global scopes, named for the generated attributes policies
        const placed: [string | null, string][] = [[realms[0]!.id, 'pub'], [realms[1]!.id, 'priv'], [realms[2]!.id, 'pub'], [null, 'pub'], [null, 'priv']];
        scopes = [];
        for (const [realmId, kind] of placed) {
            const id = await insertScope(app, realmId, `${kind}-${randomUUID().slice(0, 8)}`);
            scopes.push({ id, realmId, record: (await app.json<{ data: Record<string, unknown> }>({ method: 'GET', url: `/scopes/${id}` }, 200)).data });
        }
        copy = await fetchCatalog(consumer, masterId);
    });
    afterAll(async () => app?.dispose());

    const issue = (subject: BuiltSubject, via: TokenVia): Promise<string> => {
        if (subject.kind === 'client') return clientToken({ id: subject.id, secret: subject.secret! }, subject.realm.id);
        const login = { grant_type: 'password', username: subject.name, password: USER_PASSWORD, realm_id: subject.realm.id };
        if (via === 'none') return token(login);
        const client = pool.apps[pool.realms.findIndex((realm) => realm.id === subject.realm.id)]![via];
        return token({ ...login, client_id: client.id, client_secret: client.secret });
    };
    /** RFC 7662 §2.1: the resource server introspects with its own client credential. */
    const introspect = async (accessToken: string): Promise<Introspection> => {
        const response = await app.request({ method: 'POST', url: '/token/introspect', payload: { token: accessToken }, as: app.basic(consumer.id, consumer.secret) });
        expect(response.statusCode, response.body).toBe(200);
        return response.json() as Introspection;
    };
    /** Consumer rules 1, 2 and the upgrade order's step 5: refuse an inactive token, fail closed without a grant list. */
    const evaluatorFor = (catalog: AuthorizationCatalog, answer: Introspection | null): AuthorizationEvaluator => {
        if (answer === null) return createAuthorizationEvaluator({ catalog, clock });
        if (!answer.active || !Array.isArray(answer.permissions)) throw new Error('fail closed: inactive token or no grant list');
        return createAuthorizationEvaluator({
            catalog,
            clock,
            grants: answer.permissions,
            identity: {
                id: answer.sub, type: answer.sub_kind, realmId: answer.realm_id, realmName: answer.realm_name,
                clientId: answer.sub_kind === 'client' ? answer.sub : null,
            },
        });
    };

    const askedRealm = (ask: RealmAsk): string | null => {
        if (ask === 'global') return null;
        if (ask === 'master') return masterId;
        if (ask === 'unknown') return unknownRealm;
        return 'realm' in ask ? pool.realms[ask.realm]!.id : pool.realms[ask.realmName]!.name;
    };
    /** The body member as sent, and the realms it stands for (spec batch-check rules 3 and 4). */
    const realmsOf = (spec: RealmsSpec, answer: Introspection | null): { sent: unknown; realms: (string | null)[] } => {
        if (spec === 'own' || spec === 'ownOrNull') {
            const own = answer ? [answer.realm_id] : [];
            return { sent: spec, realms: spec === 'own' ? own : [...own, null] };
        }
        const sent = spec.map(askedRealm);
        return { sent, realms: [...new Set(sent)] };
    };

    /** The consumer's batch answer: per name, the asked realms in which one of its definitions passes the pre-gate. */
    const consumerBatch = (catalog: AuthorizationCatalog, evaluator: AuthorizationEvaluator, names: string[], realms: (string | null)[]): AuthorizationCheckEntry[] =>
        names.map((name) => {
            const definitions = catalog.permissions.filter((entry) => entry.name === name);
            const passed = realms.filter((realm) => definitions.some((entry) => evaluator.preAllows({
                name, realmId: entry.realm_id, clientId: entry.client_id, data: { realmMatch: realm },
            })));
            return { name, realms: passed };
        }).filter((entry) => entry.realms.length > 0);

    const record = (mismatches: Mismatch[], allowed: boolean, server: boolean, detail: Record<string, unknown>) => {
        tally.decisions++;
        if (server) tally.allowed++;
        if (allowed !== server) mismatches.push({ ...detail, server, consumer: allowed });
    };

    /** Catalog rule 1 and grant rule 3: what cannot be projected is listed as denying, or not listed. */
    const checkUnprojectable = (world: BuiltWorld, answer: Introspection | null) => {
        for (const definition of world.definitions) {
            const entry = copy.permissions.find((item) => keyOf(item.name, item.realm_id, item.client_id) === keyOf(definition.name, definition.realmId, definition.clientId));
            expect(entry, `definition ${definition.name} is listed`).toBeDefined();
            if (world.unprojectableDefinitions.has(definition.id)) expect(entry!.policies).toBeNull();
        }
        for (const grant of answer?.permissions ?? []) {
            for (const id of grant.policies) {
                expect(world.unprojectableTrees.has(id), `grant ${grant.name} names unprojectable tree ${id}`).toBe(false);
                expect(copy.policies[id]?.type).not.toBe(WITHHELD_POLICY_TYPE);
            }
        }
    };

    /** Consumer rule 4: the copy from before this world throws the stale error exactly when a grant names something it lacks. */
    const checkStale = (previous: AuthorizationCatalog, answer: Introspection) => {
        const known = new Set(previous.permissions.map((entry) => keyOf(entry.name, entry.realm_id, entry.client_id)));
        const lacks = answer.permissions!.some((grant) =>
            !known.has(keyOf(grant.name, grant.realm_id, grant.client_id)) || grant.policies.some((id) => !Object.hasOwn(previous.policies, id)));
        let thrown: unknown;
        try {
            evaluatorFor(previous, answer);
        } catch (error) {
            thrown = error;
        }
        if (lacks) {
            expect(isAuthorizationCatalogStaleError(thrown), String(thrown)).toBe(true);
            tally.stale++;
        } else {
            expect(thrown).toBeUndefined();
        }
    };

    async function compareView(world: WorldSpec, built: BuiltWorld, view: number, subject: BuiltSubject | null, via: TokenVia, previous: AuthorizationCatalog, narrowCopy: AuthorizationCatalog) {
        const bearer = subject ? await issue(subject, via) : null;
        const answer = bearer ? await introspect(bearer) : null;
        const as = bearer ? `Bearer ${bearer}` : null;
        checkUnprojectable(built, answer);
        if (answer) checkStale(previous, answer);
        // the refetched copy is current: building from it never reports stale
        const evaluator = evaluatorFor(copy, answer);
        tally.views++;
        const mismatches: Mismatch[] = [];
        const context = { view, subject: subject && { kind: subject.kind, realm: subject.realm.id }, via, grants: answer?.permissions };

        // (1) POST /authorization/check for the subject, as its own bearer
        const names = [...built.names, 'scope_read'];
        const { sent, realms } = realmsOf(world.asks[view % world.asks.length]!, answer);
        const response = await app.request({ method: 'POST', url: '/authorization/check', payload: { names, realms: sent }, as });
        expect(response.statusCode, response.body).toBe(200);
        const served = response.json() as AuthorizationCheckEntry[];
        const expected = consumerBatch(copy, evaluator, names, realms);
        const passes = new Set(served.flatMap((entry) => entry.realms.map((realm) => `${entry.name}|${realm}`)));
        for (const name of names) {
            for (const realm of realms) {
                const consumerAllows = expected.some((entry) => entry.name === name && entry.realms.includes(realm));
                record(mismatches, consumerAllows, passes.has(`${name}|${realm}`), { route: 'batch', name, realm });
            }
        }
        if (mismatches.length === 0) expect(served).toEqual(expected);

        // a narrower resource server decides no more than the server, and the same within its reach
        const narrowEvaluator = evaluatorFor(narrowCopy, answer);
        const narrowed = consumerBatch(narrowCopy, narrowEvaluator, names, realms);
        const reachable = (realmId: string | null) => realmId === null || realmId === pool.realms[0]!.id;
        for (const name of names) {
            const inReach = narrowCopy.permissions.filter((entry) => entry.name === name).every((entry) => reachable(entry.realm_id) &&
                (answer?.permissions ?? []).filter((grant) => keyOf(grant.name, grant.realm_id, grant.client_id) === keyOf(entry.name, entry.realm_id, entry.client_id))
                    .every((grant) => grant.policies.every((id) => reachable(built.treeRealms.get(id) ?? null))));
            for (const realm of realms) {
                const decided = narrowed.some((entry) => entry.name === name && entry.realms.includes(realm));
                const server = passes.has(`${name}|${realm}`);
                if (decided && !server) mismatches.push({ route: 'narrow catalog allows more', name, realm });
                if (inReach && name !== 'scope_read') {
                    tally.narrowEqual++;
                    if (decided !== server) mismatches.push({ route: 'narrow catalog within reach', name, realm, server, consumer: decided });
                }
            }
        }

        // (2) POST /permissions/:id/check per definition, each evaluated as itself (check-route rule 5)
        // up to three definitions per view, rotating (the batch check above covers every one)
        const probe = realms.length > 0 ? realms[world.probe % realms.length]! : null;
        const probed = [...new Set([0, 1, 2].map((k) => built.definitions[(world.probe + view + k) % built.definitions.length]!))];
        for (const definition of probed) {
            const consumerAllows = evaluator.preAllows({ name: definition.name, realmId: definition.realmId, clientId: definition.clientId, data: { realmMatch: probe } });
            // the caller itself (narrowed by its token's client); an identity-less check through the admin
            const forms: { as: string | null | undefined; payload: Record<string, unknown> }[] = answer ? [{ as, payload: { realmId: probe } }] : [{ as: undefined, payload: { identity: null, realmId: probe } }];
            // a user's token without a client is not narrowed, nor is a check naming the subject (spec
            // Authentication rule 8), so the admin naming the user must agree too; a client's own token always is
            if (subject?.kind === 'user' && via === 'none') forms.push({ as: undefined, payload: { identity: { type: subject.kind, id: subject.id }, realmId: probe } });
            for (const form of forms) {
                const checked = await app.request({ method: 'POST', url: `/permissions/${definition.id}/check`, payload: form.payload, as: form.as });
                // a definition of another realm outside the caller's read reach is 404, as an unknown id
                const foreign = definition.realmId !== null && definition.realmId !== subject?.realm.id;
                if (form.as !== undefined && foreign && checked.statusCode === 404) continue;
                expect(checked.statusCode, checked.body).toBe(200);
                const { status } = checked.json() as { status: string };
                record(mismatches, consumerAllows, status === 'allow', { route: 'permission check', name: definition.name, definition: definition.id, realm: probe, status, form: form.payload });
            }
            if (built.unprojectableDefinitions.has(definition.id)) {
                tally.unprojectableDefinitions++;
                expect(consumerAllows).toBe(false);
            }
        }

        // (3) a real request that needs the permission: reading a scope row (scope_read with the row's
        // realm and record); two of the five rows per view, rotating, keep a world cheap
        if (bearer) {
            for (const scope of [scopes[(world.probe + view) % scopes.length]!, scopes[(world.probe + view + 2) % scopes.length]!]) {
                const read = await app.request({ method: 'GET', url: `/scopes/${scope.id}`, as });
                expect([200, 403], read.body).toContain(read.statusCode);
                const consumerAllows = evaluator.allows({ name: 'scope_read', data: { realmMatch: scope.realmId, attributes: scope.record } });
                record(mismatches, consumerAllows, read.statusCode === 200, { route: 'GET /scopes/:id', scope: scope.record.name, realm: scope.realmId });
                tally.reads++;
            }
        }
        expect(mismatches, JSON.stringify(context)).toEqual([]);
    }

    it('for every generated world, the consumer\'s decisions equal the server\'s', async () => {
        const property = fc.asyncProperty(worldArbitrary, async (world) => {
            const built = await buildWorld(app, pool, world, NOW);
            // the previous copy stays for the stale path; the consumer then refetches (consumer rule 4)
            const previous = copy;
            copy = await fetchCatalog(consumer, masterId);
            const narrowCopy = await fetchCatalog(narrow, pool.realms[0]!.id);
            tally.worlds++;
            try {
                let view = 0;
                await compareView(world, built, view++, null, 'none', previous, narrowCopy);
                for (const subject of built.subjects) {
                    for (const via of subject.via) await compareView(world, built, view++, subject, via, previous, narrowCopy);
                }
            } finally {
                await built.remove();
            }
        });
        const path = process.env.EQUIVALENCE_PATH;
        try {
            await fc.assert(property, { seed: SEED, numRuns: runsFor(dialect), examples: [[EXAMPLE_WORLD]], ...(path ? { path } : {}) });
        } catch (error) {
            // fast-check's report carries seed and path; say how to replay it in this suite's terms
            throw new Error(`equivalence failed [${dialect}]: replay with EQUIVALENCE_SEED=${SEED}${path ? ` EQUIVALENCE_PATH=${path}` : ''} (and the path fast-check reports below)\n${(error as Error).message}`, { cause: error });
        }
        console.info(`equivalence [${dialect}] seed ${SEED}: ${JSON.stringify(tally)}`);
        // a replay of one path proves only that path
        if (path) return;
        // the property is not vacuous: both verdicts, the stale path and the unprojectable path occurred
        if (!process.env.EQUIVALENCE_RUNS) expect(tally.decisions).toBeGreaterThanOrEqual(1_000);
        expect(tally.allowed).toBeGreaterThan(0);
        expect(tally.decisions - tally.allowed).toBeGreaterThan(0);
        expect(tally.stale).toBeGreaterThan(0);
        expect(tally.unprojectableDefinitions).toBeGreaterThan(0);
        expect(tally.narrowEqual).toBeGreaterThan(0);
    }, 600_000);
});
