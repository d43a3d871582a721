import { randomUUID } from 'node:crypto';
import { DEFAULT_ROLES_ROLE_NAME, RealmScope } from '@realmgate/core';
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { basicHeader, useTestApp, type TestApp } from '../app.js';
import { createActor } from '../actors.js';
import { describeEachDialect } from '../databases.js';
import { startMailServer, type MailServer } from '../mail-server.js';
import type { Config, DeepPartial } from '../../src/config/schema.js';
import type { DialectName } from '../../src/db/values.js';
import { provisionUser } from '../../src/federation/provision.js';
import { findProvider } from '../../src/storage/identity-providers.js';
import type { UpstreamIdentity } from '../../src/federation/upstream-identity.js';

/*
 * Realm default roles (API.md §8 `defaultRoleIds`; Keycloak's "default roles"): every way a user is
 * created — the administrator's POST and PUT /users, self-registration, an identity provider's first
 * login (LDAP, OIDC, OAuth 2.0) and a provisioning file — grants the realm's list in the transaction
 * that inserts the user; a grant that fails takes the user with it. A new realm's own default role
 * lets a new account manage itself with no administrator's grant.
 */

type Realm = { id: string; name: string; defaultRoleIds: string[] };

/**
 * A trigger that refuses grants of one role in the database itself: the failing statement is the
 * grant, inside the user's transaction, whatever path created the user.
 */
async function refuseGrantsOf(app: TestApp, dialect: DialectName, roleId: string): Promise<() => Promise<void>> {
    const db = app.deps.db;
    const name = `refuse_${roleId.replace(/-/g, '').slice(0, 12)}`;
    if (dialect === 'sqlite') {
        await sql.raw(`CREATE TRIGGER ${name} BEFORE INSERT ON auth_user_roles WHEN NEW.role_id = '${roleId}' BEGIN SELECT RAISE(ABORT, 'grant refused'); END`).execute(db);
        return async () => void await sql.raw(`DROP TRIGGER ${name}`).execute(db);
    }
    if (dialect === 'postgres') {
        await sql.raw(`CREATE FUNCTION ${name}() RETURNS trigger AS $$ BEGIN IF NEW.role_id = '${roleId}' THEN RAISE EXCEPTION 'grant refused'; END IF; RETURN NEW; END $$ LANGUAGE plpgsql`).execute(db);
        await sql.raw(`CREATE TRIGGER ${name} BEFORE INSERT ON auth_user_roles FOR EACH ROW EXECUTE FUNCTION ${name}()`).execute(db);
        return async () => {
            await sql.raw(`DROP TRIGGER ${name} ON auth_user_roles`).execute(db);
            await sql.raw(`DROP FUNCTION ${name}()`).execute(db);
        };
    }
    await sql.raw(`CREATE TRIGGER ${name} BEFORE INSERT ON auth_user_roles FOR EACH ROW BEGIN IF NEW.role_id = '${roleId}' THEN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'grant refused'; END IF; END`).execute(db);
    return async () => void await sql.raw(`DROP TRIGGER ${name}`).execute(db);
}

