import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { createActor, createRealm } from '../actors.js';
import { useTestApp } from '../app.js';
import { describeEachDialect } from '../databases.js';

/*
 * Realm isolation of WRITES on identities (spec "Realm reach values"): users and clients are never
 * global, so ownOrNull reaches what own reaches and any reaches every realm. Every 403 is followed
 * by a direct read of the database: the row is unchanged, or absent for a create.
 */

type Scope = 'own' | 'ownOrNull' | 'any';
type Target = 'A' | 'B';
type Row = { id: string; name: string; realmId: string };
type List = { data: Row[]; meta: { total: number } };
type Collection = 'users' | 'clients';

const TABLES = { users: 'auth_users', clients: 'auth_clients' } as const;
const REACH: { scope: Scope; allowed: Target[] }[] = [
    { scope: 'own', allowed: ['A'] },
    { scope: 'ownOrNull', allowed: ['A'] },
    { scope: 'any', allowed: ['A', 'B'] },
];
const ACTIONS = ['create', 'update', 'delete'] as const;

const unique = (prefix: string) => `${prefix}-${randomUUID().slice(0, 8)}`;

describeEachDialect('realm isolation of writes: users and clients', (dialect) => {
    const app = useTestApp(dialect);
    let realms: Record<Target, string>;
    beforeAll(async () => {
        realms = { A: await createRealm(app, 'ident-a'), B: await createRealm(app, 'ident-b') };
    });

    const stored = (collection: Collection, id: string) =>
        app.deps.db.selectFrom(TABLES[collection]).selectAll().where('id', '=', id).executeTakeFirst();
    const storedByName = (collection: Collection, name: string) =>
        app.deps.db.selectFrom(TABLES[collection]).selectAll().where('name', '=', name).executeTakeFirst();
    const make = async (collection: Collection, target: Target) => (await app.json<{ data: Row }>({
        method: 'POST', url: `/${collection}`, payload: { name: unique(`${collection}-${target}`), realmId: realms[target] },
    }, 201)).data;

    async function checkWrite(collection: Collection, action: (typeof ACTIONS)[number], target: Target, header: string, allowed: boolean) {
        const label = `${action} ${collection} in ${target}`;
        if (action === 'create') {
            const name = unique(`${collection}-new-${target}`);
            const response = await app.request({ method: 'POST', url: `/${collection}`, payload: { name, realmId: realms[target] }, as: header });
            expect(response.statusCode, `${label}: ${response.body}`).toBe(allowed ? 201 : 403);
            const row = await storedByName(collection, name);
            if (allowed) expect(row?.realm_id, label).toBe(realms[target]);
            else expect(row, label).toBeUndefined();
            return;
        }
        const row = await make(collection, target);
        const before = await stored(collection, row.id);
        const response = action === 'update' ?
            await app.request({ method: 'POST', url: `/${collection}/${row.id}`, payload: { displayName: 'x' }, as: header }) :
            await app.request({ method: 'DELETE', url: `/${collection}/${row.id}`, as: header });
        expect(response.statusCode, `${label}: ${response.body}`).toBe(allowed ? 200 : 403);
        const after = await stored(collection, row.id);
        if (!allowed) expect(after, label).toEqual(before);
        else if (action === 'delete') expect(after, label).toBeUndefined();
        else expect(after?.display_name, label).toBe('x');
    }

    for (const collection of ['users', 'clients'] as const) {
        const entity = collection.slice(0, -1);
        for (const { scope, allowed } of REACH) {
            for (const action of ACTIONS) {
                it(`${collection}: ${entity}_${action} at ${scope} admits ${allowed.join(', ')} of A, B`, async () => {
                    const actor = await createActor(app, realms.A, [{ permission: `${entity}_${action}`, scope }]);
                    for (const target of ['A', 'B'] as const) await checkWrite(collection, action, target, actor.header, allowed.includes(target));
                });
            }
        }

        it(`${collection}: nested POST /realms/<B>/${collection} follows ${entity}_create reach (own 403, any 201)`, async () => {
            for (const scope of ['own', 'any'] as const) {
                const actor = await createActor(app, realms.A, [{ permission: `${entity}_create`, scope }]);
                const name = unique(`nested-${scope}`);
                const response = await app.request({ method: 'POST', url: `/realms/ident-b/${collection}`, payload: { name }, as: actor.header });
                expect(response.statusCode, `${scope}: ${response.body}`).toBe(scope === 'any' ? 201 : 403);
                const row = await storedByName(collection, name);
                if (scope === 'any') expect(row?.realm_id).toBe(realms.B);
                else expect(row).toBeUndefined();
            }
        });
    }

    describe('an actor holding no grant', () => {
        let header: string;
        beforeAll(async () => {
            ({ header } = await createActor(app, realms.A, []));
        });

        for (const collection of ['users', 'clients'] as const) {
            for (const action of ACTIONS) {
                it(`${collection}: ${action} in A and B answers 403`, async () => {
                    for (const target of ['A', 'B'] as const) await checkWrite(collection, action, target, header, false);
                });
            }
            it(`${collection}: lists (plain and nested) are empty with total 0`, async () => {
                await make(collection, 'A');
                await make(collection, 'B');
                for (const url of [`/${collection}`, `/realms/ident-a/${collection}`, `/realms/ident-b/${collection}`]) {
                    const list = await app.json<List>({ method: 'GET', url, as: header }, 200);
                    expect(list.data, url).toEqual([]);
                    expect(list.meta.total, url).toBe(0);
                }
            });
        }
    });
});
