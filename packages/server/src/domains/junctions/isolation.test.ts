import type { RealmScope } from '@realmgate/core';
import { beforeAll, expect, it } from 'vitest';
import { useTestApp, type TestApp } from '../../../test/app.js';
import { describeEachDialect } from '../../../test/databases.js';
import {
    actorWith, createRealm, globalId, insertClient, insertRole, insertUser, reaches, REALM_SCOPES, type FixtureActor, type Where,
} from '../../../test/grant-fixtures.js';

type List = { data: { id: string }[]; meta: { total: number } };

interface Case {
    collection: string;
    entity: string;
    /** realms a holder can be in (only roles can be global) */
    wheres: Where[];
    /** a fresh holder in that realm and the body binding it */
    body(app: TestApp, realmId: string | null): Promise<Record<string, unknown>>;
}

/*
 * Realm isolation for every junction route: a realm-A actor holding the junction's
 * read/create/delete permissions at own, ownOrNull and any, against rows whose holder is in realm
 * A, realm B or global. Delegation is kept out of the way: the actor holds the granted permission
 * (scope_read) at any, and assigned roles carry nothing.
 */
describeEachDialect('junction realm isolation', (dialect) => {
    const app = useTestApp(dialect);
    const realm: Record<Where, string | null> = { A: null, B: null, global: null };
    const actors = new Map<RealmScope, FixtureActor>();
    const permission = () => globalId(app, 'auth_permissions', 'scope_read');
    const holder = {
        role: (realmId: string | null) => insertRole(app, realmId),
        user: async (realmId: string | null) => (await insertUser(app, realmId!)).id,
        client: (realmId: string | null) => insertClient(app, realmId!),
    };
    const CASES: Case[] = [
        { collection: 'role-permissions', entity: 'role_permission', wheres: ['A', 'B', 'global'], body: async (_app, r) => ({ roleId: await holder.role(r), permissionId: await permission() }) },
        { collection: 'user-permissions', entity: 'user_permission', wheres: ['A', 'B'], body: async (_app, r) => ({ userId: await holder.user(r), permissionId: await permission() }) },
        { collection: 'client-permissions', entity: 'client_permission', wheres: ['A', 'B'], body: async (_app, r) => ({ clientId: await holder.client(r), permissionId: await permission() }) },
        { collection: 'user-roles', entity: 'user_role', wheres: ['A', 'B'], body: async (_app, r) => ({ userId: await holder.user(r), roleId: await insertRole(app, null) }) },
        { collection: 'client-roles', entity: 'client_role', wheres: ['A', 'B'], body: async (_app, r) => ({ clientId: await holder.client(r), roleId: await insertRole(app, null) }) },
        { collection: 'client-scopes', entity: 'client_scope', wheres: ['A', 'B'], body: async (_app, r) => ({ clientId: await holder.client(r), scopeId: await globalId(app, 'auth_scopes', 'email') }) },
    ];

    beforeAll(async () => {
        realm.A = await createRealm(app);
        realm.B = await createRealm(app);
        const names = CASES.flatMap((c) => [`${c.entity}_read`, `${c.entity}_create`, `${c.entity}_update`, `${c.entity}_delete`]);
        for (const scope of REALM_SCOPES) {
            const actor = await actorWith(app, realm.A, names, scope);
            actors.set(scope, actor);
            await app.json({ method: 'POST', url: '/user-permissions', payload: { userId: actor.id, permissionId: await permission(), realmScope: 'any' } }, 201);
        }
    });

    const adminRow = async (c: Case, where: Where) => (await app.json<{ data: { id: string } }>({
        method: 'POST', url: `/${c.collection}`, payload: await c.body(app, realm[where]),
    }, 201)).data.id;

    for (const scope of REALM_SCOPES) {
        it(`junction reads, lists, writes and deletes follow the reach table at ${scope}`, async () => {
            const as = actors.get(scope)!.auth;
            for (const c of CASES) {
                const ids = {} as Record<Where, string>;
                for (const where of c.wheres) ids[where] = await adminRow(c, where);
                for (const where of c.wheres) {
                    const label = `${c.collection} ${where}`;
                    const expected = reaches(scope, where) ? 200 : 403;
                    expect((await app.request({ url: `/${c.collection}/${ids[where]}`, as })).statusCode, `read ${label}`).toBe(expected);
                    const create = await app.request({ method: 'POST', url: `/${c.collection}`, payload: await c.body(app, realm[where]), as });
                    expect(create.statusCode, `create ${label}: ${create.body}`).toBe(reaches(scope, where) ? 201 : 403);
                    if (c.collection === 'client-scopes' || c.collection.endsWith('-permissions')) {
                        const payload = c.collection === 'client-scopes' ? { default: true } : { realmScope: 'none' };
                        const update = await app.request({ method: 'POST', url: `/${c.collection}/${ids[where]}`, payload, as });
                        expect(update.statusCode, `update ${label}`).toBe(expected);
                    }
                    const removed = await app.request({ method: 'DELETE', url: `/${c.collection}/${await adminRow(c, where)}`, as });
                    expect(removed.statusCode, `delete ${label}`).toBe(expected);
                }
                const list = await app.json<List>({ url: `/${c.collection}?filter[id]=${Object.values(ids).join(',')}`, as }, 200);
                const visible = c.wheres.filter((where) => reaches(scope, where)).map((where) => ids[where]).sort();
                expect(list.data.map((row) => row.id).sort(), `list ${c.collection}`).toEqual(visible);
                expect(list.meta.total, `total ${c.collection}`).toBe(visible.length);
            }
        });
    }
});
