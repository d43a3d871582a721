import { decodeJwt } from 'jose';
import { beforeAll, expect, it } from 'vitest';
import { ADMIN, useTestApp } from '../../test/app.js';
import { describeEachDialect } from '../../test/databases.js';

type TokenAnswer = { access_token: string; refresh_token?: string };
type Client = { id: string; name: string };

describeEachDialect('POST /token/revoke (RFC 7009)', (dialect) => {
    const app = useTestApp(dialect);
    let realm: { id: string; name: string };
    let other: { id: string; name: string };
    let web: Client;
    let rival: Client;
    let spa: Client;
    beforeAll(async () => {
        const createRealm = async (name: string) =>
            (await app.json<{ data: { id: string; name: string } }>({ method: 'POST', url: '/realms', payload: { name } }, 201)).data;
        realm = await createRealm('revoke-realm');
        other = await createRealm('revoke-other');
        const createClient = async (payload: Record<string, unknown>) =>
            (await app.json<{ data: Client }>({ method: 'POST', url: '/clients', payload: { realmId: realm.id, ...payload } }, 201)).data;
        web = await createClient({ name: 'web', secret: 'web-secret' });
        rival = await createClient({ name: 'rival', secret: 'rival-secret' });
        spa = await createClient({ name: 'spa' });
        await app.json({ method: 'POST', url: '/users', payload: { name: 'alice', password: 'alice-password', realmId: realm.id } }, 201);
        await app.json({ method: 'POST', url: '/users', payload: { name: 'bob', password: 'bob-password', realmId: realm.id } }, 201);
    });

    const issue = async (payload: Record<string, unknown>, headers: Record<string, string> = {}): Promise<TokenAnswer> => {
        const response = await app.request({ method: 'POST', url: '/token', payload, headers, as: null });
        expect(response.statusCode, response.body).toBe(200);
        return response.json() as TokenAnswer;
    };
    const aliceVia = (client: Client, secret?: string) => issue({
        grant_type: 'password', username: 'alice', password: 'alice-password', realm_id: realm.id,
        client_id: client.id, ...(secret ? { client_secret: secret } : {}),
    });
    const revoke = (payload: Record<string, unknown> | string, authorization?: string, url = '/token/revoke') => app.request({
        method: 'POST', url, payload, as: authorization ?? null,
        ...(typeof payload === 'string' ? { headers: { 'content-type': 'application/x-www-form-urlencoded' } } : {}),
    });
    const expectRevokeAnswer = (response: Awaited<ReturnType<typeof revoke>>) => {
        expect(response.statusCode, response.body).toBe(200);
        expect(response.body).toBe('');
        expect(response.headers['cache-control']).toBe('no-store');
    };
    const expectOAuthError = (response: Awaited<ReturnType<typeof revoke>>, status: number, error: string) => {
        expect(response.statusCode, response.body).toBe(status);
        expect(response.headers['cache-control']).toBe('no-store');
        expect(response.json()).toMatchObject({ statusCode: status, code: error, error, error_description: expect.any(String) });
    };
    const bearer = (accessToken: string, url = '/users/@me') => app.request({ method: 'GET', url, as: `Bearer ${accessToken}` });
    const sessionOf = (token: string) => app.deps.db.selectFrom('auth_sessions').selectAll()
        .where('id', '=', decodeJwt(token).session_id as string).executeTakeFirstOrThrow();
    // the chain's row names its usable token by jti (storage/session-tokens.ts)
    const refreshRow = (token: string) => app.deps.db.selectFrom('auth_session_tokens').select('id')
        .where('jti', '=', decodeJwt(token).jti!).executeTakeFirst();
    const expectLive = async (tokens: TokenAnswer, url?: string) => {
        expect((await bearer(tokens.access_token, url)).statusCode).toBe(200);
        expect((await sessionOf(tokens.access_token)).revoked_at).toBeNull();
    };

    it('revokes a refresh token (form body, Basic): its row is gone and its session ends', async () => {
        const tokens = await aliceVia(web, 'web-secret');
        await expectLive(tokens);
        expect(await refreshRow(tokens.refresh_token!)).toBeDefined();
        expectRevokeAnswer(await revoke(`token=${tokens.refresh_token!}&token_type_hint=refresh_token`, app.basic(web.id, 'web-secret')));
        expect(await refreshRow(tokens.refresh_token!)).toBeUndefined();
        expect((await sessionOf(tokens.access_token)).revoked_at).not.toBeNull();
        const next = await bearer(tokens.access_token);
        expect(next.statusCode).toBe(401);
        expect(next.json()).toMatchObject({ code: 'inactive_token' });
        const refreshed = await app.request({
            method: 'POST', url: '/token', as: null,
            payload: { grant_type: 'refresh_token', refresh_token: tokens.refresh_token!, client_id: web.id, client_secret: 'web-secret' },
        });
        expect(refreshed.json()).toMatchObject({ error: 'invalid_grant' });
        // revoking again is no error (RFC 7009 §2.2)
        expectRevokeAnswer(await revoke({ token: tokens.refresh_token! }, app.basic(web.id, 'web-secret')));
    });

    it('revokes an access token (JSON body credentials, a misleading hint) and a public client its own token', async () => {
        const service = await issue({ grant_type: 'client_credentials', realm_id: realm.id }, { authorization: app.basic(web.id, 'web-secret') });
        await expectLive(service, '/clients/@me');
        expectRevokeAnswer(await revoke({ token: service.access_token, token_type_hint: 'refresh_token', client_id: 'web', client_secret: 'web-secret', realm_id: realm.id }));
        expect((await bearer(service.access_token, '/clients/@me')).statusCode).toBe(401);
        const publicTokens = await aliceVia(spa);
        expectRevokeAnswer(await revoke({ token: publicTokens.access_token, client_id: spa.id }));
        expect((await bearer(publicTokens.access_token)).statusCode).toBe(401);
    });

    it('answers 200 and revokes nothing for a token of another client, another realm, or an unknown one', async () => {
        const tokens = await aliceVia(web, 'web-secret');
        expectRevokeAnswer(await revoke({ token: tokens.refresh_token! }, app.basic(rival.id, 'rival-secret')));
        expectRevokeAnswer(await revoke({ token: tokens.access_token, client_id: spa.id }));
        await expectLive(tokens);
        expect(await refreshRow(tokens.refresh_token!)).toBeDefined();
        const foreignClient = (await app.json<{ data: Client }>({ method: 'POST', url: '/clients', payload: { realmId: other.id, name: 'web', secret: 'x-secret' } }, 201)).data;
        const foreign = await issue({ grant_type: 'client_credentials', realm_id: other.id }, { authorization: app.basic(foreignClient.id, 'x-secret') });
        expectRevokeAnswer(await revoke({ token: foreign.access_token }, app.basic(web.id, 'web-secret')));
        await expectLive(foreign, '/clients/@me');
        for (const token of ['garbage', `${tokens.access_token.slice(0, -4)}AAAA`, 'a.b.c']) {
            expectRevokeAnswer(await revoke({ token }, app.basic(web.id, 'web-secret')));
        }
        await expectLive(tokens);
    });

    it('lets only the subject (by Basic) revoke a token issued without a client', async () => {
        const admin = await issue({ grant_type: 'password', username: ADMIN.name, password: ADMIN.password });
        const alice = await issue({ grant_type: 'password', username: 'alice', password: 'alice-password', realm_id: realm.id });
        // another user, a client of the realm: nothing happens
        expectRevokeAnswer(await revoke({ token: alice.access_token, realm_id: realm.id }, app.basic('bob', 'bob-password')));
        expectRevokeAnswer(await revoke({ token: alice.access_token }, app.basic(web.id, 'web-secret')));
        expectRevokeAnswer(await revoke({ token: admin.refresh_token!, realm_id: realm.id }, app.basic('alice', 'alice-password')));
        await expectLive(alice);
        await expectLive(admin);
        expectRevokeAnswer(await revoke({ token: alice.refresh_token!, realm_name: realm.name }, app.basic('alice', 'alice-password')));
        expect((await bearer(alice.access_token)).statusCode).toBe(401);
        expectRevokeAnswer(await revoke({ token: admin.access_token }, app.basic(ADMIN.name, ADMIN.password)));
        expect((await bearer(admin.access_token)).statusCode).toBe(401);
    });

    it('revokes a token whose signing key is disabled, so re-enabling the key does not revive it', async () => {
        const tokens = await aliceVia(web, 'web-secret');
        const kid = (await app.deps.keys.activeSigningKey(app.deps.db, realm.id))!.kid;
        await app.json({ method: 'POST', url: `/keys/${kid}`, payload: { status: 'disabled' } }, 200);
        expectRevokeAnswer(await revoke({ token: tokens.access_token }, app.basic(web.id, 'web-secret')));
        await app.json({ method: 'POST', url: `/keys/${kid}`, payload: { status: 'active' } }, 200);
        expect((await bearer(tokens.access_token)).statusCode).toBe(401);
    });

    it('refuses a token in the query, a missing token and failed client authentication', async () => {
        const tokens = await aliceVia(web, 'web-secret');
        const inQuery = await revoke({}, app.basic(web.id, 'web-secret'), `/token/revoke?token=${tokens.access_token}`);
        expectOAuthError(inQuery, 400, 'invalid_request');
        expectOAuthError(await revoke({ token: tokens.access_token }, app.basic(web.id, 'web-secret'), '/token/revoke?token=x'), 400, 'invalid_request');
        expectOAuthError(await revoke({}, app.basic(web.id, 'web-secret')), 400, 'invalid_request');
        expectOAuthError(await revoke({ token: ['a', 'b'] }, app.basic(web.id, 'web-secret')), 400, 'invalid_request');
        const anonymous = await revoke({ token: tokens.access_token });
        expectOAuthError(anonymous, 401, 'invalid_client');
        expect(anonymous.headers['www-authenticate']).toMatch(/^Basic/);
        expectOAuthError(await revoke({ token: tokens.access_token }, app.basic(web.id, 'wrong')), 401, 'invalid_client');
        expectOAuthError(await revoke({ token: tokens.access_token }, app.basic('alice', 'wrong')), 401, 'invalid_client');
        expectOAuthError(await revoke({ token: tokens.access_token, client_id: web.id }), 401, 'invalid_client');
        expectOAuthError(await revoke({ token: tokens.access_token, client_id: web.id, client_secret: 'web-secret' }, app.basic(web.id, 'web-secret')), 400, 'invalid_request');
        expectOAuthError(await revoke({ token: tokens.access_token, realm_name: 'no-such-realm' }, app.basic(web.id, 'web-secret')), 400, 'invalid_request');
        await expectLive(tokens);
    });
});
