import { PermissionName, RealmScope } from '@realmgate/core';
import { decodeJwt } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../../test/app.js';
import { describeEachDialect } from '../../../test/databases.js';
import {
    adjustDeviceCode, authorizeDevice, DEVICE_GRANT, deviceCodeRow, poll, pollError, requestDeviceAuthorization, verify, type DeviceClient,
} from '../../../test/device-flow.js';
import { createRealm } from '../../../test/grant-fixtures.js';
import { createClient, createUser, grantDirect } from '../../../test/identities.js';
import { login, probe } from '../../../test/sessions.js';
import { USER_CODE_ALPHABET } from './codes.js';

describeEachDialect('device authorization grant (RFC 8628)', (dialect) => {
    const app = useTestApp(dialect, { publicUrl: 'https://id.example.com' });
    let realm: string;
    let user: { id: string; name: string; password: string; header: string };
    let confidential: DeviceClient;
    let publicClient: DeviceClient;

    beforeAll(async () => {
        realm = await createRealm(app);
        user = await createUser(app, realm);
        const tv = await createClient(app, realm, undefined, { grantTypes: [DEVICE_GRANT, 'refresh_token'] });
        confidential = { id: tv.id, secret: tv.secret };
        publicClient = (await app.json<{ data: { id: string } }>({
            method: 'POST', url: '/clients', payload: { name: 'cli', realmId: realm, grantTypes: [DEVICE_GRANT] },
        }, 201)).data;
    });

    const bearer = async () => (await login(app, realm, user.name, user.password)).bearer;

    describe.each([['confidential', () => confidential], ['public', () => publicClient]] as const)('the whole flow with a %s client', (_kind, clientOf) => {
        it('authorize → pending → approve by a user bearer → tokens once → invalid_grant', async () => {
            const client = clientOf();
            const started = await authorizeDevice(app, client, { scope: 'openid global' });
            expect(started).toMatchObject({ verification_uri: 'https://id.example.com/device', expires_in: 600, interval: 5 });
            expect(started.user_code).toMatch(new RegExp(`^[${USER_CODE_ALPHABET}]{4}-[${USER_CODE_ALPHABET}]{4}$`));
            expect(started.verification_uri_complete).toBe(`https://id.example.com/device?user_code=${started.user_code}`);
            expect(Buffer.from(started.device_code, 'base64url')).toHaveLength(32);
            // only digests are stored
            const row = await deviceCodeRow(app, started.device_code);
            expect(JSON.stringify(row)).not.toContain(started.device_code);
            expect(JSON.stringify(row)).not.toContain(started.user_code.replace('-', ''));

            expect(await pollError(app, client, started.device_code)).toMatchObject({ error: 'authorization_pending', code: 'authorization_pending' });
            const userBearer = await bearer();
            // lower case and without the dash: the same code
            const typed = started.user_code.toLowerCase().replace('-', '');
            const looked = await verify(app, 'lookup', userBearer, typed);
            expect(looked.statusCode, looked.body).toBe(200);
            expect(looked.json().data).toMatchObject({ client: { id: client.id }, scopes: ['openid', 'global'] });
            expect(looked.body).not.toContain(started.device_code);
            expect((await verify(app, 'approve', userBearer, started.user_code)).statusCode).toBe(200);

            const success = await poll(app, client, started.device_code);
            expect(success.statusCode, success.body).toBe(200);
            const tokens = success.json() as { access_token: string; refresh_token: string; id_token: string; scope: string };
            expect(tokens.scope).toBe('openid global');
            expect(tokens.refresh_token).toBeTypeOf('string');
            expect(decodeJwt(tokens.id_token)).toMatchObject({ sub: user.id, aud: client.id });
            expect(decodeJwt(tokens.access_token)).toMatchObject({ sub: user.id, client_id: client.id });
            expect(await probe(app, `Bearer ${tokens.access_token}`)).toBe(200);
            // a new session of the client, its parent the session the user approved in
            const session = await app.deps.db.selectFrom('auth_sessions').selectAll()
                .where('id', '=', decodeJwt(tokens.access_token).session_id as string).executeTakeFirstOrThrow();
            expect(session.client_id).toBe(client.id);
            expect(session.parent_id).toBe(decodeJwt(userBearer.slice(7)).session_id);

            expect(await pollError(app, client, started.device_code)).toMatchObject({ error: 'invalid_grant' });
            // decided: the user code names nothing any more
            expect((await verify(app, 'lookup', userBearer, started.user_code)).statusCode).toBe(404);
        });

        it('deny → access_denied at every later poll', async () => {
            const client = clientOf();
            const started = await authorizeDevice(app, client);
            expect((await verify(app, 'deny', await bearer(), started.user_code)).statusCode).toBe(200);
            expect(await pollError(app, client, started.device_code)).toMatchObject({ error: 'access_denied', code: 'access_denied' });
            expect(await pollError(app, client, started.device_code)).toMatchObject({ error: 'access_denied' });
        });
    });

    it('an expired code answers device_code_expired with the RFC error expired_token, and cannot be approved', async () => {
        const started = await authorizeDevice(app, confidential);
        await adjustDeviceCode(app, started.device_code, { expiresAt: new Date(Date.now() - 1000) });
        expect(await pollError(app, confidential, started.device_code)).toMatchObject({ code: 'device_code_expired', error: 'expired_token' });
        expect((await verify(app, 'approve', await bearer(), started.user_code, '10.0.1.1')).statusCode).toBe(404);
    });

    it('slow_down when polled within the interval, and the interval grows by 5 s each time (stored)', async () => {
        const started = await authorizeDevice(app, publicClient);
        expect(await pollError(app, publicClient, started.device_code)).toMatchObject({ error: 'authorization_pending' });
        expect(await pollError(app, publicClient, started.device_code)).toMatchObject({ error: 'slow_down', code: 'slow_down' });
        expect(Number((await deviceCodeRow(app, started.device_code)).poll_interval)).toBe(10);
        expect(await pollError(app, publicClient, started.device_code)).toMatchObject({ error: 'slow_down' });
        expect(Number((await deviceCodeRow(app, started.device_code)).poll_interval)).toBe(15);
        // 14 s after the last poll is still too soon; 16 s is not, and the interval stays
        await adjustDeviceCode(app, started.device_code, { polledAt: new Date(Date.now() - 14_000) });
        expect(await pollError(app, publicClient, started.device_code)).toMatchObject({ error: 'slow_down' });
        await adjustDeviceCode(app, started.device_code, { polledAt: new Date(Date.now() - 21_000) });
        expect(await pollError(app, publicClient, started.device_code)).toMatchObject({ error: 'authorization_pending' });
        expect(Number((await deviceCodeRow(app, started.device_code)).poll_interval)).toBe(20);
    });

    it('refuses a client that does not list the URN, grantTypes null included (unauthorized_client)', async () => {
        const listed = await createClient(app, realm, undefined, { grantTypes: ['client_credentials'] });
        const unset = await createClient(app, realm);
        for (const client of [listed, unset]) {
            const response = await requestDeviceAuthorization(app, { id: client.id, secret: client.secret });
            expect(response.statusCode, response.body).toBe(400);
            expect(response.json()).toMatchObject({ error: 'unauthorized_client' });
            // nor may it poll with another client's code
            const started = await authorizeDevice(app, confidential);
            expect(await pollError(app, { id: client.id, secret: client.secret }, started.device_code)).toMatchObject({ error: 'unauthorized_client' });
        }
        expect(await app.deps.db.selectFrom('auth_device_codes').select('id').where('client_id', 'in', [listed.id, unset.id]).execute()).toEqual([]);
    });

    it('a code polled by another device client is invalid_grant; a wrong secret is invalid_client', async () => {
        const started = await authorizeDevice(app, confidential);
        expect(await pollError(app, publicClient, started.device_code)).toMatchObject({ error: 'invalid_grant' });
        expect(await pollError(app, publicClient, 'not-a-device-code')).toMatchObject({ error: 'invalid_grant' });
        expect((await requestDeviceAuthorization(app, { id: confidential.id, secret: 'wrong' })).statusCode).toBe(401);
        expect((await app.request({ method: 'POST', url: '/device_authorization', as: null, payload: {} })).json()).toMatchObject({ error: 'invalid_client' });
    });

    it('approval with a bearer issued to a client is 400 login_required; lookup accepts it; Basic approves', async () => {
        const web = await createClient(app, realm);
        const clientBearer = (await login(app, realm, user.name, user.password, { client_id: web.id, client_secret: web.secret })).bearer;
        const started = await authorizeDevice(app, confidential, { scope: 'global' });
        expect((await verify(app, 'lookup', clientBearer, started.user_code)).statusCode).toBe(200);
        const refused = await verify(app, 'approve', clientBearer, started.user_code);
        expect(refused.statusCode).toBe(400);
        expect(refused.json()).toMatchObject({ code: 'login_required' });
        expect(await pollError(app, confidential, started.device_code)).toMatchObject({ error: 'authorization_pending' });
        // spec Authentication 7: Basic is unaffected (no session: the new one has no parent)
        expect((await verify(app, 'approve', user.header, started.user_code)).statusCode).toBe(200);
        const success = await poll(app, confidential, started.device_code);
        expect(success.statusCode, success.body).toBe(200);
        // a client is no user: it cannot enter codes at all
        const service = await createClient(app, realm);
        expect((await verify(app, 'lookup', service.header, started.user_code)).statusCode).toBe(403);
    });

    it('a code approved in a session since ended (sign-out, deactivation) is not redeemed (spec Authentication 12)', async () => {
        const signedIn = await login(app, realm, user.name, user.password);
        const started = await authorizeDevice(app, confidential);
        expect((await verify(app, 'approve', signedIn.bearer, started.user_code)).statusCode).toBe(200);
        expect((await app.request({ method: 'DELETE', url: `/sessions/${signedIn.sessionId}`, as: signedIn.bearer })).statusCode).toBe(200);
        expect(await pollError(app, confidential, started.device_code)).toMatchObject({ error: 'invalid_grant' });

        const other = await createUser(app, realm);
        const session = await login(app, realm, other.name, other.password);
        const second = await authorizeDevice(app, confidential);
        expect((await verify(app, 'approve', session.bearer, second.user_code)).statusCode).toBe(200);
        await app.json({ method: 'POST', url: `/users/${other.id}`, payload: { active: false } }, 200);
        expect(await pollError(app, confidential, second.device_code)).toMatchObject({ error: 'invalid_grant' });
    });

    it("the client's access policy applies at approval (403 access_denied) and again at issuance (invalid_grant)", async () => {
        const policy = async (name: string, invert: boolean) =>
            (await app.json<{ data: { id: string } }>({ method: 'POST', url: '/policies', payload: { type: 'identity', name, realmId: realm, invert } }, 201)).data.id;
        const [denyAll, allowAll] = [await policy(`deny-${confidential.id}`, true), await policy(`allow-${confidential.id}`, false)];
        const policed = await createClient(app, realm, undefined, { grantTypes: [DEVICE_GRANT], accessPolicyId: denyAll });
        const client = { id: policed.id, secret: policed.secret };
        const started = await authorizeDevice(app, client);
        const userBearer = await bearer();
        const refused = await verify(app, 'approve', userBearer, started.user_code);
        expect(refused.statusCode).toBe(403);
        expect(refused.json()).toMatchObject({ code: 'access_denied' });
        await app.json({ method: 'POST', url: `/clients/${policed.id}`, payload: { accessPolicyId: allowAll } }, 200);
        expect((await verify(app, 'approve', userBearer, started.user_code)).statusCode).toBe(200);
        // changed between the approval and the poll: nothing is issued
        await app.json({ method: 'POST', url: `/clients/${policed.id}`, payload: { accessPolicyId: denyAll } }, 200);
        expect(await pollError(app, client, started.device_code)).toMatchObject({ error: 'invalid_grant' });
        expect(await app.deps.db.selectFrom('auth_sessions').select('id').where('client_id', '=', policed.id).execute()).toEqual([]);
    });

    it('a client authenticating with Basic may repeat its own client_id (RFC 8628 §3.1), never another one', async () => {
        const as = app.basic(confidential.id, confidential.secret!);
        const same = await app.request({ method: 'POST', url: '/device_authorization', as, payload: { client_id: confidential.id } });
        expect(same.statusCode, same.body).toBe(200);
        const other = await app.request({ method: 'POST', url: '/device_authorization', as, payload: { client_id: publicClient.id } });
        expect(other.statusCode).toBe(400);
        expect(other.json()).toMatchObject({ error: 'invalid_request' });
    });

    it('a password change from another session ends the approving one: the code is not redeemed (spec Authentication 12)', async () => {
        const changer = await createUser(app, realm);
        await grantDirect(app, { userId: changer.id }, PermissionName.USER_SELF_MANAGE, RealmScope.OWN);
        const approving = await login(app, realm, changer.name, changer.password);
        const current = await login(app, realm, changer.name, changer.password);
        const started = await authorizeDevice(app, confidential);
        expect((await verify(app, 'approve', approving.bearer, started.user_code)).statusCode).toBe(200);
        const changed = await app.request({
            method: 'POST', url: '/users/@me/password', as: current.bearer, payload: { currentPassword: changer.password, password: 'a-new-password-1' },
        });
        expect(changed.statusCode, changed.body).toBe(200);
        expect(await pollError(app, confidential, started.device_code)).toMatchObject({ error: 'invalid_grant' });
    });

    it('two polls racing for an approved code: exactly one receives tokens; a poll without a client is invalid_client', async () => {
        const started = await authorizeDevice(app, confidential);
        expect((await verify(app, 'approve', await bearer(), started.user_code)).statusCode).toBe(200);
        const answers = await Promise.all([poll(app, confidential, started.device_code), poll(app, confidential, started.device_code)]);
        expect(answers.map((answer) => answer.statusCode).sort()).toEqual([200, 400]);
        const anonymous = await app.request({ method: 'POST', url: '/token', as: null, payload: { grant_type: DEVICE_GRANT, device_code: started.device_code } });
        expect(anonymous.statusCode).toBe(401);
        expect(anonymous.json()).toMatchObject({ error: 'invalid_client' });
    });

    it('realm isolation: a user of another realm gets the unknown-code answer', async () => {
        const started = await authorizeDevice(app, confidential);
        const realmB = await createRealm(app);
        const stranger = await createUser(app, realmB);
        const strangerBearer = (await login(app, realmB, stranger.name, stranger.password)).bearer;
        const unknown = await verify(app, 'lookup', strangerBearer, 'BCDF-GHJK', '10.0.2.1');
        expect(unknown.statusCode).toBe(404);
        for (const action of ['lookup', 'approve', 'deny'] as const) {
            const response = await verify(app, action, strangerBearer, started.user_code, '10.0.2.1');
            expect(response.statusCode).toBe(404);
            expect(response.json()).toMatchObject({ code: unknown.json().code, message: unknown.json().message });
        }
        expect(await pollError(app, confidential, started.device_code)).toMatchObject({ error: 'authorization_pending' });
    });

    it('validates the verification body (400 with issues)', async () => {
        const response = await app.request({ method: 'POST', url: '/device_authorization/lookup', as: await bearer(), payload: { user_code: 5 } });
        expect(response.statusCode).toBe(400);
        expect(response.json().issues).toBeDefined();
    });

    it('the realm discovery document names the device endpoint and grant (RFC 8628 §4)', async () => {
        const name = (await app.json<{ data: { name: string } }>({ method: 'GET', url: `/realms/${realm}` }, 200)).data.name;
        const document = await app.json<{ device_authorization_endpoint: string; grant_types_supported: string[] }>({
            method: 'GET', url: `/realms/${name}/.well-known/openid-configuration`, as: null,
        }, 200);
        expect(document.device_authorization_endpoint).toBe('https://id.example.com/device_authorization');
        expect(document.grant_types_supported).toContain(DEVICE_GRANT);
    });
});
