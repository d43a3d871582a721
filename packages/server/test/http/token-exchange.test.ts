import { PermissionName, RealmScope, TOKEN_EXCHANGE_GRANT_TYPE } from '@realmgate/core';
import { decodeJwt } from 'jose';
import { beforeAll, expect, it } from 'vitest';
import { useTestApp } from '../app.js';
import { describeEachDialect } from '../databases.js';
import { createClient, createUser, grantDirect } from '../identities.js';
import { login, probe } from '../sessions.js';

/*
 * Token exchange (RFC 8693) within one realm: allowed only to a client the engine grants
 * `token_exchange`; impersonation and delegation (`act`, nested); never wider in scope, never
 * longer lived than the subject token; the subject token must be active and of the realm; the
 * audience narrowed by `resource` / `audience` (RFC 8707).
 */
const ACCESS = 'urn:ietf:params:oauth:token-type:access_token';
const API = 'https://api.example.com/';
const REPORTS = 'https://reports.example.com/';

type Client = Awaited<ReturnType<typeof createClient>>;
type Answer = { access_token: string; issued_token_type: string; token_type: string; expires_in: number; scope: string; refresh_token?: string; id_token?: string };

describeEachDialect('POST /token grant_type=token-exchange (RFC 8693)', (dialect) => {
    const app = useTestApp(dialect);
    let realmId: string;
    let exchanger: Client;
    let bystander: Client;
    let service: Client;
    let alice: Awaited<ReturnType<typeof createUser>>;
    let otherRealmId: string;
    let foreignExchanger: Client;
    let foreignUser: Awaited<ReturnType<typeof createUser>>;
    beforeAll(async () => {
        const realm = async (name: string) => (await app.json<{ data: { id: string } }>({ method: 'POST', url: '/realms', payload: { name } }, 201)).data.id;
        realmId = await realm('exchange-realm');
        otherRealmId = await realm('exchange-other');
        exchanger = await createClient(app, realmId, 'exchanger');
        bystander = await createClient(app, realmId, 'bystander');
        service = await createClient(app, realmId, 'service');
        await createClient(app, realmId, 'api', { audience: API });
        await createClient(app, realmId, 'reports', { audience: REPORTS });
        await grantDirect(app, { clientId: exchanger.id }, PermissionName.TOKEN_EXCHANGE, RealmScope.OWN);
        alice = await createUser(app, realmId, 'alice');
        foreignExchanger = await createClient(app, otherRealmId, 'foreign-exchanger');
        await grantDirect(app, { clientId: foreignExchanger.id }, PermissionName.TOKEN_EXCHANGE, RealmScope.OWN);
        foreignUser = await createUser(app, otherRealmId, 'foreign-user');
    });

    const token = (payload: Record<string, string>, authorization?: string) => app.request({
        method: 'POST', url: '/token', as: null,
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...(authorization ? { authorization } : {}) },
        payload: new URLSearchParams(payload).toString(),
    });
    const exchange = (subjectToken: string, extra: Record<string, string> = {}, client: Client = exchanger) => token({
        grant_type: TOKEN_EXCHANGE_GRANT_TYPE, subject_token: subjectToken, subject_token_type: ACCESS, ...extra,
    }, client.header);
    const aliceToken = async () => (await login(app, realmId, alice.name, alice.password)).accessToken;
    const serviceToken = async (extra: Record<string, string> = {}) =>
        ((await token({ grant_type: 'client_credentials', ...extra }, service.header)).json() as { access_token: string }).access_token;
    const expectError = (response: Awaited<ReturnType<typeof token>>, error: string, status = 400) => {
        expect(response.statusCode, response.body).toBe(status);
        expect(response.json()).toMatchObject({ error });
    };

    it('impersonation: a token of the subject issued to the exchanging client, under the subject token\'s session, never outliving it', async () => {
        const subjectToken = await aliceToken();
        const response = await exchange(subjectToken);
        expect(response.statusCode, response.body).toBe(200);
        expect(response.headers['cache-control']).toBe('no-store');
        const answer = response.json() as Answer;
        expect(answer).toMatchObject({ issued_token_type: ACCESS, token_type: 'Bearer', scope: 'global' });
        expect(answer.refresh_token).toBeUndefined();
        expect(answer.id_token).toBeUndefined();
        const subject = decodeJwt(subjectToken);
        const issued = decodeJwt(answer.access_token);
        expect(issued).toMatchObject({ sub: alice.id, sub_kind: 'user', client_id: exchanger.id, realm_id: realmId, scope: 'global' });
        expect(issued.act).toBeUndefined();
        // issued after the subject token with the same lifetime: capped at the subject token's exp
        expect(issued.exp).toBe(subject.exp);
        expect(answer.expires_in).toBe(issued.exp! - issued.iat!);
        const session = await app.deps.db.selectFrom('auth_sessions').selectAll().where('id', '=', issued.session_id as string).executeTakeFirstOrThrow();
        expect(session).toMatchObject({ parent_id: subject.session_id, client_id: exchanger.id, sub: alice.id });
        expect(await probe(app, `Bearer ${answer.access_token}`)).toBe(200);
    });

    it('delegation: the actor token\'s subject in act, an existing act nested under the new actor', async () => {
        const actorToken = await serviceToken();
        const delegated = await exchange(await aliceToken(), { actor_token: actorToken, actor_token_type: ACCESS });
        expect(delegated.statusCode, delegated.body).toBe(200);
        const first = decodeJwt((delegated.json() as Answer).access_token);
        expect(first).toMatchObject({ sub: alice.id, act: { sub: service.id, sub_kind: 'client', client_id: service.id } });
        // the delegated token exchanged again, the exchanger acting for it now
        const exchangerToken = ((await token({ grant_type: 'client_credentials' }, exchanger.header)).json() as { access_token: string }).access_token;
        const again = await exchange((delegated.json() as Answer).access_token, { actor_token: exchangerToken, actor_token_type: ACCESS });
        expect(again.statusCode, again.body).toBe(200);
        expect(decodeJwt((again.json() as Answer).access_token).act).toEqual({
            sub: exchanger.id, sub_kind: 'client', client_id: exchanger.id, act: { sub: service.id, sub_kind: 'client', client_id: service.id },
        });
        // impersonating a delegated token keeps its actor; introspection reports it
        const kept = (await exchange((delegated.json() as Answer).access_token)).json() as Answer;
        expect(decodeJwt(kept.access_token).act).toEqual(first.act);
        const described = await app.request({
            method: 'POST', url: '/token/introspect', as: exchanger.header, headers: { 'content-type': 'application/x-www-form-urlencoded' },
            payload: new URLSearchParams({ token: kept.access_token }).toString(),
        });
        expect(described.json()).toMatchObject({ active: true, sub: alice.id, act: { sub: service.id } });
    });

    it('beyond the permission: a client without token_exchange, or a public client, is refused', async () => {
        const subjectToken = await aliceToken();
        expectError(await exchange(subjectToken, {}, bystander), 'unauthorized_client');
        const spa = (await app.json<{ data: { id: string } }>({ method: 'POST', url: '/clients', payload: { name: 'exchange-spa', realmId } }, 201)).data.id;
        const publicClient = await token({ grant_type: TOKEN_EXCHANGE_GRANT_TYPE, client_id: spa, subject_token: subjectToken, subject_token_type: ACCESS });
        expect(publicClient.statusCode, publicClient.body).toBe(400);
        expect(publicClient.json()).toMatchObject({ error: 'unauthorized_client' });
        // a permission whose reach covers no realm does not allow it here
        const elsewhere = await createClient(app, realmId, 'exchanger-elsewhere');
        await grantDirect(app, { clientId: elsewhere.id }, PermissionName.TOKEN_EXCHANGE, RealmScope.NONE);
        expectError(await exchange(subjectToken, {}, elsewhere), 'unauthorized_client');
    });

    it('across realms: a subject or actor token of another realm is refused, whichever client presents it', async () => {
        const foreignToken = (await login(app, otherRealmId, foreignUser.name, foreignUser.password)).accessToken;
        expectError(await exchange(foreignToken), 'invalid_grant');
        expectError(await exchange(await aliceToken(), {}, foreignExchanger), 'invalid_grant');
        expectError(await exchange(await aliceToken(), { actor_token: foreignToken, actor_token_type: ACCESS }), 'invalid_grant');
        // naming the other realm does not help: the client does not authenticate there
        expectError(await exchange(foreignToken, { realm_id: otherRealmId }), 'invalid_client', 401);
    });

    it('never out-scopes the subject token: a wider scope is invalid_scope, a narrower one is issued', async () => {
        const subjectToken = await serviceToken({ scope: 'openid email' });
        expect(decodeJwt(subjectToken).scope).toBe('openid email');
        expectError(await exchange(subjectToken, { scope: 'openid email global' }), 'invalid_scope');
        const narrowed = await exchange(subjectToken, { scope: 'email' });
        expect(narrowed.statusCode, narrowed.body).toBe(200);
        expect((narrowed.json() as Answer).scope).toBe('email');
        expect(decodeJwt((narrowed.json() as Answer).access_token).scope).toBe('email');
    });

    it('a revoked subject session is invalid_grant, and revoking it ends the exchanged token', async () => {
        const subjectToken = await aliceToken();
        const exchanged = (await exchange(subjectToken)).json() as Answer;
        const sessionId = decodeJwt(subjectToken).session_id as string;
        expect((await app.request({ method: 'DELETE', url: `/sessions/${sessionId}` })).statusCode).toBe(200);
        expectError(await exchange(subjectToken), 'invalid_grant');
        expect(await probe(app, `Bearer ${exchanged.access_token}`)).toBe(401);
        // an actor token that is not active is refused alike
        const actorToken = await serviceToken();
        await app.request({ method: 'DELETE', url: `/sessions/${decodeJwt(actorToken).session_id as string}` });
        expectError(await exchange(await aliceToken(), { actor_token: actorToken, actor_token_type: ACCESS }), 'invalid_grant');
        expectError(await exchange('not-a-token'), 'invalid_grant');
    });

    it('narrows the audience by resource or audience, within the subject token\'s; unknown targets are invalid_target', async () => {
        const subjectToken = await aliceToken();
        for (const parameter of ['resource', 'audience']) {
            const narrowed = await exchange(subjectToken, { [parameter]: API });
            expect(narrowed.statusCode, narrowed.body).toBe(200);
            expect(decodeJwt((narrowed.json() as Answer).access_token).aud).toBe(API);
        }
        expectError(await exchange(subjectToken, { resource: 'https://unknown.example.com/' }), 'invalid_target');
        expectError(await exchange(subjectToken, { resource: API, audience: REPORTS }), 'invalid_target');
        // a subject token narrowed to the API: the exchange keeps it and may not leave it
        const apiToken = (await exchange(subjectToken, { resource: API })).json() as Answer;
        expectError(await exchange(apiToken.access_token, { resource: REPORTS }), 'invalid_target');
        const kept = await exchange(apiToken.access_token);
        expect(decodeJwt((kept.json() as Answer).access_token).aud).toBe(API);
    });

    it('validates its parameters (RFC 8693 §2.1)', async () => {
        const subjectToken = await aliceToken();
        expectError(await token({ grant_type: TOKEN_EXCHANGE_GRANT_TYPE, subject_token: subjectToken }, exchanger.header), 'invalid_request');
        expectError(await exchange(subjectToken, { subject_token_type: 'urn:ietf:params:oauth:token-type:id_token' }), 'invalid_request');
        expectError(await exchange(subjectToken, { actor_token: await serviceToken() }), 'invalid_request');
        expectError(await exchange(subjectToken, { actor_token_type: ACCESS }), 'invalid_request');
        expectError(await exchange(subjectToken, { requested_token_type: 'urn:ietf:params:oauth:token-type:refresh_token' }), 'invalid_request');
        const refreshToken = (await login(app, realmId, alice.name, alice.password)).refreshToken;
        expectError(await exchange(refreshToken), 'invalid_grant');
    });

    it('logs the issuance like every other grant', async () => {
        const answer = (await exchange(await aliceToken())).json() as Answer;
        await app.deps.events.settled();
        const rows = await app.deps.db.selectFrom('auth_events').select(['name', 'data', 'actor_id'])
            .where('ref_id', '=', decodeJwt(answer.access_token).session_id as string).execute();
        const issued = rows.find((row) => row.name === 'tokenIssued');
        expect(issued?.actor_id).toBe(alice.id);
        expect(JSON.parse(String(issued?.data))).toMatchObject({ grantType: TOKEN_EXCHANGE_GRANT_TYPE, clientId: exchanger.id });
        expect(rows.map((row) => row.name)).toContain('session.created');
    });
});
