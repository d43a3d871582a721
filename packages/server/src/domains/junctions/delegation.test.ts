import { RealmScope } from '@realmgate/core';
import { beforeAll, expect, it } from 'vitest';
import { useTestApp } from '../../../test/app.js';
import { describeEachDialect } from '../../../test/databases.js';
import {
    actorWith, assignRole, countRows, createPermission, createRealm, globalId, grantRole, insertRole, insertUser, type FixtureActor,
} from '../../../test/grant-fixtures.js';

/*
 * Delegation (spec Authentication rules 8–11): a junction row written by an actor
 * never exceeds the actor's own reach, and realm_admin cannot change the bindings of global roles.
 */
describeEachDialect('delegation', (dialect) => {
    const app = useTestApp(dialect);
    let realmB: string;
    let realmAdmin: FixtureActor;
    const permission = (name: string) => globalId(app, 'auth_permissions', name);

    beforeAll(async () => {
        realmB = await createRealm(app);
        // a user of realm B holding the built-in global role realm_admin, assigned as the admin
        realmAdmin = await insertUser(app, realmB);
        await app.json({ method: 'POST', url: '/user-roles', payload: { userId: realmAdmin.id, roleId: await globalId(app, 'auth_roles', 'realm_admin') } }, 201);
    });

    const asRealmAdmin = (url: string, payload: Record<string, unknown>) => app.request({ method: 'POST', url, payload, as: realmAdmin.auth });

    it('lets realm_admin bind a permission to its own realm\'s role at own, but not to a global role (rule 11)', async () => {
        const ownRole = await insertRole(app, realmB);
        const created = await asRealmAdmin('/role-permissions', { roleId: ownRole, permissionId: await permission('user_read'), realmScope: 'own' });
        expect(created.statusCode, created.body).toBe(201);
        const before = await countRows(app, 'auth_role_permissions');
        const globalRole = await insertRole(app, null);
        expect((await asRealmAdmin('/role-permissions', { roleId: globalRole, permissionId: await permission('user_read') })).statusCode).toBe(403);
        const builtIn = await globalId(app, 'auth_roles', 'realm_admin');
        expect((await asRealmAdmin('/role-permissions', { roleId: builtIn, permissionId: await permission('user_read') })).statusCode).toBe(403);
        expect((await app.request({ method: 'DELETE', url: `/role-permissions/${(created.json() as { data: { id: string } }).data.id}`, as: realmAdmin.auth })).statusCode).toBe(200);
        expect(await countRows(app, 'auth_role_permissions')).toBe(before - 1);
    });

    it('does not name another realm\'s permission in its refusal, and names a readable one (spec "Realm reach values")', async () => {
        const ownRole = await insertRole(app, realmB);
        const elsewhere = await createRealm(app);
        const hidden = await createPermission(app, elsewhere, 'hidden-perm-of-another-realm');
        const refused = await asRealmAdmin('/role-permissions', { roleId: ownRole, permissionId: hidden });
        expect(refused.statusCode).toBe(403);
        expect(refused.body).not.toContain('hidden-perm-of-another-realm');
        // a global permission it can read keeps its name in the message
        const wide = await asRealmAdmin('/role-permissions', { roleId: ownRole, permissionId: await permission('user_read'), realmScope: 'any' });
        expect(wide.statusCode).toBe(403);
        expect(wide.body).toContain('user_read');
    });

    it('refuses a grant wider than the actor\'s own reach (403)', async () => {
        const ownRole = await insertRole(app, realmB);
        const userRead = await permission('user_read');
        // realm_admin holds user_read at ownOrNull: any reaches a realm it cannot own
        expect((await asRealmAdmin('/role-permissions', { roleId: ownRole, permissionId: userRead, realmScope: 'any' })).statusCode).toBe(403);
        expect((await asRealmAdmin('/role-permissions', { roleId: ownRole, permissionId: userRead, realmScope: 'ownOrNull' })).statusCode).toBe(201);
        // it holds user_update at own only, and realm_create not at all
        const other = await insertRole(app, realmB);
        expect((await asRealmAdmin('/role-permissions', { roleId: other, permissionId: await permission('user_update'), realmScope: 'ownOrNull' })).statusCode).toBe(403);
        expect((await asRealmAdmin('/role-permissions', { roleId: other, permissionId: await permission('realm_create') })).statusCode).toBe(403);
        expect((await asRealmAdmin('/role-permissions', { roleId: other, permissionId: await permission('user_update'), realmScope: 'none' })).statusCode).toBe(201);
        // widening an existing grant is a grant too
        const grant = await asRealmAdmin('/role-permissions', { roleId: other, permissionId: await permission('user_delete') });
        expect(grant.statusCode).toBe(201);
        const id = (grant.json() as { data: { id: string } }).data.id;
        expect((await asRealmAdmin(`/role-permissions/${id}`, { realmScope: 'any' })).statusCode).toBe(403);
        const stored = await app.deps.db.selectFrom('auth_role_permissions').select('realm_scope').where('id', '=', id).executeTakeFirstOrThrow();
        expect(stored.realm_scope).toBe('own');
    });

    it('grants what the actor controls: its realm\'s own permissions and the self-manage ones', async () => {
        const ownRole = await insertRole(app, realmB);
        // a permission created in realm B is held by nobody, but realm_admin may unbind its policies
        const realmPermission = await createPermission(app, realmB);
        expect((await asRealmAdmin('/role-permissions', { roleId: ownRole, permissionId: realmPermission, realmScope: 'any' })).statusCode).toBe(201);
        expect((await asRealmAdmin('/role-permissions', { roleId: ownRole, permissionId: await createPermission(app, null) })).statusCode).toBe(403);
        // user_self_manage carries an attribute-names denylist at the definition layer, which binds the grantee too
        expect((await asRealmAdmin('/role-permissions', { roleId: ownRole, permissionId: await permission('user_self_manage') })).statusCode).toBe(201);
    });

    it('refuses user_update to an actor holding only user_read', async () => {
        const actor = await actorWith(app, realmB, ['user_read', 'user_permission_create'], RealmScope.OWN);
        const target = await insertUser(app, realmB);
        const post = (payload: Record<string, unknown>) => app.request({ method: 'POST', url: '/user-permissions', payload, as: actor.auth });
        expect((await post({ userId: target.id, permissionId: await permission('user_update') })).statusCode).toBe(403);
        expect((await post({ userId: target.id, permissionId: await permission('user_read'), realmScope: 'ownOrNull' })).statusCode).toBe(403);
        expect((await post({ userId: target.id, permissionId: await permission('user_read') })).statusCode).toBe(201);
    });

    it('assigns a role only when the actor holds every grant it carries, for the holder', async () => {
        const holder = await insertUser(app, realmB);
        const assign = (roleId: string) => asRealmAdmin('/user-roles', { userId: holder.id, roleId });
        const fits = await insertRole(app, realmB);
        await grantRole(app, fits, await permission('user_update'), RealmScope.OWN);
        await grantRole(app, fits, await permission('role_read'), RealmScope.OWN_OR_NULL);
        expect((await assign(fits)).statusCode).toBe(201);

        const tooWide = await insertRole(app, realmB);
        await grantRole(app, tooWide, await permission('user_read'), RealmScope.ANY);
        expect((await assign(tooWide)).statusCode).toBe(403);
        const foreignPermission = await insertRole(app, realmB);
        await grantRole(app, foreignPermission, await permission('realm_update'), RealmScope.OWN);
        expect((await assign(foreignPermission)).statusCode).toBe(403);
        // the global admin role carries every permission at any
        expect((await assign(await globalId(app, 'auth_roles', 'admin'))).statusCode).toBe(403);
        const rows = await app.deps.db.selectFrom('auth_user_roles').select('role_id').where('user_id', '=', holder.id).execute();
        expect(rows.map((row) => row.role_id)).toEqual([fits]);
    });

    it('counts what the actor holds through its own roles', async () => {
        const actor = await actorWith(app, realmB, ['user_role_create'], RealmScope.OWN);
        const holder = await insertUser(app, realmB);
        const role = await insertRole(app, realmB);
        await grantRole(app, role, await permission('scope_read'), RealmScope.OWN);
        const assign = () => app.request({ method: 'POST', url: '/user-roles', payload: { userId: holder.id, roleId: role }, as: actor.auth });
        expect((await assign()).statusCode).toBe(403);
        await assignRole(app, actor.id, role);
        expect((await assign()).statusCode).toBe(201);
    });
});
