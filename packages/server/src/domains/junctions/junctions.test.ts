import { RealmScope } from '@realmgate/core';
import { beforeAll, expect, it } from 'vitest';
import { useTestApp } from '../../../test/app.js';
import { describeEachDialect } from '../../../test/databases.js';
import {
    actorWith, countRows, createPermission, createRealm, globalId, insertClient, insertRole, insertScope, insertUser, uniqueName,
} from '../../../test/grant-fixtures.js';

type One = { data: Record<string, unknown> };
type ErrorBody = { code: string; issues?: { path: (string | number)[] }[] };

describeEachDialect('junctions', (dialect) => {
    const app = useTestApp(dialect);
    let realmA: string;
    let realmB: string;

    beforeAll(async () => {
        realmA = await createRealm(app);
        realmB = await createRealm(app);
    });

    const post = (url: string, payload: Record<string, unknown>) => app.request({ method: 'POST', url, payload });
    const policy = async (realmId: string | null, extra: Record<string, unknown> = {}) => (await app.json<{ data: { id: string } }>({
        method: 'POST', url: '/policies', payload: { type: 'identity', name: uniqueName('jp'), realmId, ...extra },
    }, 201)).data.id;
    const expectIssue = async (url: string, payload: Record<string, unknown>, member: string) => {
        const response = await post(url, payload);
        expect(response.statusCode, `${url} ${JSON.stringify(payload)}: ${response.body}`).toBe(400);
        expect((response.json() as ErrorBody).issues?.[0]?.path).toEqual([member]);
    };

    it('assigns only global roles or roles of the holder\'s realm (400 otherwise), once (409)', async () => {
        const user = await insertUser(app, realmA);
        const client = await insertClient(app, realmA);
        const foreign = await insertRole(app, realmB);
        await expectIssue('/user-roles', { userId: user.id, roleId: foreign }, 'roleId');
        await expectIssue('/client-roles', { clientId: client, roleId: foreign }, 'roleId');
        for (const roleId of [await insertRole(app, null), await insertRole(app, realmA)]) {
            expect((await post('/user-roles', { userId: user.id, roleId })).statusCode).toBe(201);
            expect((await post('/client-roles', { clientId: client, roleId })).statusCode).toBe(201);
        }
        const roleId = await insertRole(app, realmA);
        expect((await post('/user-roles', { userId: user.id, roleId })).statusCode).toBe(201);
        expect((await post('/user-roles', { userId: user.id, roleId })).statusCode).toBe(409);
        await expectIssue('/user-roles', { userId: '00000000-0000-4000-8000-000000000000', roleId }, 'userId');
    });

    it('binds only global scopes or scopes of the client\'s realm', async () => {
        const client = await insertClient(app, realmA);
        await expectIssue('/client-scopes', { clientId: client, scopeId: await insertScope(app, realmB) }, 'scopeId');
        const created = await app.json<One>({ method: 'POST', url: '/client-scopes', payload: { clientId: client, scopeId: await globalId(app, 'auth_scopes', 'email'), default: true } }, 201);
        expect(created.data).toMatchObject({ clientId: client, default: true });
        const own = await app.json<One>({ method: 'POST', url: '/client-scopes', payload: { clientId: client, scopeId: await insertScope(app, realmA) } }, 201);
        expect(own.data.default).toBe(false);
        const updated = await app.json<One>({ method: 'POST', url: `/client-scopes/${own.data.id}`, payload: { default: true } }, 200);
        expect(updated.data.default).toBe(true);
    });

    it('checks a grant\'s junction policy: a root, global or of the holder\'s realm, without a binding node', async () => {
        const user = await insertUser(app, realmA);
        const permissionId = await globalId(app, 'auth_permissions', 'role_read');
        const root = await policy(null, { type: 'composite' });
        await expectIssue('/user-permissions', { userId: user.id, permissionId, policyId: await policy(null, { parentId: root }) }, 'policyId');
        await expectIssue('/user-permissions', { userId: user.id, permissionId, policyId: await policy(realmB) }, 'policyId');
        await expectIssue('/user-permissions', { userId: user.id, permissionId, policyId: await globalId(app, 'auth_policies', 'system.default') }, 'policyId');
        // a global role is held in every realm: its grants take global policies only
        await expectIssue('/role-permissions', { roleId: await insertRole(app, null), permissionId, policyId: await policy(realmA) }, 'policyId');
        const grant = await app.json<One>({ method: 'POST', url: '/user-permissions', payload: { userId: user.id, permissionId, policyId: await policy(realmA) } }, 201);
        expect(grant.data).toMatchObject({ userId: user.id, permissionId, realmScope: 'own' });
        const widened = await app.json<One>({ method: 'POST', url: `/user-permissions/${grant.data.id}`, payload: { realmScope: 'ownOrNull', policyId: root } }, 200);
        expect(widened.data).toMatchObject({ realmScope: 'ownOrNull', policyId: root });
        await app.json({ method: 'DELETE', url: `/user-permissions/${grant.data.id}` }, 200);
        expect((await app.request({ url: `/user-permissions/${grant.data.id}` })).statusCode).toBe(404);
    });

    it('decides with the junction policy a grant names (it reaches the catalog)', async () => {
        const visible = await insertRole(app, realmA, uniqueName('vis'));
        const hidden = await insertRole(app, realmA, uniqueName('hid'));
        const actor = await actorWith(app, realmA, [], RealmScope.OWN);
        const onlyVisible = await policy(realmA, { type: 'attributes', query: { name: { $startsWith: 'vis-' } } });
        await app.json({
            method: 'POST', url: '/user-permissions',
            payload: { userId: actor.id, permissionId: await globalId(app, 'auth_permissions', 'role_read'), realmScope: 'own', policyId: onlyVisible },
        }, 201);
        expect((await app.request({ url: `/roles/${visible}`, as: actor.auth })).statusCode).toBe(200);
        expect((await app.request({ url: `/roles/${hidden}`, as: actor.auth })).statusCode).toBe(403);
    });

    it('grants a permission through a role and a direct grant at the reach asked for', async () => {
        const roleId = await insertRole(app, realmA);
        const permissionId = await createPermission(app, realmA);
        const created = await app.json<One>({ method: 'POST', url: '/role-permissions', payload: { roleId, permissionId, realmScope: 'none' } }, 201);
        expect(created.data).toMatchObject({ roleId, permissionId, realmScope: 'none', policyId: null });
        expect((await post('/role-permissions', { roleId, permissionId })).statusCode).toBe(409);
        expect((await post('/role-permissions', { roleId, permissionId: 'not-a-uuid' })).statusCode).toBe(400);
        const before = await countRows(app, 'auth_role_permissions');
        expect((await post(`/role-permissions/${created.data.id}`, { realmScope: 'everywhere' })).statusCode).toBe(400);
        expect(await countRows(app, 'auth_role_permissions')).toBe(before);
    });
});
