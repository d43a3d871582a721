import { PermissionName, RealmScope } from '@realmgate/core';
import { beforeAll, expect, it } from 'vitest';
import { createActor, createRealm } from '../../actors.js';
import { useTestApp } from '../../app.js';
import { describeEachDialect } from '../../databases.js';

/*
 * Realm isolation of the identity-provider collections: a caller holding every
 * identity-provider permission at reach `own` in realm A, against realm B's provider and its
 * attribute and role mappings on every route — reads, lists, the withheld secret, updates,
 * deletes, creates naming B's rows, the realm mount — and nothing of B's changes.
 */
describeEachDialect('identity providers: realm isolation', (dialect) => {
    const app = useTestApp(dialect);
    let realmA: string;
    let realmB: string;
    let caller: string;
    let b: { provider: string; attribute: string; role: string; roleId: string };
    let a: { provider: string; roleId: string };
    const SECRET = 'realm-b-client-secret';

    const post = async (url: string, payload: Record<string, unknown>) => (await app.json<{ data: { id: string } }>({ method: 'POST', url, payload }, 201)).data.id;
    const snapshot = async () => Promise.all([
        app.deps.db.selectFrom('auth_identity_providers').selectAll().where('realm_id', '=', realmB).orderBy('id').execute(),
        app.deps.db.selectFrom('auth_identity_provider_attribute_mappings').selectAll().where('realm_id', '=', realmB).orderBy('id').execute(),
        app.deps.db.selectFrom('auth_identity_provider_role_mappings').selectAll().where('realm_id', '=', realmB).orderBy('id').execute(),
    ]);

    beforeAll(async () => {
        realmA = await createRealm(app, `idp-iso-a-${dialect}`);
        realmB = await createRealm(app, `idp-iso-b-${dialect}`);
        caller = (await createActor(app, realmA, [
            PermissionName.IDENTITY_PROVIDER_CREATE, PermissionName.IDENTITY_PROVIDER_READ, PermissionName.IDENTITY_PROVIDER_UPDATE,
            PermissionName.IDENTITY_PROVIDER_DELETE, PermissionName.ROLE_READ,
        ].map((permission) => ({ permission, scope: RealmScope.OWN })))).header;
        const oidc = { protocol: 'oidc', issuer: 'https://idp.example', clientId: 'rg', clientSecret: SECRET };
        const providerB = await post('/identity-providers', { name: 'upstream', realmId: realmB, ...oidc });
        const roleB = await post('/roles', { name: 'mapped', realmId: realmB });
        b = {
            provider: providerB, roleId: roleB,
            attribute: await post('/identity-provider-attribute-mappings', { providerId: providerB, source: 'given_name', target: 'field', targetName: 'firstName' }),
            role: await post('/identity-provider-role-mappings', { providerId: providerB, value: 'admins', roleId: roleB }),
        };
        a = { provider: await post('/identity-providers', { name: 'upstream', realmId: realmA, ...oidc }), roleId: await post('/roles', { name: 'mapped', realmId: realmA }) };
    });

    const UPDATES: Record<string, Record<string, unknown>> = {
        'identity-providers': { displayName: 'taken' },
        'identity-provider-attribute-mappings': { targetName: 'lastName' },
        'identity-provider-role-mappings': { value: 'taken' },
    };
    const as = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: Record<string, unknown>) =>
        app.request({ method, url, as: caller, ...(payload ? { payload } : {}) });

    it('keeps the client secret sealed: not in the column, a default read or an event', async () => {
        const row = await app.deps.db.selectFrom('auth_identity_providers').select('client_secret').where('id', '=', b.provider).executeTakeFirstOrThrow();
        expect(row.client_secret).toMatch(/^enc:v1:/);
        expect(row.client_secret).not.toContain(SECRET);
        const read = await app.json<{ data: Record<string, unknown> }>({ method: 'GET', url: `/identity-providers/${b.provider}` }, 200);
        expect(read.data).not.toHaveProperty('clientSecret');
        const events = await app.deps.db.selectFrom('auth_events').select('data').where('ref_id', '=', b.provider).execute();
        expect(events.length).toBeGreaterThan(0);
        for (const event of events) expect(event.data ?? '').not.toContain(SECRET);
    });

    it('reaches its own realm\'s provider and mappings, secret included', async () => {
        const own = await as('GET', `/identity-providers/${a.provider}?fields=%2BclientSecret`);
        expect(own.statusCode, own.body).toBe(200);
        expect(own.json<{ data: { clientSecret: string } }>().data.clientSecret).toBe(SECRET);
        expect((await as('POST', '/identity-provider-role-mappings', { providerId: a.provider, value: 'x', roleId: a.roleId })).statusCode).toBe(201);
    });

    it('cannot read, list, change or delete another realm\'s provider and mappings, nor create under them', async () => {
        const before = await snapshot();
        const rows: [string, string][] = [
            ['identity-providers', b.provider], ['identity-provider-attribute-mappings', b.attribute], ['identity-provider-role-mappings', b.role],
        ];
        for (const [collection, id] of rows) {
            for (const url of [`/${collection}/${id}`, `/${collection}/${id}?fields=%2BclientSecret`]) {
                if (url.includes('clientSecret') && collection !== 'identity-providers') continue;
                expect([403, 404], url).toContain((await as('GET', url)).statusCode);
            }
            const list = await as('GET', `/${collection}`);
            expect(list.statusCode).toBe(200);
            expect(list.body).not.toContain(id);
            expect(list.body).not.toContain(SECRET);
            expect([403, 404]).toContain((await as('POST', `/${collection}/${id}`, UPDATES[collection]!)).statusCode);
            expect([403, 404]).toContain((await as('DELETE', `/${collection}/${id}`)).statusCode);
        }
        // a name resolves in the caller's realm: its own provider of that name, never B's
        const byName = await as('GET', '/identity-providers/upstream');
        expect(byName.json<{ data: { id: string } }>().data.id).toBe(a.provider);
        expect([403, 404]).toContain((await as('GET', `/realms/${realmB}/identity-providers/upstream`)).statusCode);
        // creates in realm B, or naming realm B's provider or role
        expect([400, 403]).toContain((await as('POST', '/identity-providers', { name: 'intruder', protocol: 'ldap', url: 'ldap://127.0.0.1', baseDn: 'dc=x', realmId: realmB })).statusCode);
        expect([400, 403]).toContain((await as('POST', `/realms/${realmB}/identity-providers`, { name: 'intruder', protocol: 'ldap', url: 'ldap://127.0.0.1', baseDn: 'dc=x' })).statusCode);
        expect([400, 403]).toContain((await as('POST', '/identity-provider-attribute-mappings', { providerId: b.provider, source: 'x', target: 'attribute', targetName: 'x' })).statusCode);
        expect([400, 403]).toContain((await as('POST', '/identity-provider-role-mappings', { providerId: b.provider, value: 'x', roleId: a.roleId })).statusCode);
        // a mapping of its own provider may not hand out another realm's role
        expect([400, 403]).toContain((await as('POST', '/identity-provider-role-mappings', { providerId: a.provider, value: 'x', roleId: b.roleId })).statusCode);
        expect(await snapshot()).toEqual(before);
    });

    it('DELETE /keys/:id answers 409 while a provider secret depends on the key; forced, the secret is destroyed with it', async () => {
        const realm = await createRealm(app, `idp-keys-${dialect}`);
        const id = await post('/identity-providers', { name: 'sealed', realmId: realm, protocol: 'oidc', issuer: 'https://idp.example', clientId: 'rg', clientSecret: SECRET });
        const sealed = (await app.deps.db.selectFrom('auth_identity_providers').select('client_secret').where('id', '=', id).executeTakeFirstOrThrow()).client_secret!;
        const keyId = sealed.split(':')[2]!;
        const refused = await app.request({ method: 'DELETE', url: `/keys/${keyId}` });
        expect(refused.statusCode).toBe(409);
        expect(refused.json<{ message: string }>().message).toContain('1 identity provider(s)');
        expect((await app.request({ method: 'DELETE', url: `/keys/${keyId}?force=true` })).statusCode).toBe(200);
        expect((await app.deps.db.selectFrom('auth_identity_providers').select('client_secret').where('id', '=', id).executeTakeFirstOrThrow()).client_secret).toBeNull();
    });
});
