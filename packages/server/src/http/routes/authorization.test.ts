import { randomUUID } from 'node:crypto';
import { createAuthorizationEvaluator, type AuthorizationCatalog } from '@realmgate/access';
import { RealmScope, SystemPolicyName } from '@realmgate/core';
import { beforeAll, expect, it } from 'vitest';
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
});
