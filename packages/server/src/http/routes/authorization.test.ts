import { randomUUID } from 'node:crypto';
import { createAuthorizationEvaluator, type AuthorizationCatalog } from '@realmgate/access';
import { RealmScope, SystemPolicyName } from '@realmgate/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../../test/app.js';
import { describeEachDialect } from '../../../test/databases.js';
import { actorWith, createRealm, globalId, insertUser, grantUser } from '../../../test/grant-fixtures.js';
import { toDbBool, toDbDate } from '../../db/values.js';

/*
 * GET /authorization (spec "Authorization catalog", "Authorization routes", Errors): the wire shape,
 * unprojectable trees, narrowing to the caller's realm reach (entries kept, configuration removed)
 * and the gate. Callers of realm B look at realm A's definitions (foreign realm) and vice versa.
 */

type Catalog = AuthorizationCatalog;
type Entry = Catalog['permissions'][number];

const ENTITY_COLUMNS = ['id', 'name', 'realm_id', 'realmId', 'parent_id', 'parentId', 'built_in', 'builtIn', 'created_at', 'createdAt', 'updated_at', 'updatedAt', 'display_name', 'description', 'config'];

function entityColumnsIn(node: unknown): string[] {
    if (Array.isArray(node)) return node.flatMap(entityColumnsIn);
    if (typeof node !== 'object' || node === null) return [];
    const record = node as Record<string, unknown>;
    const own = Object.keys(record).filter((key) => ENTITY_COLUMNS.includes(key));
    return [...own, ...entityColumnsIn(record.children ?? [])];
}

const byKey = (a: Entry, b: Entry): number => {
    const key = (entry: Entry) => `${entry.name}\u0000${entry.realm_id ?? ''}\u0000${entry.client_id ?? ''}`;
    return key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0;
};

/** The entry fields narrowing must keep: everything but the policy ids. */
const skeleton = (catalog: Catalog) => catalog.permissions.map(({ policies: _policies, ...rest }) => rest);

