import { PERMISSION_NAMES } from '@realmgate/core';
import { describe, expect, it } from 'vitest';
import { ADMIN_CONSOLE_CLIENT } from '../../src/config/consoles.js';
import { loadConfig } from '../../src/config/load.js';
import { bootstrap } from '../../src/provisioning/bootstrap.js';
import { ADMIN, basicHeader, useTestApp } from '../app.js';
import { describeEachDialect } from '../databases.js';

describeEachDialect('bootstrap', (dialect) => {
    const app = useTestApp(dialect);

    it('creates the master realm, the admin with role admin, every built-in permission bound to system.default', async () => {
        const { db } = app.deps;
        const master = await db.selectFrom('auth_realms').selectAll().where('name', '=', 'master').executeTakeFirstOrThrow();
        const admin = await db.selectFrom('auth_users').selectAll().where('name', '=', ADMIN.name).executeTakeFirstOrThrow();
        expect(admin.realm_id).toBe(master.id);
        const permissions = await db.selectFrom('auth_permissions').select(['id', 'name', 'realm_id']).execute();
        expect(permissions.map((p) => p.name).sort()).toEqual([...PERMISSION_NAMES].sort());
        expect(permissions.every((p) => p.realm_id === null)).toBe(true);
        const systemDefault = await db.selectFrom('auth_policies').select('id').where('name', '=', 'system.default').executeTakeFirstOrThrow();
        const bound = await db.selectFrom('auth_permission_policies').select('permission_id').where('policy_id', '=', systemDefault.id).execute();
        expect(bound).toHaveLength(PERMISSION_NAMES.length);
        const scopes = await db.selectFrom('auth_scopes').select('name').where('realm_id', 'is', null).execute();
        expect(scopes.map((s) => s.name).sort()).toEqual(['email', 'global', 'identity', 'offline_access', 'openid', 'profile', 'roles']);
    });

    it('gives a deployment bootstrapped before `profile` and `offline_access` existed both on its next boot, once', async () => {
        const { db } = app.deps;
        const globalScopes = async () => (await db.selectFrom('auth_scopes').select('name').where('realm_id', 'is', null).execute()).map((s) => s.name).sort();
        const before = await globalScopes();
        await db.deleteFrom('auth_scopes').where('realm_id', 'is', null).where('name', 'in', ['profile', 'offline_access']).execute();
        expect(await globalScopes()).not.toContain('profile');
        await bootstrap(app.deps);
        await bootstrap(app.deps);
        expect(await globalScopes()).toEqual(before);
    });

    it('gives admin every permission at any and realm_admin own-realm writes without realm create/update/delete', async () => {
        const { db } = app.deps;
        const grantsOf = (role: string) => db.selectFrom('auth_role_permissions as g')
            .innerJoin('auth_roles as r', 'r.id', 'g.role_id').innerJoin('auth_permissions as p', 'p.id', 'g.permission_id')
            .where('r.name', '=', role).select(['p.name', 'g.realm_scope']).execute();
        const admin = await grantsOf('admin');
        expect(admin).toHaveLength(PERMISSION_NAMES.length);
        expect(admin.every((g) => g.realm_scope === 'any')).toBe(true);
        const realmAdmin = new Map((await grantsOf('realm_admin')).map((g) => [g.name, g.realm_scope]));
        expect(realmAdmin.has('realm_create')).toBe(false);
        expect(realmAdmin.has('realm_delete')).toBe(false);
        expect(realmAdmin.get('role_permission_create')).toBe('own');
        expect(realmAdmin.get('role_read')).toBe('ownOrNull');
    });

    it('is idempotent at every boot and leaves a customized reach alone', async () => {
        const { db } = app.deps;
        const count = async (table: 'auth_permissions' | 'auth_role_permissions' | 'auth_policies' | 'auth_users' | 'auth_permission_policies') =>
            Number((await db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
        const before = await Promise.all([count('auth_permissions'), count('auth_role_permissions'), count('auth_policies'), count('auth_users'), count('auth_permission_policies')]);
        const grant = await db.selectFrom('auth_role_permissions as g').innerJoin('auth_roles as r', 'r.id', 'g.role_id')
            .where('r.name', '=', 'realm_admin').select('g.id').executeTakeFirstOrThrow();
        await db.updateTable('auth_role_permissions').set({ realm_scope: 'none' }).where('id', '=', grant.id).execute();
        await bootstrap(app.deps);
        const after = await Promise.all([count('auth_permissions'), count('auth_role_permissions'), count('auth_policies'), count('auth_users'), count('auth_permission_policies')]);
        expect(after).toEqual(before);
        const kept = await db.selectFrom('auth_role_permissions').select('realm_scope').where('id', '=', grant.id).executeTakeFirstOrThrow();
        expect(kept.realm_scope).toBe('none');
    });

    it('authenticates the admin with Basic by name and by id; refuses a wrong password and a missing credential', async () => {
        const me = await app.json<{ data: { name: string }[] }>({ method: 'GET', url: '/realms' }, 200);
        expect(me.data.map((realm) => realm.name)).toContain('master');
        const admin = await app.deps.db.selectFrom('auth_users').select('id').where('name', '=', ADMIN.name).executeTakeFirstOrThrow();
        expect((await app.request({ method: 'GET', url: '/realms', as: basicHeader(admin.id, ADMIN.password) })).statusCode).toBe(200);
        const wrong = await app.request({ method: 'GET', url: '/realms', as: basicHeader(ADMIN.name, 'nope') });
        expect(wrong.statusCode).toBe(401);
        expect(wrong.json()).toMatchObject({ code: 'invalid_credentials' });
        const anonymous = await app.request({ method: 'GET', url: '/realms', as: null });
        expect(anonymous.statusCode).toBe(401);
    });

    it('USER_ADMIN_ENABLED=false deactivates the admin on the next start; true does not reactivate it', async () => {
        await bootstrap({ ...app.deps, config: { ...app.deps.config, userAdmin: { ...app.deps.config.userAdmin, enabled: false } } });
        expect((await app.request({ method: 'GET', url: '/realms' })).statusCode).toBe(401);
        await bootstrap(app.deps);
        const admin = await app.deps.db.selectFrom('auth_users').select('active').where('name', '=', ADMIN.name).executeTakeFirstOrThrow();
        expect(Boolean(admin.active)).toBe(false);
        await app.deps.db.updateTable('auth_users').set({ active: dialect === 'postgres' ? true : 1 }).where('name', '=', ADMIN.name).execute();
    });

    describe('the console client of every realm', () => {
        const consoleUris = 'http://localhost:3000/console/admin/ http://localhost:3000/console/account/';
        const consoleClients = (realmId: string) => app.deps.db.selectFrom('auth_clients').selectAll().where('realm_id', '=', realmId).where('name', '=', 'admin-console').execute();
        const discovery = (realm: string) => app.json<{ realmgate_console_client_id?: string; authorization_endpoint: string }>({ method: 'GET', url: `/realms/${realm}/.well-known/openid-configuration`, as: null }, 200);

        it('master\'s is under the fixed id a standalone console names, and its discovery document publishes it', async () => {
            expect((await discovery('master')).realmgate_console_client_id).toBe(ADMIN_CONSOLE_CLIENT.id);
        });

        it('creating a realm creates its admin-console client (public, first-party, code + refresh, the consoles\' URIs, the global scope), published by its discovery document; deleting the realm removes it', async () => {
            const realm = (await app.json<{ data: { id: string } }>({ method: 'POST', url: '/realms', payload: { name: 'console-realm' } }, 201)).data;
            const [client, ...more] = await consoleClients(realm.id);
            expect(more).toEqual([]);
            expect(client).toBeDefined();
            expect(client!.id).not.toBe(ADMIN_CONSOLE_CLIENT.id);
            expect(client!.secret).toBeNull();
            expect(Boolean(client!.first_party)).toBe(true);
            expect(Boolean(client!.active)).toBe(true);
            expect(JSON.parse(client!.grant_types as string)).toEqual(['authorization_code', 'refresh_token']);
            expect(client!.redirect_uri).toBe(consoleUris);
            expect(client!.post_logout_redirect_uri).toBe(consoleUris);
            const scopes = await app.deps.db.selectFrom('auth_client_scopes as b').innerJoin('auth_scopes as s', 's.id', 'b.scope_id')
                .where('b.client_id', '=', client!.id).select('s.name').execute();
            expect(scopes.map((scope) => scope.name)).toEqual(['global']);
            expect((await discovery('console-realm')).realmgate_console_client_id).toBe(client!.id);
            // the realm's own API view lists it like any client of the realm
            const listed = await app.json<{ data: { id: string }[] }>({ method: 'GET', url: `/realms/${realm.id}/clients?filter[name]=admin-console` }, 200);
            expect(listed.data.map((row) => row.id)).toEqual([client!.id]);

            await app.json({ method: 'DELETE', url: `/realms/${realm.id}` }, 200);
            expect(await consoleClients(realm.id)).toEqual([]);
            expect(await app.deps.db.selectFrom('auth_clients').select('id').where('id', '=', client!.id).execute()).toEqual([]);
        });

        // an https deployment must not keep plain-http loopback redirect URIs nobody serves: the
        // standalone console's URL is registered only when it is configured or a console port is
        it('registers CONSOLE_PUBLIC_URL only when it is set or a standalone console has its own port', async () => {
            const masterUris = async () => (await app.deps.db.selectFrom('auth_clients').select('redirect_uri').where('id', '=', ADMIN_CONSOLE_CLIENT.id).executeTakeFirstOrThrow()).redirect_uri;
            const booted = async (env: Record<string, string>) => {
                await bootstrap({ ...app.deps, config: loadConfig(env) });
                return masterUris();
            };
            try {
                expect(await booted({ PUBLIC_URL: 'https://auth.example' })).toBe('https://auth.example/console/admin/ https://auth.example/console/account/');
                expect(await booted({ PUBLIC_URL: 'https://auth.example', CONSOLE_PUBLIC_URL: 'https://console.example' })).toBe(
                    'https://auth.example/console/admin/ https://auth.example/console/account/ https://console.example/console/admin/ https://console.example/console/account/',
                );
                expect(await booted({ PUBLIC_URL: 'https://auth.example', CONSOLE_PORT: '3002' })).toBe(
                    'https://auth.example/console/admin/ https://auth.example/console/account/ http://localhost:3002/console/admin/ http://localhost:3002/console/account/',
                );
            } finally {
                await bootstrap(app.deps);
            }
            expect(await masterUris()).toBe(consoleUris);
        });

        it('boot gives a realm created before realms got theirs its console client, once, and brings changed redirect URIs up to date', async () => {
            const realm = (await app.json<{ data: { id: string } }>({ method: 'POST', url: '/realms', payload: { name: 'older-realm' } }, 201)).data;
            await app.deps.db.deleteFrom('auth_client_scopes').where('client_id', 'in', (await consoleClients(realm.id)).map((client) => client.id)).execute();
            await app.deps.db.deleteFrom('auth_clients').where('realm_id', '=', realm.id).where('name', '=', 'admin-console').execute();
            expect(await consoleClients(realm.id)).toEqual([]);
            await bootstrap(app.deps);
            await bootstrap(app.deps);
            const [client, ...more] = await consoleClients(realm.id);
            expect(more).toEqual([]);
            expect(client!.redirect_uri).toBe(consoleUris);
            expect((await app.deps.db.selectFrom('auth_client_scopes').select('id').where('client_id', '=', client!.id).execute())).toHaveLength(1);
            await app.deps.db.updateTable('auth_clients').set({ redirect_uri: 'https://old.example/console/admin/' }).where('id', '=', client!.id).execute();
            await bootstrap(app.deps);
            const [updated] = await consoleClients(realm.id);
            expect(updated!.id).toBe(client!.id);
            expect(updated!.redirect_uri).toBe(consoleUris);
        });
    });
});
