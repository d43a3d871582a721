import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { createActor, createRealm } from '../actors.js';
import { useTestApp } from '../app.js';
import { describeEachDialect } from '../databases.js';

/*
 * Realm isolation of WRITES (spec "Realm reach values"): an actor of realm A holding the action's
 * permission at own, ownOrNull or any writes rows of realm A, realm B and global rows. Every 403
 * is followed by a direct read of the database: the row is unchanged, or absent for a create.
 */

type Scope = 'own' | 'ownOrNull' | 'any';
type Target = 'A' | 'B' | 'global';
type Row = { id: string; name: string; realmId: string | null };
type List = { data: Row[]; meta: { total: number } };
type Collection = 'roles' | 'permissions' | 'scopes' | 'paths';

const TABLES = { roles: 'auth_roles', permissions: 'auth_permissions', scopes: 'auth_scopes', paths: 'auth_paths' } as const;

/** Expected status per target realm; create answers 201 where update and delete answer 200. */
const NULLABLE_REACH: { scope: Scope; allowed: Target[] }[] = [
    { scope: 'own', allowed: ['A'] },
    { scope: 'ownOrNull', allowed: ['A', 'global'] },
    { scope: 'any', allowed: ['A', 'B', 'global'] },
];
const REQUIRED_REACH: { scope: Scope; allowed: Target[] }[] = [
    { scope: 'own', allowed: ['A'] },
    { scope: 'any', allowed: ['A', 'B'] },
];

const unique = (prefix: string) => `${prefix}-${randomUUID().slice(0, 8)}`;

