import { randomUUID } from 'node:crypto';
import { RealmScope } from '@realmgate/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { createActor, createRealm } from '../../test/actors.js';
import { useTestApp } from '../../test/app.js';
import { describeEachDialect } from '../../test/databases.js';
import { countRows, createUser } from '../../test/identities.js';
import { toDbDate } from '../db/values.js';

type Attribute = { id: string; name: string; value: unknown; realmId: string | null; userId?: string; roleId?: string };
type List = { data: Attribute[]; meta: { total: number } };

describeEachDialect('user and role attributes', (dialect) => {
    const app = useTestApp(dialect);
    let realmA: string;
    let realmB: string;
    let userA: string;
    let userB: string;
    let roleA: string;
    let roleGlobal: string;
    beforeAll(async () => {
        realmA = await createRealm(app, 'attr-a');
        realmB = await createRealm(app, 'attr-b');
        userA = (await createUser(app, realmA, 'owner-a')).id;
        userB = (await createUser(app, realmB, 'owner-b')).id;
        roleA = (await app.json<{ data: { id: string } }>({ method: 'POST', url: '/roles', payload: { name: 'attr-role', realmId: realmA } }, 201)).data.id;
        roleGlobal = (await app.json<{ data: { id: string } }>({ method: 'POST', url: '/roles', payload: { name: 'attr-global', realmId: null } }, 201)).data.id;
    });

    const createAttribute = async (collection: string, payload: Record<string, unknown>, as?: string) =>
        (await app.json<{ data: Attribute }>({ method: 'POST', url: `/${collection}`, payload, ...(as ? { as } : {}) }, 201)).data;

    it('keeps the type of a value: a string stays a string, JSON-quoted at rest', async () => {
        const cases: [string, unknown][] = [['s', '123'], ['t', 'true'], ['n', 123], ['b', false], ['o', { a: [1, 'x'] }], ['z', null], ['q', 'plain text']];
        for (const [name, value] of cases) {
            const created = await createAttribute('user-attributes', { userId: userA, name, value });
            expect(created.value).toEqual(value);
            const read = await app.json<{ data: Attribute }>({ method: 'GET', url: `/user-attributes/${created.id}` }, 200);
            expect(read.data.value).toEqual(value);
        }
        const row = await app.deps.db.selectFrom('auth_user_attributes').select('value').where('user_id', '=', userA).where('name', '=', 's').executeTakeFirstOrThrow();
        expect(row.value).toBe('"123"');
    });

    it('reads values stored before quoting: numeric and boolean text as such, other text as a string', async () => {
        const now = toDbDate(app.deps.handle.dialect, new Date());
        for (const [name, value] of [['legacy-n', '42'], ['legacy-b', 'true'], ['legacy-s', 'hello']]) {
            await app.deps.db.insertInto('auth_user_attributes').values({ id: randomUUID(), name: name!, value: value!, user_id: userA, realm_id: realmA, created_at: now, updated_at: now }).execute();
        }
        const list = await app.json<List>({ method: 'GET', url: `/user-attributes?filter[userId]=${userA}&filter[name]=legacy~` }, 200);
        expect(Object.fromEntries(list.data.map((attribute) => [attribute.name, attribute.value]))).toEqual({ 'legacy-n': 42, 'legacy-b': true, 'legacy-s': 'hello' });
    });

    it('takes the realm from the owner, never from the body', async () => {
        const implicit = await createAttribute('user-attributes', { userId: userB, name: 'realm-implicit', value: 1 });
        expect(implicit.realmId).toBe(realmB);
        const explicit = await createAttribute('user-attributes', { userId: userB, name: 'realm-explicit', value: 1, realmId: realmB });
        expect(explicit.realmId).toBe(realmB);
        const before = await countRows(app, 'auth_user_attributes');
        const cases: [string, Record<string, unknown>][] = [
            ['/user-attributes', { userId: userB, name: 'realm-wrong', value: 1, realmId: realmA }],
            ['/realms/attr-a/user-attributes', { userId: userB, name: 'realm-route', value: 1 }],
            ['/user-attributes', { userId: randomUUID(), name: 'no-owner', value: 1 }],
        ];
        for (const [url, payload] of cases) {
            const response = await app.request({ method: 'POST', url, payload });
            expect(response.statusCode, url).toBe(400);
            expect(response.json().issues.length).toBeGreaterThan(0);
        }
        expect(await countRows(app, 'auth_user_attributes')).toBe(before);
        expect((await app.request({ method: 'POST', url: `/user-attributes/${implicit.id}`, payload: { realmId: realmA } })).statusCode).toBe(400);
        const updated = await app.json<{ data: Attribute }>({ method: 'POST', url: `/user-attributes/${implicit.id}`, payload: { value: 'two' } }, 200);
        expect(updated.data).toMatchObject({ value: 'two', realmId: realmB });
    });

    it('gives a global role\'s attributes realm null and a realm role\'s attributes the role\'s realm', async () => {
        const global = await createAttribute('role-attributes', { roleId: roleGlobal, name: 'tier', value: 'gold' });
        expect(global).toMatchObject({ realmId: null, roleId: roleGlobal, value: 'gold' });
        const scoped = await createAttribute('role-attributes', { roleId: roleA, name: 'tier', value: 2 });
        expect(scoped.realmId).toBe(realmA);
        expect((await app.request({ method: 'POST', url: '/role-attributes', payload: { roleId: roleGlobal, name: 'x', realmId: realmA } })).statusCode).toBe(400);
    });

    it('caps a value at 16 KB serialized and refuses bad input with issues, writing nothing', async () => {
        const before = await countRows(app, 'auth_user_attributes');
        const bodies: Record<string, unknown>[] = [
            { userId: userA, name: 'big', value: 'x'.repeat(16 * 1024) },
            { userId: userA, name: 'big', value: { list: Array.from({ length: 3000 }, (_, i) => i * 1000) } },
            { userId: userA },
            { name: 'no-owner' },
            { userId: userA, name: 5 },
            { userId: userA, name: 'n'.repeat(256) },
            { userId: userA, name: 'has space' },
            { userId: 'not-a-uuid', name: 'x' },
            { userId: userA, name: 'x', extra: true },
        ];
        for (const payload of bodies) {
            const response = await app.request({ method: 'POST', url: '/user-attributes', payload });
            expect(response.statusCode, JSON.stringify(payload).slice(0, 80)).toBe(400);
            expect(response.json().issues?.length).toBeGreaterThan(0);
        }
        expect(await countRows(app, 'auth_user_attributes')).toBe(before);
        const small = await createAttribute('user-attributes', { userId: userA, name: 'small', value: 'x'.repeat(100) });
        const response = await app.request({ method: 'POST', url: `/user-attributes/${small.id}`, payload: { value: 'y'.repeat(17 * 1024) } });
        expect(response.statusCode).toBe(400);
        expect((await app.json<{ data: Attribute }>({ method: 'GET', url: `/user-attributes/${small.id}` }, 200)).data.value).toBe('x'.repeat(100));
        expect((await app.request({ method: 'POST', url: '/user-attributes', payload: { userId: userA, name: 'small', value: 1 } })).statusCode).toBe(409);
    });

    describe('realm reach', () => {
        let attributeA: Attribute;
        let attributeB: Attribute;
        let attributeGlobal: Attribute;
        beforeAll(async () => {
            attributeA = await createAttribute('user-attributes', { userId: userA, name: 'reach', value: 'a' });
            attributeB = await createAttribute('user-attributes', { userId: userB, name: 'reach', value: 'b' });
            attributeGlobal = await createAttribute('role-attributes', { roleId: roleGlobal, name: 'reach', value: 'g' });
        });

        for (const scope of [RealmScope.OWN, RealmScope.OWN_OR_NULL, RealmScope.ANY]) {
            it(`answers user and role attributes of realm B and global rows by the reach table at ${scope}`, async () => {
                const actor = await createActor(app, realmA, ['read', 'create', 'update', 'delete'].flatMap((action) => [
                    { permission: `user_attribute_${action}`, scope },
                    { permission: `role_attribute_${action}`, scope },
                ]));
                const foreign = scope === RealmScope.ANY;
                const global = scope !== RealmScope.OWN;
                await app.json({ method: 'GET', url: `/user-attributes/${attributeA.id}`, as: actor.header }, 200);
                expect((await app.request({ method: 'GET', url: `/user-attributes/${attributeB.id}`, as: actor.header })).statusCode).toBe(foreign ? 200 : 403);
                expect((await app.request({ method: 'GET', url: `/role-attributes/${attributeGlobal.id}`, as: actor.header })).statusCode).toBe(global ? 200 : 403);
                const users = await app.json<List>({ method: 'GET', url: '/user-attributes?filter[name]=reach', as: actor.header }, 200);
                expect(users.data.map((attribute) => attribute.id).sort()).toEqual((foreign ? [attributeA.id, attributeB.id] : [attributeA.id]).sort());
                expect(users.meta.total).toBe(users.data.length);
                const roles = await app.json<List>({ method: 'GET', url: '/role-attributes?filter[name]=reach', as: actor.header }, 200);
                expect(roles.data.map((attribute) => attribute.id)).toEqual(global ? [attributeGlobal.id] : []);

                // a body realmId cannot bring a write into reach: the owner's realm decides
                const name = `w-${scope}`;
                expect((await app.request({ method: 'POST', url: '/user-attributes', payload: { userId: userA, name, value: 1 }, as: actor.header })).statusCode).toBe(201);
                expect((await app.request({ method: 'POST', url: '/user-attributes', payload: { userId: userB, name, value: 1 }, as: actor.header })).statusCode).toBe(foreign ? 201 : 403);
                expect((await app.request({ method: 'POST', url: `/user-attributes/${attributeB.id}`, payload: { value: 'b' }, as: actor.header })).statusCode).toBe(foreign ? 200 : 403);
                // own/ownOrNull write reach is the caller's realm; global role rows need ownOrNull or wider
                expect((await app.request({ method: 'POST', url: '/role-attributes', payload: { roleId: roleGlobal, name, value: 1 }, as: actor.header })).statusCode).toBe(global ? 201 : 403);
            });
        }
    });
});