describeEachDialect('GET /authorization', (dialect) => {
    const app = useTestApp(dialect);
    let realmA: string;
    let realmB: string;
    let treeA: string;
    let treeB: string;
    let futureTree: string;
    let refusedTree: string;
    let systemDefault: string;
    const names = { a: 'report_read', b: 'report_read', future: `future_${randomUUID().slice(0, 6)}`, refused: `refused_${randomUUID().slice(0, 6)}` };

    const stamps = () => {
        const now = toDbDate(dialect, new Date());
        return { created_at: now, updated_at: now };
    };
    const insertPolicy = async (realmId: string | null, type: string, config: Record<string, unknown>) => {
        const id = randomUUID();
        await app.deps.db.insertInto('auth_policies').values({
            id, type, name: `policy-${id.slice(0, 8)}`, display_name: null, description: null, invert: toDbBool(dialect, false),
            config: JSON.stringify(config), parent_id: null, realm_id: realmId, built_in: toDbBool(dialect, false), ...stamps(),
        }).execute();
        return id;
    };
    const insertPermission = async (name: string, realmId: string | null, policyIds: string[]) => {
        const id = randomUUID();
        await app.deps.db.insertInto('auth_permissions').values({
            id, name, display_name: null, description: null, built_in: toDbBool(dialect, false), decision_strategy: 'unanimous',
            client_id: null, realm_id: realmId, ...stamps(),
        }).execute();
        for (const policyId of policyIds) {
            await app.deps.db.insertInto('auth_permission_policies').values({ id: randomUUID(), permission_id: id, policy_id: policyId, ...stamps() }).execute();
        }
        return id;
    };

    beforeAll(async () => {
        realmA = await createRealm(app);
        realmB = await createRealm(app);
        systemDefault = await globalId(app, 'auth_policies', SystemPolicyName.DEFAULT);
        treeA = await insertPolicy(realmA, 'realmMatch', { scope: 'own' });
        treeB = await insertPolicy(realmB, 'realmMatch', { scope: 'own' });
        // spec catalog table: a policy type the catalog does not carry, and a configuration its validator refuses
        futureTree = await insertPolicy(realmA, 'a-policy-type-from-the-future', { knob: 1 });
        refusedTree = await insertPolicy(null, 'composite', { decisionStrategy: 'by-coin-toss' });
        // one name in two realms: sorted by the permission key (name, realm, client)
        await insertPermission(names.a, realmA, [treeA, systemDefault]);
        await insertPermission(names.b, realmB, [treeB]);
        await insertPermission(names.future, realmA, [futureTree]);
        await insertPermission(names.refused, null, [systemDefault, refusedTree]);
        app.deps.catalog.invalidate();
    });

    const fetchCatalog = (as?: string) => app.request({ method: 'GET', url: '/authorization', ...(as ? { as } : {}) });
    const catalogOf = async (as?: string): Promise<Catalog> => {
        const response = await fetchCatalog(as);
        expect(response.statusCode, response.body).toBe(200);
        expect(response.headers['cache-control']).toBe('private, no-cache');
        return response.json() as Catalog;
    };
    const entry = (catalog: Catalog, name: string, realmId: string | null) =>
        catalog.permissions.find((candidate) => candidate.name === name && candidate.realm_id === realmId)!;

    it('answers the wire shape: entries sorted by permission key, validator output per tree, inline children, no entity columns', async () => {
        const catalog = await catalogOf();
        expect(Object.keys(catalog).sort()).toEqual(['permissions', 'policies']);
        const stored = await app.deps.db.selectFrom('auth_permissions').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
        expect(catalog.permissions).toHaveLength(Number(stored.n));
        expect([...catalog.permissions].sort(byKey)).toEqual(catalog.permissions);
        for (const definition of catalog.permissions) {
            expect(Object.keys(definition).sort()).toEqual(['client_id', 'decision_strategy', 'name', 'policies', 'realm_id']);
            for (const id of definition.policies ?? []) expect(catalog.policies[id], id).toBeDefined();
        }
        const [first, second] = catalog.permissions.filter((candidate) => candidate.name === names.a);
        expect([first!.realm_id, second!.realm_id]).toEqual([realmA, realmB].sort());

        // every root tree a grant can name, once; none carries an entity column
        const roots = await app.deps.db.selectFrom('auth_policies').select('id').where('parent_id', 'is', null).execute();
        expect(Object.keys(catalog.policies).sort()).toEqual(roots.map((row) => row.id).sort());
        for (const node of Object.values(catalog.policies)) {
            expect(typeof node.type).toBe('string');
            expect(typeof node.invert).toBe('boolean');
            expect(entityColumnsIn(node)).toEqual([]);
        }
        expect(catalog.policies[treeA]).toEqual({ type: 'realmMatch', invert: false, scope: 'own', attributeName: ['realmId'], attributeNameStrict: true, attributeNullMatchAll: false });
        const root = catalog.policies[systemDefault]!;
        expect(root.type).toBe('composite');
        expect(Array.isArray(root.children) && root.children.length).toBeGreaterThan(0);
        expect(entry(catalog, names.a, realmA).policies).toEqual([treeA, systemDefault].sort());
        // the catalog is what the access library consumes
        expect(() => createAuthorizationEvaluator({ catalog })).not.toThrow();
    });

    it('lists a definition whose tree cannot be projected with policies null; other definitions are unaffected', async () => {
        const catalog = await catalogOf();
        expect(entry(catalog, names.future, realmA)).toEqual({ name: names.future, realm_id: realmA, client_id: null, decision_strategy: 'unanimous', policies: null });
        expect(entry(catalog, names.refused, null).policies).toBeNull();
        expect(catalog.policies[futureTree]).toEqual({ type: '$withheld', invert: false });
        expect(catalog.policies[refusedTree]).toEqual({ type: '$withheld', invert: false });
        expect(entry(catalog, names.a, realmA).policies).toEqual([treeA, systemDefault].sort());
    });

    it('narrows to the reach of foreign-realm callers: entries kept, configuration removed', async () => {
        const full = await catalogOf();
        const withheld = { type: '$withheld', invert: false };
        const callerOf = (scope: RealmScope) => actorWith(app, realmB, ['permission_read'], scope);

        // own: realm B only — not realm A, not the global rows (system.default included)
        const own = await catalogOf((await callerOf(RealmScope.OWN)).auth);
        expect(skeleton(own)).toEqual(skeleton(full));
        expect(Object.keys(own.policies).sort()).toEqual(Object.keys(full.policies).sort());
        expect(entry(own, names.b, realmB).policies).toEqual([treeB]);
        expect(entry(own, names.a, realmA).policies).toBeNull();
        expect(entry(own, 'permission_read', null).policies).toBeNull();
        expect(own.policies[treeB]).toEqual(full.policies[treeB]);
        expect(own.policies[treeA]).toEqual(withheld);
        expect(own.policies[systemDefault]).toEqual(withheld);

        // ownOrNull: realm B and the global rows, still not realm A
        const ownOrNull = await catalogOf((await callerOf(RealmScope.OWN_OR_NULL)).auth);
        expect(skeleton(ownOrNull)).toEqual(skeleton(full));
        expect(entry(ownOrNull, names.b, realmB).policies).toEqual([treeB]);
        expect(entry(ownOrNull, 'permission_read', null)).toEqual(entry(full, 'permission_read', null));
        expect(entry(ownOrNull, names.a, realmA).policies).toBeNull();
        expect(ownOrNull.policies[systemDefault]).toEqual(full.policies[systemDefault]);
        expect(ownOrNull.policies[treeA]).toEqual(withheld);
        // a consumer holding the narrowed copy denies realm A's definition instead of reporting stale
        const evaluator = createAuthorizationEvaluator({
            catalog: ownOrNull,
            identity: { id: randomUUID(), type: 'user', realmId: realmA, realmName: null, clientId: null },
            grants: [{ name: names.a, realm_id: realmA, client_id: null, realm_scope: RealmScope.ANY, policies: [treeA] }],
        });
        expect(evaluator.allows({ name: names.a, realmId: realmA, data: { realmMatch: realmA } })).toBe(false);

        // any: the whole catalog
        expect(await catalogOf((await callerOf(RealmScope.ANY)).auth)).toEqual(full);

        // the mirror image: an own caller of realm A sees A's configuration, not B's
        const ownA = await catalogOf((await actorWith(app, realmA, ['permission_read'], RealmScope.OWN)).auth);
        expect(entry(ownA, names.a, realmA).policies).toEqual([treeA, systemDefault].sort());
        expect(ownA.policies[treeA]).toEqual(full.policies[treeA]);
        expect(entry(ownA, names.b, realmB).policies).toBeNull();
        expect(ownA.policies[treeB]).toEqual(withheld);
    });

    it('accepts permission_update or permission_delete in place of permission_read', async () => {
        const updater = await actorWith(app, realmB, ['permission_update'], RealmScope.OWN_OR_NULL);
        expect(skeleton(await catalogOf(updater.auth))).toEqual(skeleton(await catalogOf()));
        const deleter = await actorWith(app, realmA, ['permission_delete'], RealmScope.OWN);
        expect(entry(await catalogOf(deleter.auth), names.a, realmA).policies).toEqual([treeA, systemDefault].sort());
    });

    it('answers 403 without a gate permission, for an own grant reaching no definition, for reach none; 401 anonymous', async () => {
        const expect403 = async (auth: string) => {
            const response = await fetchCatalog(auth);
            expect(response.statusCode, response.body).toBe(403);
            expect(response.json()).toMatchObject({ code: 'permission_denied' });
        };
        await expect403((await actorWith(app, realmA, ['user_read', 'role_read', 'permission_check'], RealmScope.ANY)).auth);
        await expect403((await insertUser(app, realmA)).auth);
        // a realm without definitions of its own: an own grant reaches none (spec Errors)
        const empty = await createRealm(app);
        await expect403((await actorWith(app, empty, ['permission_read', 'permission_update'], RealmScope.OWN)).auth);
        await expect403((await actorWith(app, realmA, ['permission_read'], RealmScope.NONE)).auth);
        // ownOrNull from that realm reaches the global rows
        const wider = await actorWith(app, empty, ['permission_read'], RealmScope.OWN);
        await grantUser(app, wider.id, 'permission_delete', RealmScope.OWN_OR_NULL);
        expect((await fetchCatalog(wider.auth)).statusCode).toBe(200);
        const anonymous = await app.request({ method: 'GET', url: '/authorization', as: null });
        expect(anonymous.statusCode).toBe(401);
    });
    describe('conditional GET (RFC 9110 §13.1.2): ETag and 304', () => {
        const get = (headers: Record<string, string> = {}, as?: string) =>
            app.request({ method: 'GET', url: '/authorization', headers, ...(as ? { as } : {}) });
        const tagOf = async (as?: string): Promise<{ etag: string; body: string }> => {
            const response = await get({}, as);
            expect(response.statusCode, response.body).toBe(200);
            const etag = response.headers.etag as string;
            // strong (no W/), quoted
            expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
            return { etag, body: response.body };
        };
        const expect304 = async (ifNoneMatch: string, etag: string, as?: string) => {
            const response = await get({ 'if-none-match': ifNoneMatch }, as);
            expect(response.statusCode, response.body).toBe(304);
            expect(response.body).toBe('');
            // RFC 9110 §15.4.5: the 304 carries the validator and Cache-Control of the 200
            expect(response.headers.etag).toBe(etag);
            expect(response.headers['cache-control']).toBe('private, no-cache');
        };

        it('answers 304 on a matching tag, `*`, a weak form of the tag and a list naming it; 200 on a mismatch', async () => {
            const { etag, body } = await tagOf();
            expect((await tagOf()).etag).toBe(etag);
            await expect304(etag, etag);
            await expect304('*', etag);
            // If-None-Match uses the weak comparison (§13.1.2): W/ on the request side still matches
            await expect304(`W/${etag}`, etag);
            await expect304(`"elsewhere", ${etag}`, etag);
            await expect304(`W/"elsewhere",W/${etag}`, etag);
            for (const miss of ['"elsewhere"', 'W/"elsewhere"', etag.slice(0, -2) + '"', `${etag.slice(1, -1)}`, '"a", "b"']) {
                const response = await get({ 'if-none-match': miss });
                expect(response.statusCode, miss).toBe(200);
                expect(response.body).toBe(body);
                expect(response.headers.etag).toBe(etag);
            }
        });

        it('changes the tag after a definition change: the old tag answers 200 with the new body', async () => {
            const before = await tagOf();
            const created = await app.json<{ data: { id: string } }>({ method: 'POST', url: '/permissions', payload: { name: `etag_${randomUUID().slice(0, 8)}`, realmId: realmA } }, 201);
            const stale = await get({ 'if-none-match': before.etag });
            expect(stale.statusCode).toBe(200);
            expect(stale.headers.etag).not.toBe(before.etag);
            expect((stale.json() as Catalog).permissions.some((candidate) => candidate.realm_id === realmA && candidate.name.startsWith('etag_'))).toBe(true);
            await expect304(stale.headers.etag as string, stale.headers.etag as string);
            // and back: deleting it changes the tag again
            await app.json({ method: 'DELETE', url: `/permissions/${created.data.id}` }, 200);
            const after = await get({ 'if-none-match': stale.headers.etag as string });
            expect(after.statusCode).toBe(200);
            expect(after.headers.etag).not.toBe(stale.headers.etag);
        });

        it('gives each reach its own body and tag: foreign-realm callers and a narrowed client do not revalidate each other', async () => {
            const full = await tagOf();
            const ownA = await actorWith(app, realmA, ['permission_read'], RealmScope.OWN);
            const ownB = await actorWith(app, realmB, ['permission_read'], RealmScope.OWN);
            const tagA = await tagOf(ownA.auth);
            const tagB = await tagOf(ownB.auth);
            expect(new Set([full.etag, tagA.etag, tagB.etag]).size).toBe(3);
            expect(new Set([full.body, tagA.body, tagB.body]).size).toBe(3);
            // a second caller with the same reach shares the body and its tag
            expect((await tagOf((await actorWith(app, realmA, ['permission_read'], RealmScope.OWN)).auth)).etag).toBe(tagA.etag);
            // realm B's tag means nothing to realm A's caller (and the full one to neither)
            expect((await get({ 'if-none-match': tagB.etag }, ownA.auth)).statusCode).toBe(200);
            expect((await get({ 'if-none-match': full.etag }, ownB.auth)).statusCode).toBe(200);
            await expect304(tagA.etag, tagA.etag, ownA.auth);

            // a client credential holding permission_read at ownOrNull in realm B: narrowed, its own tag
            const client = (await app.json<{ data: { id: string } }>({ method: 'POST', url: '/clients', payload: { name: `etag-client-${randomUUID().slice(0, 6)}`, realmId: realmB, secret: 'etag-client-secret' } }, 201)).data;
            await app.json({ method: 'POST', url: '/client-permissions', payload: { clientId: client.id, permissionId: await globalId(app, 'auth_permissions', 'permission_read'), realmScope: RealmScope.OWN_OR_NULL } }, 201);
            const issued = await app.request({ method: 'POST', url: '/token', payload: { grant_type: 'client_credentials', realm_id: realmB }, as: app.basic(client.id, 'etag-client-secret') });
            expect(issued.statusCode, issued.body).toBe(200);
            const bearer = `Bearer ${(issued.json() as { access_token: string }).access_token}`;
            const narrowed = await tagOf(bearer);
            expect(new Set([full.etag, tagA.etag, tagB.etag, narrowed.etag]).size).toBe(4);
            expect(narrowed.body).not.toBe(full.body);
            expect((await get({ 'if-none-match': full.etag }, bearer)).statusCode).toBe(200);
            await expect304(narrowed.etag, narrowed.etag, bearer);
        });

        it('evaluates If-None-Match after the gate: a refused caller gets 403 even with `*` or the current tag', async () => {
            const { etag } = await tagOf();
            const outsider = await actorWith(app, realmA, ['user_read'], RealmScope.ANY);
            for (const value of ['*', etag]) expect((await get({ 'if-none-match': value }, outsider.auth)).statusCode).toBe(403);
            expect((await app.request({ method: 'GET', url: '/authorization', headers: { 'if-none-match': '*' }, as: null })).statusCode).toBe(401);
        });
    });
});