describeEachDialect('realm default roles', (dialect) => {
    let mail: MailServer;
    const overrides: DeepPartial<Config> = {};
    // registered before the app's hooks: the relay's port goes into the configuration it reads
    beforeAll(async () => {
        mail = await startMailServer();
        overrides.smtp = `smtp://127.0.0.1:${mail.port}?tls.rejectUnauthorized=false&from=auth%40example.test`;
    });
    afterAll(async () => mail.close());
    const app = useTestApp(dialect, overrides);

    const newRealm = async (extra: Record<string, unknown> = {}): Promise<Realm> =>
        (await app.json<{ data: Realm }>({ method: 'POST', url: '/realms', payload: { name: `dr-${randomUUID().slice(0, 8)}`, ...extra } }, 201)).data;
    const readRealm = async (id: string): Promise<Realm> => (await app.json<{ data: Realm }>({ method: 'GET', url: `/realms/${id}` }, 200)).data;
    const newRole = async (realmId: string, name = `role-${randomUUID().slice(0, 8)}`): Promise<string> =>
        (await app.json<{ data: { id: string } }>({ method: 'POST', url: '/roles', payload: { name, realmId } }, 201)).data.id;
    const rolesOf = async (userId: string): Promise<string[]> =>
        (await app.deps.db.selectFrom('auth_user_roles').select('role_id').where('user_id', '=', userId).orderBy('role_id').execute()).map((row) => row.role_id);
    const userNamed = (realmId: string, name: string) =>
        app.deps.db.selectFrom('auth_users').select('id').where('realm_id', '=', realmId).where('name', '=', name).executeTakeFirst();
    const adminCreates = async (realmId: string) => {
        const password = `pw-${randomUUID()}`;
        const created = await app.json<{ data: { id: string } }>({ method: 'POST', url: '/users', payload: { name: `u-${randomUUID().slice(0, 8)}`, realmId, password } }, 201);
        return { id: created.data.id, header: basicHeader(created.data.id, password) };
    };
    const register = (realm: Realm) => {
        const name = `self-${randomUUID().slice(0, 8)}`;
        return app.request({ method: 'POST', url: `/realms/${realm.id}/register`, as: null, payload: { name, email: `${name}@example.test`, password: 'first-password-1' } }).then((response) => ({ response, name }));
    };
    const identity = (subject: string): UpstreamIdentity => ({ subject, username: subject, email: null, emailVerified: false, claims: {}, groups: [] });
    const newProvider = async (realmId: string, protocol: 'ldap' | 'oidc' | 'oauth2') => {
        const settings = protocol === 'ldap' ? { url: 'ldap://127.0.0.1:1389', baseDn: 'dc=example' } :
            protocol === 'oidc' ? { issuer: 'https://127.0.0.1:9/issuer', clientId: 'rg', clientSecret: 'upstream-secret' } :
                { clientId: 'rg', clientSecret: 'upstream-secret', authorizationUrl: 'https://127.0.0.1:9/authorize', tokenUrl: 'https://127.0.0.1:9/token', userinfoUrl: 'https://127.0.0.1:9/me' };
        const created = await app.json<{ data: { id: string } }>({ method: 'POST', url: '/identity-providers', payload: { name: `idp-${protocol}-${randomUUID().slice(0, 6)}`, realmId, protocol, ...settings } }, 201);
        return (await findProvider(app.deps.db, realmId, created.data.id))!;
    };
    /** the first login through a provider, as the LDAP, OIDC and OAuth 2.0 sign-ins end in it */
    const firstLogin = async (realmId: string, protocol: 'ldap' | 'oidc' | 'oauth2', subject = `upstream-${randomUUID().slice(0, 8)}`) =>
        provisionUser({ db: app.deps.db, dialect }, await newProvider(realmId, protocol), identity(subject));

    it('gives every new realm a built-in default role carrying user_self_manage at reach own, on its list', async () => {
        const realm = await newRealm();
        expect(realm.defaultRoleIds).toHaveLength(1);
        const role = await app.deps.db.selectFrom('auth_roles').selectAll().where('id', '=', realm.defaultRoleIds[0]!).executeTakeFirstOrThrow();
        expect(role).toMatchObject({ name: DEFAULT_ROLES_ROLE_NAME, realm_id: realm.id, client_id: null });
        const grants = await app.deps.db.selectFrom('auth_role_permissions').innerJoin('auth_permissions', 'auth_permissions.id', 'auth_role_permissions.permission_id')
            .select(['auth_permissions.name', 'auth_role_permissions.realm_scope']).where('role_id', '=', role.id).execute();
        expect(grants).toEqual([{ name: 'user_self_manage', realm_scope: RealmScope.OWN }]);
        // the read and the list answer it; the created event carries it
        expect((await readRealm(realm.id)).defaultRoleIds).toEqual(realm.defaultRoleIds);
        const listed = await app.json<{ data: Realm[] }>({ method: 'GET', url: `/realms?filter[name]=${realm.name}&fields=id,defaultRoleIds` }, 200);
        expect(listed.data).toEqual([{ id: realm.id, defaultRoleIds: realm.defaultRoleIds }]);
        const event = await app.deps.db.selectFrom('auth_events').select('data').where('name', '=', 'realm.created').where('ref_id', '=', realm.id).executeTakeFirstOrThrow();
        expect(JSON.parse(event.data!).defaultRoleIds).toEqual(realm.defaultRoleIds);
        // and the master realm got its own at boot
        const master = await app.json<{ data: Realm }>({ method: 'GET', url: '/realms/master' }, 200);
        expect(master.data.defaultRoleIds).toHaveLength(1);
        // built in: it cannot be deleted (the list can be emptied instead)
        expect((await app.request({ method: 'DELETE', url: `/roles/${role.id}` })).statusCode).toBe(400);
    });

    it('lets a user created by the administrator manage its own account with no grant of an administrator', async () => {
        const realm = await newRealm();
        const user = await adminCreates(realm.id);
        expect(await rolesOf(user.id)).toEqual(realm.defaultRoleIds);
        const renamed = await app.json<{ data: { displayName: string } }>({ method: 'POST', url: `/users/${user.id}`, payload: { displayName: 'Me myself' }, as: user.header }, 200);
        expect(renamed.data.displayName).toBe('Me myself');
        expect((await app.request({ method: 'GET', url: '/users/@me', as: user.header })).statusCode).toBe(200);
        // the self-manage denylist still holds (API.md §5)
        expect((await app.request({ method: 'POST', url: `/users/${user.id}`, payload: { active: false }, as: user.header })).statusCode).toBe(403);
        // as /user-roles records a grant
        const events = await app.deps.db.selectFrom('auth_events').select(['data', 'actor_id', 'realm_id']).where('name', '=', 'user_role.created').where('realm_id', '=', realm.id).execute();
        expect(events.map((event) => JSON.parse(event.data!) as { userId: string; roleId: string })).toEqual([expect.objectContaining({ userId: user.id, roleId: realm.defaultRoleIds[0] })]);
    });

    it('grants the list on every path that creates a user: PUT, registration, LDAP, OIDC and OAuth 2.0 first logins', async () => {
        const realm = await newRealm({ registrationEnabled: true });
        const extra = await newRole(realm.id);
        const list = [...realm.defaultRoleIds, extra].sort();
        expect((await app.json<{ data: Realm }>({ method: 'POST', url: `/realms/${realm.id}`, payload: { defaultRoleIds: list } }, 200)).data.defaultRoleIds).toEqual(list);

        const put = await app.json<{ data: { id: string } }>({ method: 'PUT', url: `/realms/${realm.id}/users/put-user`, payload: { password: 'put-password-1' } }, 201);
        expect(await rolesOf(put.data.id)).toEqual(list);

        const registered = await register(realm);
        expect(registered.response.statusCode, registered.response.body).toBe(201);
        expect(await rolesOf((await userNamed(realm.id, registered.name))!.id)).toEqual(list);

        for (const protocol of ['ldap', 'oidc', 'oauth2'] as const) {
            const login = await firstLogin(realm.id, protocol);
            expect(login.created).toBe(true);
            expect(await rolesOf(login.userId), protocol).toEqual(list);
        }
    });

    it('creates no user when its default grant fails: one transaction on every path', async () => {
        const realm = await newRealm({ registrationEnabled: true });
        const refused = await newRole(realm.id);
        await app.json({ method: 'POST', url: `/realms/${realm.id}`, payload: { defaultRoleIds: [...realm.defaultRoleIds, refused] } }, 200);
        const before = await app.deps.db.selectFrom('auth_users').select('id').where('realm_id', '=', realm.id).execute();
        const drop = await refuseGrantsOf(app, dialect, refused);
        try {
            const name = `u-${randomUUID().slice(0, 8)}`;
            const created = await app.request({ method: 'POST', url: '/users', payload: { name, realmId: realm.id, password: 'a-password-1' } });
            expect(created.statusCode).toBe(500);
            expect(await userNamed(realm.id, name)).toBeUndefined();

            const registered = await register(realm);
            expect(registered.response.statusCode).toBe(500);
            expect(await userNamed(realm.id, registered.name)).toBeUndefined();

            const subject = `upstream-${randomUUID().slice(0, 8)}`;
            await expect(firstLogin(realm.id, 'oidc', subject)).rejects.toThrow();
            expect(await userNamed(realm.id, subject)).toBeUndefined();
            expect(await app.deps.db.selectFrom('auth_user_identities').select('id').where('subject', '=', subject).execute()).toEqual([]);
        } finally {
            await drop();
        }
        // nothing of the failed creations remains: no user, no grant, no created entry
        expect(await app.deps.db.selectFrom('auth_users').select('id').where('realm_id', '=', realm.id).execute()).toEqual(before);
        const events = await app.deps.db.selectFrom('auth_events').select('name').where('realm_id', '=', realm.id).where('name', 'in', ['user.created', 'user_role.created']).execute();
        expect(events).toEqual([]);
    });

    it('takes the roles away from new users only when the list is emptied; the account then needs an administrator', async () => {
        const realm = await newRealm();
        const before = await adminCreates(realm.id);
        const emptied = await app.json<{ data: Realm }>({ method: 'POST', url: `/realms/${realm.id}`, payload: { defaultRoleIds: [] } }, 200);
        expect(emptied.data.defaultRoleIds).toEqual([]);
        expect((await readRealm(realm.id)).defaultRoleIds).toEqual([]);
        const after = await adminCreates(realm.id);
        expect(await rolesOf(after.id)).toEqual([]);
        const refused = await app.request({ method: 'POST', url: `/users/${after.id}`, payload: { displayName: 'x' }, as: after.header });
        expect(refused.statusCode).toBe(403);
        // the user created before keeps what it received
        expect(await rolesOf(before.id)).toEqual(realm.defaultRoleIds);
        await app.json({ method: 'POST', url: `/users/${before.id}`, payload: { displayName: 'still me' }, as: before.header }, 200);
        // echoing the list unchanged writes nothing
        const updatedAt = emptied.data as unknown as { updatedAt: string };
        const echoed = await app.json<{ data: { updatedAt: string } }>({ method: 'POST', url: `/realms/${realm.id}`, payload: { defaultRoleIds: [] } }, 200);
        expect(echoed.data.updatedAt).toBe(updatedAt.updatedAt);
        // a realm may also be created without default roles (its default role exists, off the list)
        const bare = await newRealm({ defaultRoleIds: [] });
        expect(bare.defaultRoleIds).toEqual([]);
        expect(await app.deps.db.selectFrom('auth_roles').select('id').where('realm_id', '=', bare.id).where('name', '=', DEFAULT_ROLES_ROLE_NAME).execute()).toHaveLength(1);
    });

    it('refuses ids that name no role of the realm: another realm\'s, a global one, none at all, and any on a realm being created', async () => {
        const realm = await newRealm();
        const other = await newRealm();
        const foreign = await newRole(other.id);
        const global = (await app.deps.db.selectFrom('auth_roles').select('id').where('name', '=', 'admin').where('realm_id', 'is', null).executeTakeFirstOrThrow()).id;
        for (const id of [foreign, global, randomUUID()]) {
            const response = await app.request({ method: 'POST', url: `/realms/${realm.id}`, payload: { defaultRoleIds: [...realm.defaultRoleIds, id] } });
            expect(response.statusCode).toBe(400);
            expect(response.json().issues).toEqual([expect.objectContaining({ path: ['defaultRoleIds', 1], code: 'invalid_reference' })]);
        }
        for (const payload of [{ defaultRoleIds: ['not-a-uuid'] }, { defaultRoleIds: 'x' }, { defaultRoleIds: [foreign, foreign] }]) {
            const response = await app.request({ method: 'POST', url: `/realms/${realm.id}`, payload });
            expect(response.statusCode, JSON.stringify(payload)).toBe(400);
            expect(response.json().issues.length).toBeGreaterThan(0);
        }
        const created = await app.request({ method: 'POST', url: '/realms', payload: { name: `dr-${randomUUID().slice(0, 8)}`, defaultRoleIds: [foreign] } });
        expect(created.statusCode).toBe(400);
        expect((await readRealm(realm.id)).defaultRoleIds).toEqual(realm.defaultRoleIds);
    });

    it('keeps a foreign-realm caller off another realm\'s list and off roles beyond its own reach', async () => {
        const realmA = await newRealm();
        const realmB = await newRealm();
        const roleA = await newRole(realmA.id);
        const actor = await createActor(app, realmB.id, [
            { permission: 'realm_read', scope: RealmScope.OWN }, { permission: 'realm_update', scope: RealmScope.OWN },
        ]);
        const denied = await app.request({ method: 'POST', url: `/realms/${realmA.id}`, payload: { defaultRoleIds: [] }, as: actor.header });
        expect([403, 404]).toContain(denied.statusCode);
        expect((await readRealm(realmA.id)).defaultRoleIds).toEqual(realmA.defaultRoleIds);
        // its own realm, naming realm A's role
        const foreign = await app.request({ method: 'POST', url: `/realms/${realmB.id}`, payload: { defaultRoleIds: [roleA] }, as: actor.header });
        expect(foreign.statusCode).toBe(400);
        // a role of its realm that carries what the actor itself does not hold (delegation rule (b))
        const powerful = await newRole(realmB.id);
        await app.json({ method: 'POST', url: '/role-permissions', payload: { roleId: powerful, permissionId: await permissionId('user_create'), realmScope: 'own' } }, 201);
        const beyond = await app.request({ method: 'POST', url: `/realms/${realmB.id}`, payload: { defaultRoleIds: [...realmB.defaultRoleIds, powerful] }, as: actor.header });
        expect(beyond.statusCode).toBe(403);
        // emptying its own list gives nothing away
        await app.json({ method: 'POST', url: `/realms/${realmB.id}`, payload: { defaultRoleIds: [] }, as: actor.header }, 200);
        expect((await readRealm(realmB.id)).defaultRoleIds).toEqual([]);
    });

    const permissionId = async (name: string) =>
        (await app.deps.db.selectFrom('auth_permissions').select('id').where('name', '=', name).where('realm_id', 'is', null).executeTakeFirstOrThrow()).id;

    it('drops a deleted role from the list, whether the role or its client is deleted', async () => {
        const realm = await newRealm();
        const plain = await newRole(realm.id);
        const client = (await app.json<{ data: { id: string } }>({ method: 'POST', url: '/clients', payload: { name: `c-${randomUUID().slice(0, 8)}`, realmId: realm.id } }, 201)).data.id;
        const ofClient = (await app.json<{ data: { id: string } }>({ method: 'POST', url: '/roles', payload: { name: 'client-role', realmId: realm.id, clientId: client } }, 201)).data.id;
        await app.json({ method: 'POST', url: `/realms/${realm.id}`, payload: { defaultRoleIds: [...realm.defaultRoleIds, plain, ofClient] } }, 200);
        await app.json({ method: 'DELETE', url: `/roles/${plain}` }, 200);
        await app.json({ method: 'DELETE', url: `/clients/${client}` }, 200);
        expect((await readRealm(realm.id)).defaultRoleIds).toEqual(realm.defaultRoleIds);
        const user = await adminCreates(realm.id);
        expect(await rolesOf(user.id)).toEqual(realm.defaultRoleIds);
    });
});
