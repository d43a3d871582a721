import { beforeAll, expect, it } from 'vitest';
import { useTestApp } from '../../test/app.js';
import { describeEachDialect } from '../../test/databases.js';

type TokenAnswer = { access_token: string; refresh_token?: string };

/**
 * A client's accessPolicyId is evaluated at every token issuance through the
 * client — password (confidential and public client), client_credentials and refresh.
 */
describeEachDialect('POST /token: the client\'s access policy', (dialect) => {
    const app = useTestApp(dialect);
    let realmId: string;
    let otherRealmId: string;
    let denyAll: string;
    let allowAll: string;
    let foreignAllowAll: string;
    beforeAll(async () => {
        realmId = (await app.json<{ data: { id: string } }>({ method: 'POST', url: '/realms', payload: { name: 'policed' } }, 201)).data.id;
        otherRealmId = (await app.json<{ data: { id: string } }>({ method: 'POST', url: '/realms', payload: { name: 'policed-other' } }, 201)).data.id;
        const policy = async (name: string, realm: string, invert: boolean) =>
            (await app.json<{ data: { id: string } }>({ method: 'POST', url: '/policies', payload: { type: 'identity', name, realmId: realm, invert } }, 201)).data.id;
        // an identity policy inverted: every identity fails it
        denyAll = await policy('deny-everyone', realmId, true);
        allowAll = await policy('admit-everyone', realmId, false);
        foreignAllowAll = await policy('admit-everyone-elsewhere', otherRealmId, false);
        await app.json({ method: 'POST', url: '/users', payload: { name: 'policed-user', password: 'user-password', realmId } }, 201);
    });

    const token = (payload: Record<string, unknown>) => app.request({ method: 'POST', url: '/token', payload: { realm_id: realmId, ...payload }, as: null });
    const client = async (name: string, payload: Record<string, unknown> = {}) =>
        (await app.json<{ data: { id: string } }>({ method: 'POST', url: '/clients', payload: { name, realmId, ...payload } }, 201)).data.id;
    const setPolicy = (clientId: string, accessPolicyId: string | null) =>
        app.json({ method: 'POST', url: `/clients/${clientId}`, payload: { accessPolicyId } }, 200);
    const expectRefused = async (response: Awaited<ReturnType<typeof token>>, error: string) => {
        expect(response.statusCode, response.body).toBe(400);
        expect(response.json()).toMatchObject({ error, code: error });
    };
    const password = (extra: Record<string, unknown>) => token({ grant_type: 'password', username: 'policed-user', password: 'user-password', ...extra });
    const sessionsOf = async (clientId: string) => (await app.deps.db.selectFrom('auth_sessions').select('id').where('client_id', '=', clientId).execute()).length;

    it('a deny-all policy on a confidential client refuses the password and client_credentials grants; no session is made', async () => {
        const id = await client('policed-service', { secret: 'service-secret', accessPolicyId: denyAll });
        await expectRefused(await password({ client_id: id, client_secret: 'service-secret' }), 'invalid_grant');
        await expectRefused(await token({ grant_type: 'client_credentials', client_id: id, client_secret: 'service-secret' }), 'unauthorized_client');
        expect(await sessionsOf(id)).toBe(0);
        // an admitting policy lets both through
        await setPolicy(id, allowAll);
        expect((await password({ client_id: id, client_secret: 'service-secret' })).statusCode).toBe(200);
        expect((await token({ grant_type: 'client_credentials', client_id: id, client_secret: 'service-secret' })).statusCode).toBe(200);
    });

    it('a deny-all policy on a public client refuses the password grant', async () => {
        const id = await client('policed-public', { accessPolicyId: denyAll });
        await expectRefused(await password({ client_id: id }), 'invalid_grant');
        await setPolicy(id, null);
        expect((await password({ client_id: id })).statusCode).toBe(200);
    });

    it('a policy set after the login refuses the refresh, and leaves the refresh token usable once the policy admits again', async () => {
        const id = await client('policed-refresher');
        const login = await password({ client_id: id });
        expect(login.statusCode, login.body).toBe(200);
        const refreshToken = (login.json() as TokenAnswer).refresh_token!;
        await setPolicy(id, denyAll);
        await expectRefused(await token({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: id }), 'invalid_grant');
        await setPolicy(id, allowAll);
        const refreshed = await token({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: id });
        expect(refreshed.statusCode, refreshed.body).toBe(200);
    });

    it("a policy of another realm than the client's denies every login (spec Versioning)", async () => {
        const id = await client('policed-foreign', { secret: 'foreign-secret' });
        // the API refuses such a reference (400): a row written before that rule holds one
        await app.deps.db.updateTable('auth_clients').set({ access_policy_id: foreignAllowAll }).where('id', '=', id).execute();
        await expectRefused(await password({ client_id: id, client_secret: 'foreign-secret' }), 'invalid_grant');
        await expectRefused(await token({ grant_type: 'client_credentials', client_id: id, client_secret: 'foreign-secret' }), 'unauthorized_client');
    });
});
