import { RealmScope } from '@realmgate/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { createActor, createRealm } from '../../../test/actors.js';
import { useTestApp } from '../../../test/app.js';
import { describeEachDialect } from '../../../test/databases.js';
import { createClient, grantDirect } from '../../../test/identities.js';

type Client = Record<string, unknown> & { id: string; name: string };
type List = { data: Client[]; meta: { total: number } };

/** Clients are never global: ownOrNull reaches what own reaches, any every realm (spec rule 9). */
const REACHES = [
    { scope: RealmScope.OWN, foreign: false },
    { scope: RealmScope.OWN_OR_NULL, foreign: false },
    { scope: RealmScope.ANY, foreign: true },
];

describeEachDialect('clients: realm reach, withheld secret and self-management', (dialect) => {
    const app = useTestApp(dialect);
    let realmA: string;
    let realmB: string;
    let clientA: Awaited<ReturnType<typeof createClient>>;
    let clientB: Awaited<ReturnType<typeof createClient>>;
    beforeAll(async () => {
        realmA = await createRealm(app, 'access-a');
        realmB = await createRealm(app, 'access-b');
        clientA = await createClient(app, realmA, 'app-a');
        clientB = await createClient(app, realmB, 'app-b');
    });

    for (const { scope, foreign } of REACHES) {
        describe(`client_read and client_update at ${scope}`, () => {
            let header: string;
            beforeAll(async () => {
                ({ header } = await createActor(app, realmA, [
                    { permission: 'client_read', scope },
                    { permission: 'client_update', scope },
                ]));
            });

            it('reads and lists by the reach table; a foreign client answers 403', async () => {
                await app.json({ method: 'GET', url: `/clients/${clientA.id}`, as: header }, 200);
                expect((await app.request({ method: 'GET', url: `/clients/${clientB.id}`, as: header })).statusCode).toBe(foreign ? 200 : 403);
                const list = await app.json<List>({ method: 'GET', url: '/clients?page[limit]=100', as: header }, 200);
                const ids = list.data.map((client) => client.id);
                expect(ids).toContain(clientA.id);
                expect(ids.includes(clientB.id)).toBe(foreign);
                expect(list.meta.total).toBe(list.data.length);
            });

            it('projects +secret on rows it may update and updates/rotates by the reach table', async () => {
                const own = await app.json<{ data: Client }>({ method: 'GET', url: `/clients/${clientA.id}?fields=%2Bsecret`, as: header }, 200);
                expect(own.data.secret).toBe(clientA.secret);
                expect((await app.request({ method: 'GET', url: `/clients/${clientB.id}?fields=%2Bsecret`, as: header })).statusCode).toBe(foreign ? 200 : 403);
                await app.json({ method: 'POST', url: `/clients/${clientA.id}`, payload: { description: scope }, as: header }, 200);
                expect((await app.request({ method: 'POST', url: `/clients/${clientB.id}`, payload: { description: scope }, as: header })).statusCode).toBe(foreign ? 200 : 403);
                const rotation = await app.request({ method: 'POST', url: `/clients/${clientB.id}/secret`, payload: { secret: clientB.secret }, as: header });
                expect(rotation.statusCode).toBe(foreign ? 200 : 403);
            });
        });
    }

    it('a reader without client_update gets 403 for +secret on a single read and a redacted list, hashed secrets included', async () => {
        const hashed = await createClient(app, realmA, 'app-hashed', { secretHashed: true });
        const reader = await createActor(app, realmA, [{ permission: 'client_read', scope: RealmScope.OWN }]);
        expect((await app.json<{ data: Client }>({ method: 'GET', url: `/clients/${clientA.id}`, as: reader.header }, 200)).data).not.toHaveProperty('secret');
        for (const id of [clientA.id, hashed.id]) {
            const single = await app.request({ method: 'GET', url: `/clients/${id}?fields=%2Bsecret`, as: reader.header });
            expect(single.statusCode).toBe(403);
        }
        const list = await app.json<List>({ method: 'GET', url: '/clients?fields=%2Bsecret&page[limit]=100', as: reader.header }, 200);
        expect(list.data.length).toBeGreaterThanOrEqual(2);
        for (const client of list.data) expect(client).not.toHaveProperty('secret');
        // the admin sees the stored (hashed) value
        const admin = await app.json<List>({ method: 'GET', url: `/clients?fields=%2Bsecret&filter[realmId]=${realmA}&page[limit]=100` }, 200);
        expect(admin.data.find((client) => client.id === hashed.id)?.secret).toMatch(/^\$2/);
    });

    it('GET /clients/@me answers the calling client (its secret with +secret) and 404 for a user', async () => {
        const me = await app.json<{ data: Client }>({ method: 'GET', url: '/clients/@me?fields=%2Bsecret', as: clientA.header }, 200);
        expect(me.data).toMatchObject({ id: clientA.id, secret: clientA.secret });
        expect((await app.request({ method: 'GET', url: '/clients/@me' })).statusCode).toBe(404);
        // without client_read the client reads no other client
        expect((await app.request({ method: 'GET', url: `/clients/${clientB.id}`, as: clientA.header })).statusCode).toBe(403);
    });

    describe('self-management', () => {
        it('without a client_self_manage grant a client cannot update or rotate itself', async () => {
            const client = await createClient(app, realmA, 'self-none');
            expect((await app.request({ method: 'POST', url: `/clients/${client.id}`, payload: { displayName: 'Me' }, as: client.header })).statusCode).toBe(403);
            expect((await app.request({ method: 'POST', url: '/clients/@me/secret', as: client.header })).statusCode).toBe(403);
        });

        it('with the grant it updates allowed members and rotates itself, never denylisted members or other clients', async () => {
            const client = await createClient(app, realmA, 'self-some');
            await grantDirect(app, { clientId: client.id }, 'client_self_manage', RealmScope.OWN);
            await app.json({ method: 'POST', url: `/clients/${client.id}`, payload: { displayName: 'Myself', description: 'mine' }, as: client.header }, 200);
            // spec Authentication rule 14: a client managing itself cannot change its own grantTypes (nor mark itself first-party, which skips consent)
            for (const payload of [{ grantTypes: ['client_credentials'] }, { active: false }, { redirectUri: 'https://evil.example.com/cb' }, { backchannelLogoutUri: 'https://x.example.com/l' }, { firstParty: true }]) {
                const response = await app.request({ method: 'POST', url: `/clients/${client.id}`, payload, as: client.header });
                expect(response.statusCode, JSON.stringify(payload)).toBe(403);
            }
            // a storage mode is a denylisted member too
            expect((await app.request({ method: 'POST', url: '/clients/@me/secret', payload: { mode: 'plain' }, as: client.header })).statusCode).toBe(403);
            const rotated = await app.json<{ meta: { secret: string } }>({ method: 'POST', url: '/clients/@me/secret', as: client.header }, 200);
            const fresh = app.basic(client.id, rotated.meta.secret);
            expect((await app.request({ method: 'GET', url: '/clients/@me', as: client.header })).statusCode).toBe(401);
            expect((await app.json<{ data: Client }>({ method: 'GET', url: '/clients/@me', as: fresh }, 200)).data.displayName).toBe('Myself');
            expect((await app.request({ method: 'POST', url: `/clients/${clientA.id}`, payload: { displayName: 'Not me' }, as: fresh })).statusCode).toBe(403);
            expect((await app.request({ method: 'POST', url: `/clients/${clientA.id}/secret`, as: fresh })).statusCode).toBe(403);
            const row = await app.deps.db.selectFrom('auth_clients').selectAll().where('id', '=', client.id).executeTakeFirstOrThrow();
            expect(row.grant_types).toBeNull();
            expect(Boolean(row.active)).toBe(true);
        });
    });
});
