import type { RealmScope } from '@realmgate/core';
import { beforeAll, expect, it } from 'vitest';
import { useTestApp } from '../../../test/app.js';
import { describeEachDialect } from '../../../test/databases.js';
import {
    actorWith, createPermission, createRealm, reaches, REALM_SCOPES, uniqueName, type FixtureActor, type Where,
} from '../../../test/grant-fixtures.js';

type List = { data: { id: string }[]; meta: { total: number } };

/*
 * Realm isolation (every route proves it): an actor of realm A holding the resource's permissions at own,
 * ownOrNull and any tries realm A's, realm B's and global rows; every outcome follows the reach table.
 */
describeEachDialect('policy and permission-policy realm isolation', (dialect) => {
    const app = useTestApp(dialect);
    const realm: Record<Where, string | null> = { A: null, B: null, global: null };
    const actors = new Map<RealmScope, FixtureActor>();

    beforeAll(async () => {
        realm.A = await createRealm(app);
        realm.B = await createRealm(app);
        for (const scope of REALM_SCOPES) {
            actors.set(scope, await actorWith(app, realm.A, [
                'policy_read', 'policy_create', 'policy_update', 'policy_delete',
                'permission_policy_read', 'permission_policy_create', 'permission_policy_delete',
            ], scope));
        }
    });

    const wheres: Where[] = ['A', 'B', 'global'];
    const adminPolicy = async (where: Where, type = 'identity') => (await app.json<{ data: { id: string } }>({
        method: 'POST', url: '/policies', payload: { type, name: uniqueName('iso'), realmId: realm[where] },
    }, 201)).data.id;
    const adminBinding = async (where: Where) => {
        const permissionId = await createPermission(app, realm[where]);
        return (await app.json<{ data: { id: string } }>({
            method: 'POST', url: '/permission-policies', payload: { permissionId, policyId: await adminPolicy('global') },
        }, 201)).data.id;
    };

    for (const scope of REALM_SCOPES) {
        it(`policies: reads, lists and writes follow the reach table at ${scope}`, async () => {
            const as = actors.get(scope)!.auth;
            const ids = {} as Record<Where, string>;
            for (const where of wheres) ids[where] = await adminPolicy(where, 'composite');
            for (const where of wheres) {
                const expected = reaches(scope, where) ? 200 : 403;
                expect((await app.request({ url: `/policies/${ids[where]}`, as })).statusCode, `read ${where}`).toBe(expected);
                expect((await app.request({ url: `/policies/${ids[where]}/expanded`, as })).statusCode, `expanded ${where}`).toBe(expected);
                const update = await app.request({ method: 'POST', url: `/policies/${ids[where]}`, payload: { displayName: 'x' }, as });
                expect(update.statusCode, `update ${where}`).toBe(expected);
                const create = await app.request({ method: 'POST', url: '/policies', payload: { type: 'identity', name: uniqueName('c'), realmId: realm[where] }, as });
                expect(create.statusCode, `create ${where}`).toBe(reaches(scope, where) ? 201 : 403);
                const child = await app.request({ method: 'POST', url: '/policies', payload: { type: 'identity', name: uniqueName('c'), realmId: realm[where], parentId: ids[where] }, as });
                expect(child.statusCode, `child ${where}`).toBe(reaches(scope, where) ? 201 : 403);
                const removed = await app.request({ method: 'DELETE', url: `/policies/${await adminPolicy(where)}`, as });
                expect(removed.statusCode, `delete ${where}`).toBe(expected);
            }
            const list = await app.json<List>({ url: `/policies?filter[id]=${Object.values(ids).join(',')}`, as }, 200);
            const visible = wheres.filter((where) => reaches(scope, where)).map((where) => ids[where]).sort();
            expect(list.data.map((row) => row.id).sort()).toEqual(visible);
            expect(list.meta.total).toBe(visible.length);
        });

        it(`permission-policies: the permission's realm decides at ${scope}`, async () => {
            const as = actors.get(scope)!.auth;
            const ids = {} as Record<Where, string>;
            for (const where of wheres) ids[where] = await adminBinding(where);
            for (const where of wheres) {
                const expected = reaches(scope, where) ? 200 : 403;
                expect((await app.request({ url: `/permission-policies/${ids[where]}`, as })).statusCode, `read ${where}`).toBe(expected);
                const permissionId = await createPermission(app, realm[where]);
                const policyId = await adminPolicy('global');
                const create = await app.request({ method: 'POST', url: '/permission-policies', payload: { permissionId, policyId }, as });
                expect(create.statusCode, `create ${where}`).toBe(reaches(scope, where) ? 201 : 403);
                const removed = await app.request({ method: 'DELETE', url: `/permission-policies/${await adminBinding(where)}`, as });
                expect(removed.statusCode, `delete ${where}`).toBe(expected);
            }
            const list = await app.json<List>({ url: `/permission-policies?filter[id]=${Object.values(ids).join(',')}`, as }, 200);
            const visible = wheres.filter((where) => reaches(scope, where)).map((where) => ids[where]).sort();
            expect(list.data.map((row) => row.id).sort()).toEqual(visible);
            expect(list.meta.total).toBe(visible.length);
        });
    }
});
