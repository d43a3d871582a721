import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { useTestApp } from '../../app.js';
import { authorizeParams, browser, browserWorld, locationParams, type BrowserWorld } from '../../browser.js';
import { describeEachDialect } from '../../databases.js';
import { LDAP_ADMIN, LDAP_BASE, startLdapServer, type LdapServer } from '../../ldap-server.js';

/*
 * LDAP identity providers against a real OpenLDAP slapd (encrypted bind password, RFC 4515 filters, first login): the sign-in
 * form, the password grant and Basic all reach the directory through one decision
 * (authn/password-login.ts); the filter templates take the login name as a literal (spec
 * Authentication 19); a group maps to a role; the bind password is sealed under the realm key.
 */
describeEachDialect('identity providers: LDAP', (dialect) => {
    const app = useTestApp(dialect);
    let ldap: LdapServer;
    let world: BrowserWorld;
    let provider: { id: string; name: string };
    let roleId: string;

    beforeAll(async () => {
        ldap = await startLdapServer();
        world = await browserWorld(app);
        roleId = (await app.json<{ data: { id: string } }>({ method: 'POST', url: '/roles', payload: { name: 'engineer', realmId: world.realmId } }, 201)).data.id;
        provider = (await app.json<{ data: { id: string; name: string } }>({
            method: 'POST', url: '/identity-providers', payload: {
                name: 'corp-directory', displayName: 'Corporate directory', protocol: 'ldap', realmId: world.realmId, url: ldap.url,
                bindDn: LDAP_ADMIN.dn, bindPassword: LDAP_ADMIN.password, baseDn: `ou=people,${LDAP_BASE}`,
                userFilter: '(&(objectClass=inetOrgPerson)(uid={{username}}))',
                groupFilter: '(&(objectClass=groupOfNames)(member={{dn}}))', groupBaseDn: `ou=groups,${LDAP_BASE}`,
            },
        }, 201)).data;
        await app.json({ method: 'POST', url: '/identity-provider-role-mappings', payload: { providerId: provider.id, value: 'engineers', roleId } }, 201);
        await app.json({ method: 'POST', url: '/identity-provider-attribute-mappings', payload: { providerId: provider.id, source: 'givenName', target: 'field', targetName: 'firstName' } }, 201);
        await app.json({ method: 'POST', url: '/identity-provider-attribute-mappings', payload: { providerId: provider.id, source: 'cn', target: 'attribute', targetName: 'fullName' } }, 201);
    }, 60_000);
    afterAll(async () => ldap?.stop());

    const passwordGrant = (username: string, password: string) => app.request({
        method: 'POST', url: '/token', as: null, payload: { grant_type: 'password', username, password, realm_id: world.realmId },
    });
    const userNamed = (name: string) => app.deps.db.selectFrom('auth_users').selectAll().where('realm_id', '=', world.realmId).where('name', '=', name).executeTakeFirst();
    /** the roles the provider's mappings handed out: the realm's default roles (API.md §8), which every new user receives, aside */
    const rolesOf = async (userId: string) => (await app.deps.db.selectFrom('auth_user_roles').select('role_id').where('user_id', '=', userId)
        .where('role_id', 'not in', (eb) => eb.selectFrom('auth_realm_default_roles').select('role_id').where('realm_id', '=', world.realmId)).execute()).map((row) => row.role_id);

    it('seals the bind password under the realm key: never plaintext in the column, a default read or an event', async () => {
        const row = await app.deps.db.selectFrom('auth_identity_providers').selectAll().where('id', '=', provider.id).executeTakeFirstOrThrow();
        expect(row.bind_password).toMatch(/^enc:v1:/);
        expect(row.bind_password).not.toContain(LDAP_ADMIN.password);
        const read = await app.json<{ data: Record<string, unknown> }>({ method: 'GET', url: `/identity-providers/${provider.id}` }, 200);
        expect(read.data).not.toHaveProperty('bindPassword');
        const events = await app.deps.db.selectFrom('auth_events').select('data').where('ref_id', '=', provider.id).execute();
        expect(events.length).toBeGreaterThan(0);
        for (const event of events) expect(event.data ?? '').not.toContain(LDAP_ADMIN.password);
        const revealed = await app.json<{ data: Record<string, unknown> }>({ method: 'GET', url: `/identity-providers/${provider.id}?fields=%2BbindPassword` }, 200);
        expect(revealed.data.bindPassword).toBe(LDAP_ADMIN.password);
    });

    it('signs a directory user in through the password grant: created, filed under sources/<provider>, mapped, linked by DN', async () => {
        const first = await passwordGrant('ada', 'ada-password');
        expect(first.statusCode, first.body).toBe(200);
        const ada = await userNamed('ada');
        expect(ada).toMatchObject({ email: 'ada@example.org', first_name: 'Ada', password: null });
        const folder = await app.deps.db.selectFrom('auth_paths').selectAll().where('id', '=', ada!.path_id!).executeTakeFirstOrThrow();
        expect(folder.name).toBe('corp-directory');
        const parent = await app.deps.db.selectFrom('auth_paths').selectAll().where('id', '=', folder.parent_id!).executeTakeFirstOrThrow();
        expect(parent).toMatchObject({ name: 'sources', parent_id: null });
        expect(await rolesOf(ada!.id)).toEqual([roleId]);
        const attribute = await app.deps.db.selectFrom('auth_user_attributes').selectAll().where('user_id', '=', ada!.id).executeTakeFirstOrThrow();
        expect(attribute).toMatchObject({ name: 'fullName', value: JSON.stringify('Ada Lovelace') });
        const link = await app.deps.db.selectFrom('auth_user_identities').selectAll().where('user_id', '=', ada!.id).executeTakeFirstOrThrow();
        expect(link).toMatchObject({ provider_id: provider.id, subject: `uid=ada,ou=people,${LDAP_BASE}` });
        // the second login is the same user (linked by the entry's DN), not a new one
        expect((await passwordGrant('ada', 'ada-password')).statusCode).toBe(200);
        expect(await app.deps.db.selectFrom('auth_user_identities').select('id').where('provider_id', '=', provider.id).where('subject', '=', link.subject).execute()).toHaveLength(1);
    });

    it('maps groups to roles on every login: a user outside the group gets no role, a removed mapping takes it away', async () => {
        expect((await passwordGrant('bob', 'bob-password')).statusCode).toBe(200);
        const bob = await userNamed('bob');
        expect(await rolesOf(bob!.id)).toEqual([]);
        const staffRole = (await app.json<{ data: { id: string } }>({ method: 'POST', url: '/roles', payload: { name: 'staff', realmId: world.realmId } }, 201)).data.id;
        const mapping = (await app.json<{ data: { id: string } }>({ method: 'POST', url: '/identity-provider-role-mappings', payload: { providerId: provider.id, value: 'staff', roleId: staffRole } }, 201)).data;
        expect((await passwordGrant('bob', 'bob-password')).statusCode).toBe(200);
        expect(await rolesOf(bob!.id)).toEqual([staffRole]);
        // the group no longer maps there (the value changes): the role goes on the next login
        await app.json({ method: 'POST', url: `/identity-provider-role-mappings/${mapping.id}`, payload: { value: 'nobody' } }, 200);
        expect((await passwordGrant('bob', 'bob-password')).statusCode).toBe(200);
        expect(await rolesOf(bob!.id)).toEqual([]);
    });

    it('refuses a wrong password, an empty one and filter injections (RFC 4515; spec Authentication 19)', async () => {
        const before = await app.deps.db.selectFrom('auth_users').select('id').where('realm_id', '=', world.realmId).execute();
        for (const [username, password] of [['ada', 'wrong'], ['ada', ''], ['*)(uid=*', 'ada-password'], ['*', 'ada-password'], ['ada)(uid=*', 'ada-password'], ['a*', 'ada-password']] as const) {
            const refused = await passwordGrant(username, password);
            expect(refused.statusCode, `${username}: ${refused.body}`).toBe(400);
            expect(refused.json()).toMatchObject({ error: password === '' ? expect.any(String) : 'invalid_grant' });
        }
        const after = await app.deps.db.selectFrom('auth_users').select('id').where('realm_id', '=', world.realmId).execute();
        expect(after.length).toBe(before.length);
    });

    it('never links a directory login to a local account that registered the entry\'s address without verifying it', async () => {
        // tried before corp-directory (providers are tried by name); links by email
        const linking = (await app.json<{ data: { id: string } }>({
            method: 'POST', url: '/identity-providers', payload: {
                name: 'aaa-linking-directory', protocol: 'ldap', realmId: world.realmId, url: ldap.url, linkVerifiedEmail: true,
                bindDn: LDAP_ADMIN.dn, bindPassword: LDAP_ADMIN.password, baseDn: `ou=people,${LDAP_BASE}`,
                userFilter: '(&(objectClass=inetOrgPerson)(uid={{username}}))',
            },
        }, 201)).data;
        try {
            const attacker = (await app.json<{ data: { id: string } }>({
                method: 'POST', url: '/users', payload: { realmId: world.realmId, name: 'pre-hijacker', email: 'BOB@example.org', password: 'attacker-password-1' },
            }, 201)).data.id;
            const refused = await passwordGrant('bob', 'bob-password');
            expect(refused.statusCode, refused.body).toBe(400);
            expect(refused.json()).toMatchObject({ error: 'invalid_grant' });
            expect(await app.deps.db.selectFrom('auth_user_identities').select('user_id').where('provider_id', '=', linking.id).execute()).toEqual([]);
            expect(await app.deps.db.selectFrom('auth_user_identities').select('id').where('user_id', '=', attacker).execute()).toEqual([]);
        } finally {
            await app.json({ method: 'DELETE', url: `/identity-providers/${linking.id}` }, 200);
            await app.deps.db.deleteFrom('auth_users').where('realm_id', '=', world.realmId).where('name', '=', 'pre-hijacker').execute();
        }
    });

    it('accepts a directory user through Basic on the realm route and the sign-in form', async () => {
        const me = await app.request({ method: 'GET', url: `/realms/${world.realmId}/users/@me`, as: app.basic('ada', 'ada-password') });
        expect(me.statusCode, me.body).toBe(200);
        expect(me.json<{ data: { name: string } }>().data.name).toBe('ada');
        expect((await app.request({ method: 'GET', url: `/realms/${world.realmId}/users/@me`, as: app.basic('ada', 'nope') })).statusCode).toBe(401);
        expect((await app.request({ method: 'GET', url: `/realms/${world.realmId}/users/@me`, as: app.basic('*)(uid=*', 'ada-password') })).statusCode).toBe(401);

        const person = browser(app, '10.16.0.1');
        const { params } = authorizeParams(world);
        const page = await person.authorize(params);
        expect(page.statusCode).toBe(200);
        const wrong = await person.submit(page, { username: 'ada', password: 'wrong' });
        expect(wrong.statusCode).toBe(401);
        const signedIn = await person.submit(wrong, { username: 'ada', password: 'ada-password' });
        const consentOrCode = signedIn.statusCode === 303 ? signedIn : await person.submit(signedIn, { decision: 'allow' });
        expect(locationParams(consentOrCode).params.code).toBeDefined();
    });

    it('fails logins while the realm encryption key is disabled and works again once it is enabled (spec States)', async () => {
        const row = await app.deps.db.selectFrom('auth_identity_providers').select('bind_password').where('id', '=', provider.id).executeTakeFirstOrThrow();
        const keyId = row.bind_password!.split(':')[2]!;
        await app.json({ method: 'POST', url: `/keys/${keyId}`, payload: { status: 'disabled' } }, 200);
        try {
            const refused = await passwordGrant('bob', 'bob-password');
            expect(refused.statusCode).toBe(503);
            expect(refused.json()).toMatchObject({ error: 'temporarily_unavailable' });
            const read = await app.json<{ data: Record<string, unknown> }>({ method: 'GET', url: `/identity-providers/${provider.id}?fields=%2BbindPassword` }, 200);
            expect(read.data.bindPassword).toBeNull();
            // DELETE /keys/:id refuses while the provider's secret depends on the key
            expect((await app.request({ method: 'DELETE', url: `/keys/${keyId}` })).statusCode).toBe(409);
        } finally {
            await app.json({ method: 'POST', url: `/keys/${keyId}`, payload: { status: 'active' } }, 200);
        }
        expect((await passwordGrant('bob', 'bob-password')).statusCode).toBe(200);
    });

    it('encrypts a bind password left in plaintext on the next save, whether or not it changed (spec States)', async () => {
        await app.deps.db.updateTable('auth_identity_providers').set({ bind_password: LDAP_ADMIN.password }).where('id', '=', provider.id).execute();
        await app.json({ method: 'POST', url: `/identity-providers/${provider.id}`, payload: { displayName: 'Directory' } }, 200);
        const row = await app.deps.db.selectFrom('auth_identity_providers').select('bind_password').where('id', '=', provider.id).executeTakeFirstOrThrow();
        expect(row.bind_password).toMatch(/^enc:v1:/);
        expect((await passwordGrant('ada', 'ada-password')).statusCode).toBe(200);
    });

    it('answers a clear error, within the provider timeout, when the directory does not answer', async () => {
        // a listener that accepts connections and never says a word: only the timeout ends the wait
        const sockets = new Set<Socket>();
        const silent: Server = createServer((socket) => {
            sockets.add(socket);
        });
        await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
        const other = await browserWorld(app);
        await app.json({
            method: 'POST', url: '/identity-providers', payload: {
                name: 'silent', protocol: 'ldap', realmId: other.realmId, url: `ldap://127.0.0.1:${(silent.address() as AddressInfo).port}`,
                baseDn: LDAP_BASE, timeout: 300,
            },
        }, 201);
        try {
            const refused = await app.request({ method: 'POST', url: '/token', as: null, payload: { grant_type: 'password', username: 'ada', password: 'ada-password', realm_id: other.realmId } });
            expect(refused.statusCode).toBe(503);
            expect(refused.json()).toMatchObject({ error: 'temporarily_unavailable', error_description: expect.stringContaining('directory') });
            const person = browser(app, '10.16.0.2');
            const page = await person.authorize(authorizeParams(other).params);
            const answered = await person.submit(page, { username: 'ada', password: 'ada-password' });
            expect(answered.statusCode).toBe(503);
            expect(answered.body).toContain('could not be reached');
            // a local user of that realm still signs in: the directory is only asked for names without a local password
            expect((await app.request({ method: 'POST', url: '/token', as: null, payload: { grant_type: 'password', username: other.user.name, password: other.user.password, realm_id: other.realmId } })).statusCode).toBe(200);
        } finally {
            for (const socket of sockets) socket.destroy();
            await new Promise<void>((resolve) => silent.close(() => resolve()));
        }
    });
});
