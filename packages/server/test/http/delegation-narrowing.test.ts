import { randomUUID } from 'node:crypto';
import { RealmScope } from '@realmgate/core';
import { beforeAll, expect, it } from 'vitest';
import { toDbBool, toDbDate } from '../../src/db/values.js';
import { useTestApp } from '../app.js';
import { describeEachDialect } from '../databases.js';
import {
    assignRole, createPermission, createRealm, FIXTURE_PASSWORD, grantRole, grantUser, insertRole, insertUser, uniqueName, type FixtureActor,
} from '../grant-fixtures.js';

/**
 * Spec Authentication rule 8 for delegation: assigning a role or binding a permission is refused
 * when the actor holds the needed grants only through another client's role — and allowed through
 * a token of the owning client, and with Basic (never narrowed).
 */
describeEachDialect('delegation through a client-issued bearer (spec Authentication rule 8)', (dialect) => {
    const app = useTestApp(dialect);
    let realm: string;
    let actor: FixtureActor;
    let owner: { id: string };
    let other: { id: string };
    let permission: string;
    let target: string;
    let grantee: FixtureActor;
    beforeAll(async () => {
        realm = await createRealm(app);
        const client = async (secret: string) =>
            (await app.json<{ data: { id: string } }>({ method: 'POST', url: '/clients', payload: { name: uniqueName('client'), secret, realmId: realm } }, 201)).data;
        owner = await client('owner-secret');
        other = await client('other-secret');
        actor = await insertUser(app, realm);
        grantee = await insertUser(app, realm);
        // the write permissions come directly (not narrowed away by any client)
        for (const name of ['user_role_create', 'role_permission_create']) await grantUser(app, actor.id, name, RealmScope.OWN);
        // the delegated permission comes only through a role the owner client owns
        permission = await createPermission(app, realm);
        const ownedRole = randomUUID();
        const now = toDbDate(dialect, new Date());
        await app.deps.db.insertInto('auth_roles').values({
            id: ownedRole, name: uniqueName('owned'), display_name: null, description: null, built_in: toDbBool(dialect, false),
            client_id: owner.id, realm_id: realm, created_at: now, updated_at: now,
        }).execute();
        await grantRole(app, ownedRole, permission, RealmScope.OWN);
        await assignRole(app, actor.id, ownedRole);
        target = await insertRole(app, realm);
        await grantRole(app, target, permission, RealmScope.OWN);
        app.deps.catalog.invalidate();
    });

    const bearerVia = async (client: { id: string }, secret: string) => {
        const response = await app.request({
            method: 'POST', url: '/token', as: app.basic(client.id, secret),
            payload: { grant_type: 'password', username: actor.id, password: FIXTURE_PASSWORD },
        });
        expect(response.statusCode, response.body).toBe(200);
        return `Bearer ${(response.json() as { access_token: string }).access_token}`;
    };

    it('assigning a role: refused through another client, allowed through the owner client and with Basic', async () => {
        const assign = (as: string) => app.request({ method: 'POST', url: '/user-roles', payload: { userId: grantee.id, roleId: target }, as });
        const refused = await assign(await bearerVia(other, 'other-secret'));
        expect(refused.statusCode, refused.body).toBe(403);
        expect(await app.deps.db.selectFrom('auth_user_roles').select('id').where('user_id', '=', grantee.id).execute()).toHaveLength(0);

        for (const as of [await bearerVia(owner, 'owner-secret'), actor.auth]) {
            const allowed = await assign(as);
            expect(allowed.statusCode, allowed.body).toBe(201);
            const id = (allowed.json() as { data: { id: string } }).data.id;
            expect((await app.request({ method: 'DELETE', url: `/user-roles/${id}` })).statusCode).toBeLessThan(300);
        }
    });

    it('binding a permission: refused through another client, allowed through the owner client and with Basic', async () => {
        const role = await insertRole(app, realm);
        app.deps.catalog.invalidate();
        const bind = (as: string) => app.request({
            method: 'POST', url: '/role-permissions', payload: { roleId: role, permissionId: permission, realmScope: 'own' }, as,
        });
        const refused = await bind(await bearerVia(other, 'other-secret'));
        expect(refused.statusCode, refused.body).toBe(403);
        expect(await app.deps.db.selectFrom('auth_role_permissions').select('id').where('role_id', '=', role).execute()).toHaveLength(0);

        for (const as of [await bearerVia(owner, 'owner-secret'), actor.auth]) {
            const allowed = await bind(as);
            expect(allowed.statusCode, allowed.body).toBe(201);
            const id = (allowed.json() as { data: { id: string } }).data.id;
            expect((await app.request({ method: 'DELETE', url: `/role-permissions/${id}` })).statusCode).toBeLessThan(300);
        }
    });
});