describeEachDialect('realm isolation of writes: roles, permissions, scopes, paths', (dialect) => {
    const app = useTestApp(dialect);
    let realms: Record<Target, string | null>;
    beforeAll(async () => {
        realms = { A: await createRealm(app, 'iso-a'), B: await createRealm(app, 'iso-b'), global: null };
    });

    /** The stored row, every column, or undefined when absent. */
    const stored = (collection: Collection, id: string) =>
        app.deps.db.selectFrom(TABLES[collection]).selectAll().where('id', '=', id).executeTakeFirst();
    const storedByName = (collection: Collection, name: string) =>
        app.deps.db.selectFrom(TABLES[collection]).selectAll().where('name', '=', name).executeTakeFirst();
    /** A fresh row as the bootstrap admin (never a built-in one). */
    const make = async (collection: Collection, target: Target) => (await app.json<{ data: Row }>({
        method: 'POST', url: `/${collection}`, payload: { name: unique(`${collection}-${target}`), realmId: realms[target] },
    }, 201)).data;
    /** paths have no description; their name is the field an update changes */
    const updateBody = (collection: Collection) => (collection === 'paths' ? { name: unique('renamed') } : { description: 'x' });

    /** One write of `action` against a fresh target row (or a create into the target realm), checked in the database. */
    async function checkWrite(collection: Collection, action: 'create' | 'update' | 'delete', target: Target, header: string, allowed: boolean) {
        const label = `${action} ${collection} in ${target}`;
        if (action === 'create') {
            const name = unique(`${collection}-new-${target}`);
            const response = await app.request({ method: 'POST', url: `/${collection}`, payload: { name, realmId: realms[target] }, as: header });
            expect(response.statusCode, `${label}: ${response.body}`).toBe(allowed ? 201 : 403);
            const row = await storedByName(collection, name);
            if (allowed) expect(row?.realm_id ?? null, label).toBe(realms[target]);
            else expect(row, label).toBeUndefined();
            return;
        }
        const row = await make(collection, target);
        const before = await stored(collection, row.id);
        const body = updateBody(collection);
        const response = action === 'update' ?
            await app.request({ method: 'POST', url: `/${collection}/${row.id}`, payload: body, as: header }) :
            await app.request({ method: 'DELETE', url: `/${collection}/${row.id}`, as: header });
        expect(response.statusCode, `${label}: ${response.body}`).toBe(allowed ? 200 : 403);
        const after = await stored(collection, row.id);
        if (!allowed) expect(after, label).toEqual(before);
        else if (action === 'delete') expect(after, label).toBeUndefined();
        else expect(after, label).toMatchObject(collection === 'paths' ? { name: (body as { name: string }).name } : { description: 'x' });
    }

    const cases: [Collection, { scope: Scope; allowed: Target[] }[], Target[]][] = [
        ['roles', NULLABLE_REACH, ['A', 'B', 'global']],
        ['permissions', NULLABLE_REACH, ['A', 'B', 'global']],
        ['scopes', NULLABLE_REACH, ['A', 'B', 'global']],
        ['paths', REQUIRED_REACH, ['A', 'B']],
    ];
    for (const [collection, reaches, targets] of cases) {
        const entity = collection.slice(0, -1);
        for (const { scope, allowed } of reaches) {
            for (const action of ['create', 'update', 'delete'] as const) {
                it(`${collection}: ${entity}_${action} at ${scope} admits ${allowed.join(', ')} of ${targets.join(', ')}`, async () => {
                    const actor = await createActor(app, realms.A!, [{ permission: `${entity}_${action}`, scope }]);
                    for (const target of targets) await checkWrite(collection, action, target, actor.header, allowed.includes(target));
                });
            }
        }
    }

    describe('nested realm mounts and PUT upserts', () => {
        it('POST /realms/<B>/roles: role_create at own answers 403 and writes nothing, at any 201', async () => {
            const own = await createActor(app, realms.A!, [{ permission: 'role_create', scope: 'own' }]);
            const denied = unique('nested-own');
            expect((await app.request({ method: 'POST', url: '/realms/iso-b/roles', payload: { name: denied }, as: own.header })).statusCode).toBe(403);
            expect(await storedByName('roles', denied)).toBeUndefined();
            const any = await createActor(app, realms.A!, [{ permission: 'role_create', scope: 'any' }]);
            const admitted = unique('nested-any');
            const response = await app.request({ method: 'POST', url: '/realms/iso-b/roles', payload: { name: admitted }, as: any.header });
            expect(response.statusCode, response.body).toBe(201);
            expect((await storedByName('roles', admitted))?.realm_id).toBe(realms.B);
        });

        it('GET /realms/<B>/roles: role_read at own lists nothing (total 0), at any the B roles', async () => {
            const roleB = await make('roles', 'B');
            const own = await createActor(app, realms.A!, [{ permission: 'role_read', scope: 'own' }]);
            const empty = await app.json<List>({ method: 'GET', url: '/realms/iso-b/roles', as: own.header }, 200);
            expect(empty.data).toEqual([]);
            expect(empty.meta.total).toBe(0);
            const any = await createActor(app, realms.A!, [{ permission: 'role_read', scope: 'any' }]);
            const list = await app.json<List>({ method: 'GET', url: '/realms/iso-b/roles?page[limit]=100', as: any.header }, 200);
            expect(list.data.map((role) => role.id)).toContain(roleB.id);
            expect(list.data.every((role) => role.realmId === realms.B)).toBe(true);
            expect(list.meta.total).toBe(list.data.length);
        });

        it('PUT /realms/<A>/roles/<new> with role_create at own answers 201; in realm B 403 and writes nothing', async () => {
            const actor = await createActor(app, realms.A!, [{ permission: 'role_create', scope: 'own' }]);
            const mine = unique('put-a');
            const created = await app.request({ method: 'PUT', url: `/realms/iso-a/roles/${mine}`, payload: {}, as: actor.header });
            expect(created.statusCode, created.body).toBe(201);
            expect((await storedByName('roles', mine))?.realm_id).toBe(realms.A);
            const theirs = unique('put-b');
            expect((await app.request({ method: 'PUT', url: `/realms/iso-b/roles/${theirs}`, payload: {}, as: actor.header })).statusCode).toBe(403);
            expect(await storedByName('roles', theirs)).toBeUndefined();
        });

        it('PUT /realms/<A>/roles/<id of a realm-B role> answers as for an unknown id (404), not 409, and writes nothing', async () => {
            const roleB = await make('roles', 'B');
            const before = await stored('roles', roleB.id);
            // a realm-A caller allowed to create in A: the id names no row of A (GET on the same path answers 404 too)
            const creator = await createActor(app, realms.A!, [{ permission: 'role_create', scope: 'own' }, { permission: 'role_update', scope: 'own' }]);
            const foreign = await app.request({ method: 'PUT', url: `/realms/iso-a/roles/${roleB.id}`, payload: { name: unique('put-foreign') }, as: creator.header });
            expect(foreign.statusCode, foreign.body).toBe(404);
            expect(foreign.json()).toMatchObject({ code: 'entity_not_found' });
            // the master admin alike: on realm A's mount the id is unknown
            const admin = await app.request({ method: 'PUT', url: `/realms/iso-a/roles/${roleB.id}`, payload: { name: unique('put-admin') } });
            expect(admin.statusCode, admin.body).toBe(404);
            expect(admin.json()).toMatchObject({ code: 'entity_not_found' });
            // a caller that may not create in A answers 403, as for an unknown id
            const reader = await createActor(app, realms.A!, [{ permission: 'role_read', scope: 'own' }]);
            const unknown = await app.request({ method: 'PUT', url: `/realms/iso-a/roles/${randomUUID()}`, payload: { name: unique('put-unknown') }, as: reader.header });
            const taken = await app.request({ method: 'PUT', url: `/realms/iso-a/roles/${roleB.id}`, payload: { name: unique('put-taken') }, as: reader.header });
            expect([unknown.statusCode, taken.statusCode]).toEqual([403, 403]);
            expect(await stored('roles', roleB.id)).toEqual(before);
        });

        it('PUT on an existing realm-B role (the update path) with role_update at own answers 403, row unchanged', async () => {
            const actor = await createActor(app, realms.A!, [{ permission: 'role_update', scope: 'own' }]);
            const roleB = await make('roles', 'B');
            const before = await stored('roles', roleB.id);
            for (const url of [`/realms/iso-b/roles/${roleB.name}`, `/roles/${roleB.id}`]) {
                const response = await app.request({ method: 'PUT', url, payload: { description: 'x' }, as: actor.header });
                expect(response.statusCode, `${url}: ${response.body}`).toBe(403);
                expect(await stored('roles', roleB.id)).toEqual(before);
            }
        });
    });

    describe('an actor holding no grant', () => {
        let header: string;
        beforeAll(async () => {
            ({ header } = await createActor(app, realms.A!, []));
        });

        for (const [collection, , targets] of cases) {
            for (const action of ['create', 'update', 'delete'] as const) {
                it(`${collection}: ${action} in ${targets.join(', ')} answers 403`, async () => {
                    for (const target of targets) await checkWrite(collection, action, target, header, false);
                });
            }
            it(`${collection}: the list is empty with total 0`, async () => {
                await make(collection, 'A');
                await make(collection, 'B');
                const list = await app.json<List>({ method: 'GET', url: `/${collection}`, as: header }, 200);
                expect(list.data).toEqual([]);
                expect(list.meta.total).toBe(0);
            });
        }

        it('nested mounts and PUT upserts answer 403, lists are empty', async () => {
            const roleB = await make('roles', 'B');
            const before = await stored('roles', roleB.id);
            for (const realm of ['iso-a', 'iso-b']) {
                const name = unique(`nested-none-${realm}`);
                expect((await app.request({ method: 'POST', url: `/realms/${realm}/roles`, payload: { name }, as: header })).statusCode).toBe(403);
                const put = unique(`put-none-${realm}`);
                expect((await app.request({ method: 'PUT', url: `/realms/${realm}/roles/${put}`, payload: {}, as: header })).statusCode).toBe(403);
                expect(await storedByName('roles', name)).toBeUndefined();
                expect(await storedByName('roles', put)).toBeUndefined();
                const list = await app.json<List>({ method: 'GET', url: `/realms/${realm}/roles`, as: header }, 200);
                expect(list.data).toEqual([]);
                expect(list.meta.total).toBe(0);
            }
            const response = await app.request({ method: 'PUT', url: `/realms/iso-b/roles/${roleB.name}`, payload: { description: 'x' }, as: header });
            expect(response.statusCode).toBe(403);
            expect(await stored('roles', roleB.id)).toEqual(before);
        });
    });
});
