import { beforeAll, describe, expect, it } from 'vitest';
import { createActor, createRealm } from '../actors.js';
import { useTestApp } from '../app.js';
import { describeEachDialect } from '../databases.js';

type Record = { id: string; name: string; realmId: string | null };

describeEachDialect('realms, roles, permissions, scopes', (dialect) => {
    const app = useTestApp(dialect);
    let realmA: string;
    let realmB: string;
    beforeAll(async () => {
        realmA = await createRealm(app, 'realm-a');
        realmB = await createRealm(app, 'realm-b');
    });

    it('creates, reads by id and name, updates with POST, upserts with PUT and deletes a role, writing events', async () => {
        const created = await app.json<{ data: Record }>({ method: 'POST', url: '/roles', payload: { name: 'editor', realmId: realmA } }, 201);
        expect(created.data).toMatchObject({ name: 'editor', realmId: realmA, builtIn: false });
        const byName = await app.json<{ data: Record }>({ method: 'GET', url: '/realms/realm-a/roles/editor' }, 200);
        expect(byName.data.id).toBe(created.data.id);
        const updated = await app.json<{ data: Record & { displayName: string } }>({ method: 'POST', url: `/roles/${created.data.id}`, payload: { displayName: 'Editor' } }, 200);
        expect(updated.data.displayName).toBe('Editor');
        const upserted = await app.request({ method: 'PUT', url: '/realms/realm-a/roles/reviewer', payload: { name: 'reviewer' } });
        expect(upserted.statusCode).toBe(201);
        expect((await app.request({ method: 'PUT', url: '/realms/realm-a/roles/reviewer', payload: { name: 'reviewer', description: 'x' } })).statusCode).toBe(200);
        await app.json({ method: 'DELETE', url: `/roles/${created.data.id}` }, 200);
        expect((await app.request({ method: 'GET', url: `/roles/${created.data.id}` })).statusCode).toBe(404);
        const events = await app.deps.db.selectFrom('auth_events').select(['name', 'data']).where('ref_id', '=', created.data.id).execute();
        expect(events.map((e) => e.name).sort()).toEqual(['role.created', 'role.deleted', 'role.updated']);
    });

    it('answers 409 for a duplicate global name (NULLs coalesced) and 400 with issues for bad input, writing nothing', async () => {
        await app.json({ method: 'POST', url: '/roles', payload: { name: 'global-dup', realmId: null } }, 201);
        const duplicate = await app.request({ method: 'POST', url: '/roles', payload: { name: 'global-dup', realmId: null } });
        expect(duplicate.statusCode).toBe(409);
        expect(duplicate.json()).toMatchObject({ code: 'entity_conflict' });
        const count = async () => Number((await app.deps.db.selectFrom('auth_roles').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
        const before = await count();
        for (const payload of [{}, { name: 5 }, { name: 'x'.repeat(500) }, { name: 'ok', bogus: true }, { name: 'ok', realmId: 'not-a-uuid' }]) {
            const response = await app.request({ method: 'POST', url: '/roles', payload });
            expect(response.statusCode, JSON.stringify(payload)).toBe(400);
            expect(response.json().issues.length).toBeGreaterThan(0);
        }
        const malformed = await app.request({ method: 'POST', url: '/roles', payload: '{"name":', headers: { 'content-type': 'application/json' } });
        expect(malformed.statusCode).toBe(400);
        expect(await count()).toBe(before);
    });

    it('refuses to delete built-in rows and the master realm', async () => {
        const admin = await app.deps.db.selectFrom('auth_roles').select('id').where('name', '=', 'admin').executeTakeFirstOrThrow();
        expect((await app.request({ method: 'DELETE', url: `/roles/${admin.id}` })).statusCode).toBe(400);
        expect((await app.request({ method: 'DELETE', url: '/realms/master' })).statusCode).toBe(400);
    });

    it('binds system.default to every permission POST /permissions creates', async () => {
        const created = await app.json<{ data: Record }>({ method: 'POST', url: '/permissions', payload: { name: 'report_read', realmId: realmA } }, 201);
        const bindings = await app.deps.db.selectFrom('auth_permission_policies as b').innerJoin('auth_policies as p', 'p.id', 'b.policy_id')
            .where('b.permission_id', '=', created.data.id).select('p.name').execute();
        expect(bindings.map((b) => b.name)).toEqual(['system.default']);
    });

    it('includes related records and filters through relations, each gated by the related read permission', async () => {
        const role = (await app.json<{ data: Record }>({ method: 'POST', url: '/roles', payload: { name: 'with-realm', realmId: realmB } }, 201)).data;
        const included = await app.json<{ data: Record & { realm: Record | null } }>({ method: 'GET', url: `/roles/${role.id}?include=realm` }, 200);
        expect(included.data.realm?.id).toBe(realmB);
        // a reader of realm-B roles without realm_read sees the relation as null
        const reader = await createActor(app, realmA, [{ permission: 'role_read', scope: 'any' }]);
        const list = await app.json<{ data: (Record & { realm: Record | null })[] }>({ method: 'GET', url: `/roles?filter[id]=${role.id}&include=realm`, as: reader.header }, 200);
        expect(list.data).toHaveLength(1);
        expect(list.data[0]!.realm).toBeNull();
        expect((await app.request({ method: 'GET', url: '/roles?include=owner' })).statusCode).toBe(400);
        // filter through a relation: the related column as a subquery, total still exact
        const throughRealm = await app.json<{ data: Record[]; meta: { total: number } }>({ method: 'GET', url: '/roles?filter[realm.name]=realm-b' }, 200);
        expect(throughRealm.data.length).toBeGreaterThan(0);
        expect(throughRealm.data.every((row) => row.realmId === realmB)).toBe(true);
        expect(throughRealm.meta.total).toBe(throughRealm.data.length);
        const globals = await app.json<{ data: Record[] }>({ method: 'GET', url: '/roles?filter[realm.name]=null' }, 200);
        expect(globals.data.every((row) => row.realmId === null)).toBe(true);
        // a caller who can read no realm cannot probe realm names through the relation
        expect((await app.request({ method: 'GET', url: '/roles?filter[realm.name]=realm-b', as: reader.header })).statusCode).toBe(403);
        expect((await app.request({ method: 'GET', url: '/roles?filter[realm.nope]=x' })).statusCode).toBe(400);
    });

    it('describes its query vocabulary at @schema and in bulk at /schemas', async () => {
        const schema = await app.json<{ data: { name: string; fields: { name: string; filterOperators?: string[] }[] } }>({ method: 'GET', url: '/roles/@schema' }, 200);
        expect(schema.data.name).toBe('role');
        expect(schema.data.fields.find((f) => f.name === 'createdAt')?.filterOperators).toEqual(['<', '<=', '>', '>=']);
        const all = await app.json<{ data: { name: string }[] }>({ method: 'GET', url: '/schemas' }, 200);
        expect(all.data.map((d) => d.name)).toEqual(expect.arrayContaining(['realm', 'role', 'permission', 'scope', 'path']));
    });

    it('filters, sorts and pages with an exact total; refuses equality on createdAt', async () => {
        for (const name of ['p-1', 'p-2', 'p-3']) await app.json({ method: 'POST', url: '/scopes', payload: { name, realmId: realmB } }, 201);
        const page = await app.json<{ data: Record[]; meta: { total: number } }>({ method: 'GET', url: `/scopes?filter[realmId]=${realmB}&sort=-name&page[limit]=2` }, 200);
        expect(page.meta.total).toBe(3);
        expect(page.data.map((s) => s.name)).toEqual(['p-3', 'p-2']);
        const bad = await app.request({ method: 'GET', url: '/scopes?filter[createdAt]=2026-01-01T00:00:00Z' });
        expect(bad.statusCode).toBe(400);
        expect(bad.json().issues[0].path).toEqual(['filter', 'createdAt']);
        expect((await app.request({ method: 'GET', url: '/scopes?filter[nope]=1' })).statusCode).toBe(400);
    });

    describe('realm isolation (spec "Realm reach values", Authentication rule 9)', () => {
        const reads: { scope: 'own' | 'ownOrNull' | 'any'; own: number; foreign: number; global: number }[] = [
            { scope: 'own', own: 200, foreign: 403, global: 403 },
            { scope: 'ownOrNull', own: 200, foreign: 403, global: 200 },
            { scope: 'any', own: 200, foreign: 200, global: 200 },
        ];
        for (const collection of ['roles', 'permissions', 'scopes'] as const) {
            for (const expected of reads) {
                it(`${collection} at ${expected.scope}: own realm, foreign realm and global rows`, async () => {
                    const entity = collection.slice(0, -1);
                    const actor = await createActor(app, realmA, [{ permission: `${entity}_read`, scope: expected.scope }]);
                    const make = (realmId: string | null) => app.json<{ data: Record }>({
                        method: 'POST', url: `/${collection}`, payload: { name: `${entity}-${expected.scope}-${realmId ?? 'global'}`, realmId },
                    }, 201);
                    const own = (await make(realmA)).data;
                    const foreign = (await make(realmB)).data;
                    const global = (await make(null)).data;
                    for (const [row, status] of [[own, expected.own], [foreign, expected.foreign], [global, expected.global]] as const) {
                        expect((await app.request({ method: 'GET', url: `/${collection}/${row.id}`, as: actor.header })).statusCode, row.name).toBe(status);
                    }
                    const list = await app.json<{ data: Record[]; meta: { total: number } }>({
                        method: 'GET', url: `/${collection}?filter[id]=${own.id},${foreign.id},${global.id}`, as: actor.header,
                    }, 200);
                    const ids = list.data.map((r) => r.id);
                    expect(ids.includes(own.id)).toBe(expected.own === 200);
                    expect(ids.includes(foreign.id)).toBe(expected.foreign === 200);
                    expect(ids.includes(global.id)).toBe(expected.global === 200);
                    expect(list.meta.total).toBe(list.data.length);
                    // writes need their own permission, whatever the read reach
                    expect((await app.request({ method: 'POST', url: `/${collection}/${own.id}`, payload: { description: 'x' }, as: actor.header })).statusCode).toBe(403);
                });
            }
        }

        it('a realm-A creator with role_create at own cannot create in realm B or globally', async () => {
            const actor = await createActor(app, realmA, [{ permission: 'role_create', scope: 'own' }]);
            expect((await app.request({ method: 'POST', url: '/roles', payload: { name: 'mine' }, as: actor.header })).statusCode).toBe(201);
            expect((await app.request({ method: 'POST', url: '/roles', payload: { name: 'theirs', realmId: realmB }, as: actor.header })).statusCode).toBe(403);
            expect((await app.request({ method: 'POST', url: '/roles', payload: { name: 'global-x', realmId: null }, as: actor.header })).statusCode).toBe(403);
            expect((await app.request({ method: 'POST', url: '/realms/realm-b/roles', payload: { name: 'nested' }, as: actor.header })).statusCode).toBe(403);
        });

        it('realms: a realm user with realm_read at own sees only its realm; master membership adds no bypass', async () => {
            const actor = await createActor(app, realmA, [{ permission: 'realm_read', scope: 'own' }]);
            const list = await app.json<{ data: Record[] }>({ method: 'GET', url: '/realms', as: actor.header }, 200);
            expect(list.data.map((r) => r.id)).toEqual([realmA]);
            expect((await app.request({ method: 'GET', url: `/realms/${realmB}`, as: actor.header })).statusCode).toBe(403);
            const master = (await app.deps.db.selectFrom('auth_realms').select('id').where('name', '=', 'master').executeTakeFirstOrThrow()).id;
            const masterActor = await createActor(app, master, [{ permission: 'realm_read', scope: 'own' }]);
            expect((await app.request({ method: 'GET', url: `/realms/${realmB}`, as: masterActor.header })).statusCode).toBe(403);
        });
    });
});
