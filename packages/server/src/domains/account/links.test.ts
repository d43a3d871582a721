import { PermissionName, RealmScope } from '@realmgate/core';
import { beforeAll, expect, it } from 'vitest';
import { createActor } from '../../../test/actors.js';
import { useTestApp } from '../../../test/app.js';
import { describeEachDialect } from '../../../test/databases.js';
import { createRealm } from '../../../test/grant-fixtures.js';
import { createClient } from '../../../test/identities.js';
import { login, probe } from '../../../test/sessions.js';
import { recordConsent } from '../../storage/consents.js';
import { insertIdentityLink } from '../../storage/identity-providers.js';

type Row = Record<string, unknown> & { id: string };
type List = { data: Row[]; meta: { total: number } };

/** `/user-consents` and `/user-identities` (the account console): the user's own, an administrator's by reach, no one else's. */
describeEachDialect('the account\'s consents and upstream links', (dialect) => {
    const app = useTestApp(dialect);
    let realmA: string;
    let realmB: string;
    let provider: string;
    beforeAll(async () => {
        realmA = await createRealm(app);
        realmB = await createRealm(app);
        provider = (await app.json<{ data: { id: string } }>({
            method: 'POST', url: '/identity-providers', payload: {
                realmId: realmA, name: 'upstream', displayName: 'Upstream', protocol: 'oidc', issuer: 'https://idp.example', clientId: 'rp', clientSecret: 'rp-secret',
            },
        }, 201)).data.id;
    });

    /** a user holding no permission at all, with a consent to `client` and a link to the provider */
    async function plainUser(client: { id: string }) {
        const user = await createActor(app, realmA, []);
        await recordConsent(app.deps.db, dialect, { userId: user.userId, clientId: client.id, realmId: realmA, scopes: ['openid', 'email'] });
        await insertIdentityLink(app.deps.db, dialect, { providerId: provider, userId: user.userId, realmId: realmA, subject: `sub-${user.userId}` }, new Date());
        return user;
    }

    it('a user without any grant lists and withdraws its consents; the sessions through that client end, the others live', async () => {
        const client = await createClient(app, realmA);
        const user = await plainUser(client);
        const through = await login(app, realmA, user.name, 'secret-password', { client_id: client.name, client_secret: client.secret });
        const direct = await login(app, realmA, user.name, 'secret-password');
        const list = await app.json<List>({ method: 'GET', url: '/user-consents', as: direct.bearer }, 200);
        expect(list.meta.total).toBe(1);
        expect(list.data[0]).toMatchObject({ userId: user.userId, clientId: client.id, clientName: client.name, realmId: realmA, scopes: ['openid', 'email'] });

        const withdrawn = await app.json<{ data: Row }>({ method: 'DELETE', url: `/user-consents/${list.data[0]!.id}`, as: direct.bearer }, 200);
        expect(withdrawn.data.id).toBe(list.data[0]!.id);
        expect((await app.json<List>({ method: 'GET', url: '/user-consents', as: direct.bearer }, 200)).meta.total).toBe(0);
        expect(await probe(app, through.bearer)).toBe(401);
        expect(await probe(app, direct.bearer)).toBe(200);
        expect((await app.request({ method: 'DELETE', url: `/user-consents/${list.data[0]!.id}`, as: direct.bearer })).statusCode).toBe(404);
        const events = await app.deps.db.selectFrom('auth_events').select('name').where('ref_id', '=', list.data[0]!.id).execute();
        expect(events.map((event) => event.name)).toEqual(['user_consent.deleted']);
    });

    it('a user lists and unlinks its upstream identities, but not the last one without a password', async () => {
        const client = await createClient(app, realmA);
        const user = await plainUser(client);
        const links = await app.json<List>({ method: 'GET', url: '/user-identities', as: user.header }, 200);
        expect(links.data).toEqual([expect.objectContaining({ userId: user.userId, providerId: provider, providerName: 'upstream', providerDisplayName: 'Upstream', protocol: 'oidc', subject: `sub-${user.userId}` })]);
        await app.deps.db.updateTable('auth_users').set({ password: null }).where('id', '=', user.userId).execute();
        // the administrator: the last way in is kept
        const last = await app.request({ method: 'DELETE', url: `/user-identities/${links.data[0]!.id}` });
        expect(last.statusCode).toBe(400);
        expect(last.json().issues).toEqual([expect.objectContaining({ path: ['id'], code: 'last_credential' })]);
        await app.json({ method: 'POST', url: `/users/${user.userId}`, payload: { password: 'secret-password' } }, 200);
        await app.json({ method: 'DELETE', url: `/user-identities/${links.data[0]!.id}`, as: user.header }, 200);
        expect((await app.json<List>({ method: 'GET', url: '/user-identities', as: user.header }, 200)).meta.total).toBe(0);
    });

    it('another user of the realm, and a foreign realm\'s administrator, neither see nor withdraw them (404); an administrator reaching the realm does', async () => {
        const client = await createClient(app, realmA);
        const user = await plainUser(client);
        const [consent] = (await app.json<List>({ method: 'GET', url: '/user-consents', as: user.header }, 200)).data;
        const [link] = (await app.json<List>({ method: 'GET', url: '/user-identities', as: user.header }, 200)).data;
        const neighbour = await createActor(app, realmA, []);
        const foreign = await createActor(app, realmB, [
            { permission: PermissionName.USER_READ, scope: RealmScope.OWN }, { permission: PermissionName.USER_UPDATE, scope: RealmScope.OWN },
        ]);
        for (const caller of [neighbour.header, foreign.header]) {
            expect((await app.request({ method: 'GET', url: `/user-consents?userId=${user.userId}`, as: caller })).statusCode).toBe(404);
            expect((await app.request({ method: 'GET', url: `/user-identities?userId=${user.userId}`, as: caller })).statusCode).toBe(404);
            expect((await app.request({ method: 'DELETE', url: `/user-consents/${consent!.id}`, as: caller })).statusCode).toBe(404);
            expect((await app.request({ method: 'DELETE', url: `/user-identities/${link!.id}`, as: caller })).statusCode).toBe(404);
            // its own lists are empty
            expect((await app.json<List>({ method: 'GET', url: '/user-consents', as: caller }, 200)).meta.total).toBe(0);
        }
        const reader = await createActor(app, realmA, [{ permission: PermissionName.USER_READ, scope: RealmScope.OWN }]);
        expect((await app.json<List>({ method: 'GET', url: `/user-consents?userId=${user.userId}`, as: reader.header }, 200)).meta.total).toBe(1);
        expect((await app.request({ method: 'DELETE', url: `/user-consents/${consent!.id}`, as: reader.header })).statusCode).toBe(403);
        await app.json({ method: 'DELETE', url: `/user-consents/${consent!.id}` }, 200);
    });

    it('answers 400 for malformed input and 401 without credentials', async () => {
        expect((await app.request({ method: 'GET', url: '/user-consents?userId=nope' })).statusCode).toBe(400);
        expect((await app.request({ method: 'GET', url: '/user-identities?other=1' })).statusCode).toBe(400);
        expect((await app.request({ method: 'DELETE', url: '/user-consents/nope' })).statusCode).toBe(400);
        expect((await app.request({ method: 'GET', url: '/user-consents', as: null })).statusCode).toBe(401);
        expect((await app.request({ method: 'GET', url: '/user-consents?userId=6f1c0f7e-4c47-4a43-9c59-4a1de2b8e5a1' })).statusCode).toBe(400);
    });
});
