import { RealmScope } from '@realmgate/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { createActor, createRealm } from '../../../test/actors.js';
import { useTestApp } from '../../../test/app.js';
import { describeEachDialect } from '../../../test/databases.js';
import { createUser, grantDirect } from '../../../test/identities.js';

type User = Record<string, unknown> & { id: string; name: string };
type List = { data: User[]; meta: { total: number } };

/** Users are never global: ownOrNull reaches what own reaches, any reaches every realm (spec reach table). */
const REACHES = [
    { scope: RealmScope.OWN, foreign: false },
    { scope: RealmScope.OWN_OR_NULL, foreign: false },
    { scope: RealmScope.ANY, foreign: true },
];

describeEachDialect('users: realm reach and self-management', (dialect) => {
    const app = useTestApp(dialect);
    let realmA: string;
    let realmB: string;
    let userA: { id: string; header: string };
    let userB: { id: string; header: string };
    beforeAll(async () => {
        realmA = await createRealm(app, 'reach-a');
        realmB = await createRealm(app, 'reach-b');
        userA = await createUser(app, realmA, 'member-a', { email: 'a@example.com' });
        userB = await createUser(app, realmB, 'member-b', { email: 'b@example.com' });
    });

    for (const { scope, foreign } of REACHES) {
        describe(`user_read and user_update at ${scope}`, () => {
            let header: string;
            beforeAll(async () => {
                ({ header } = await createActor(app, realmA, [
                    { permission: 'user_read', scope },
                    { permission: 'user_update', scope },
                ]));
            });

            it('reads its realm\'s users and answers realm B by the reach table, single and list', async () => {
                await app.json({ method: 'GET', url: `/users/${userA.id}`, as: header }, 200);
                expect((await app.request({ method: 'GET', url: `/users/${userB.id}`, as: header })).statusCode).toBe(foreign ? 200 : 403);
                const list = await app.json<List>({ method: 'GET', url: '/users?page[limit]=100', as: header }, 200);
                const ids = list.data.map((user) => user.id);
                expect(ids).toContain(userA.id);
                expect(ids.includes(userB.id)).toBe(foreign);
                expect(list.meta.total).toBe(list.data.length);
                if (!foreign) expect(list.data.every((user) => user.realmId === realmA)).toBe(true);
                // the master realm's admin is outside own/ownOrNull too
                const admin = await app.deps.db.selectFrom('auth_users').select('id').where('name', '=', 'admin').executeTakeFirstOrThrow();
                expect(ids.includes(admin.id)).toBe(foreign);
            });

            it('updates users by the reach table and sees email only where it may update', async () => {
                await app.json({ method: 'POST', url: `/users/${userA.id}`, payload: { displayName: `A ${scope}` }, as: header }, 200);
                const other = await app.request({ method: 'POST', url: `/users/${userB.id}`, payload: { displayName: `B ${scope}` }, as: header });
                expect(other.statusCode).toBe(foreign ? 200 : 403);
                const withEmail = await app.json<{ data: User }>({ method: 'GET', url: `/users/${userA.id}?fields=%2Bemail`, as: header }, 200);
                expect(withEmail.data.email).toBe('a@example.com');
            });
        });
    }

    it('lists every realm but refuses email of users a reader may not update (403 single, redacted in lists)', async () => {
        const reader = await createActor(app, realmA, [{ permission: 'user_read', scope: RealmScope.OWN }]);
        expect((await app.json<{ data: User }>({ method: 'GET', url: `/users/${userA.id}`, as: reader.header }, 200)).data).not.toHaveProperty('email');
        const single = await app.request({ method: 'GET', url: `/users/${userA.id}?fields=%2Bemail`, as: reader.header });
        expect(single.statusCode).toBe(403);
        const list = await app.json<List>({ method: 'GET', url: '/users?fields=%2Bemail&page[limit]=100', as: reader.header }, 200);
        const row = list.data.find((user) => user.id === userA.id)!;
        expect(row).toBeDefined();
        expect(row).not.toHaveProperty('email');
        // itself: projected
        const own = list.data.find((user) => user.id === reader.userId)!;
        expect(own).toHaveProperty('email');
    });

    it('refuses reads and updates without any grant', async () => {
        const nobody = await createUser(app, realmA, 'nobody');
        expect((await app.request({ method: 'GET', url: `/users/${userA.id}`, as: nobody.header })).statusCode).toBe(403);
        expect((await app.json<List>({ method: 'GET', url: '/users', as: nobody.header }, 200)).meta.total).toBe(0);
        // @me needs no grant
        expect((await app.json<{ data: User }>({ method: 'GET', url: '/users/@me', as: nobody.header }, 200)).data.id).toBe(nobody.id);
    });

    describe('self-management', () => {
        it('without a user_self_manage grant a user cannot update itself', async () => {
            const user = await createUser(app, realmA, 'self-none');
            const response = await app.request({ method: 'POST', url: `/users/${user.id}`, payload: { displayName: 'Me' }, as: user.header });
            expect(response.statusCode).toBe(403);
            expect(response.json().code).toBe('permission_denied');
        });

        it('with the grant it changes displayName and password, never denylisted members, nor other users', async () => {
            const user = await createUser(app, realmA, 'self-some', { email: 'self@example.com' });
            await grantDirect(app, { userId: user.id }, 'user_self_manage', RealmScope.OWN);
            const renamed = await app.json<{ data: User }>({ method: 'POST', url: `/users/${user.id}`, payload: { displayName: 'Myself' }, as: user.header }, 200);
            expect(renamed.data.displayName).toBe('Myself');
            await app.json({ method: 'POST', url: '/users/self-some', payload: { password: 'my-new-password', currentPassword: user.password }, headers: { authorization: user.header } }, 200);
            const fresh = app.basic(user.id, 'my-new-password');
            expect((await app.request({ method: 'GET', url: '/users/@me', as: user.header })).statusCode).toBe(401);
            for (const payload of [{ emailVerified: true }, { active: false }, { displayName: 'x', nameLocked: false }, { status: 'vip' }, { pathId: null }]) {
                const response = await app.request({ method: 'POST', url: `/users/${user.id}`, payload, as: fresh });
                expect(response.statusCode, JSON.stringify(payload)).toBe(403);
            }
            const row = await app.deps.db.selectFrom('auth_users').selectAll().where('id', '=', user.id).executeTakeFirstOrThrow();
            expect(row.display_name).toBe('Myself');
            expect(Boolean(row.active)).toBe(true);
            expect(Boolean(row.email_verified)).toBe(false);
            expect((await app.request({ method: 'POST', url: `/users/${userA.id}`, payload: { displayName: 'Not me' }, as: fresh })).statusCode).toBe(403);
        });
    });
});
