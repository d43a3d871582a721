import { createLocalJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify, type JSONWebKeySet } from 'jose';
import { beforeAll, expect, it } from 'vitest';
import { ADMIN, useTestApp } from '../../test/app.js';
import { describeEachDialect } from '../../test/databases.js';

type TokenAnswer = { access_token: string; token_type: string; expires_in: number; refresh_token?: string; scope: string };
type Client = { id: string; name: string };

describeEachDialect('POST /token: password and client_credentials grants', (dialect) => {
    const app = useTestApp(dialect);
    let realmId: string;
    let confidential: Client;
    beforeAll(async () => {
        // through the API: a realm comes with its signing key
        realmId = (await app.json<{ data: { id: string } }>({ method: 'POST', url: '/realms', payload: { name: 'token-realm' } }, 201)).data.id;
        confidential = await createClient({ name: 'service', secret: 'service-secret' });
    });

    async function createClient(payload: Record<string, unknown>): Promise<Client> {
        return (await app.json<{ data: Client }>({ method: 'POST', url: '/clients', payload: { realmId, ...payload } }, 201)).data;
    }
    const token = (payload: unknown, headers: Record<string, string> = {}) =>
        app.request({ method: 'POST', url: '/token', payload: payload as Record<string, unknown>, headers, as: null });
    /** RFC 6749 §5.2 error shape beside API.md §1, never cached */
    const expectOAuthError = (response: Awaited<ReturnType<typeof token>>, status: number, error: string) => {
        expect(response.statusCode, response.body).toBe(status);
        expect(response.headers['cache-control']).toBe('no-store');
        expect(response.json()).toMatchObject({ statusCode: status, code: error, error, error_description: expect.any(String), message: expect.any(String) });
    };

    it('issues a password-grant token for the bootstrap admin that verifies against the realm JWKS and works as a bearer', async () => {
        const response = await token({ grant_type: 'password', username: ADMIN.name, password: ADMIN.password });
        expect(response.statusCode, response.body).toBe(200);
        expect(response.headers['cache-control']).toBe('no-store');
        const answer = response.json() as TokenAnswer;
        expect(answer).toMatchObject({ token_type: 'Bearer', expires_in: 900, scope: 'global', refresh_token: expect.any(String) });
        const jwks = (await app.request({ method: 'GET', url: '/realms/master/jwks', as: null })).json() as JSONWebKeySet;
        const { payload, protectedHeader } = await jwtVerify(answer.access_token, createLocalJWKSet(jwks));
        expect(protectedHeader).toMatchObject({ alg: 'ES256', kid: jwks.keys[0]!.kid });
        expect(payload).toMatchObject({ sub_kind: 'user', kind: 'access_token', realm_name: 'master', scope: 'global', iss: expect.stringMatching(/\/realms\/master$/) });
        expect(payload.client_id).toBeUndefined();
        expect(payload.exp! - payload.iat!).toBe(900);
        const session = await app.deps.db.selectFrom('auth_sessions').selectAll().where('id', '=', payload.session_id as string).executeTakeFirstOrThrow();
        expect(session).toMatchObject({ sub: payload.sub, sub_kind: 'user', realm_id: payload.realm_id, client_id: null, revoked_at: null });
        const realms = await app.request({ method: 'GET', url: '/realms', as: `Bearer ${answer.access_token}` });
        expect(realms.statusCode, realms.body).toBe(200);
        const me = await app.json<{ data: { name: string } }>({ method: 'GET', url: '/users/@me', as: `Bearer ${answer.access_token}` }, 200);
        expect(me.data.name).toBe(ADMIN.name);
    });

    it('accepts a form body and a realm chosen by name or id; a wrong password is invalid_grant', async () => {
        const form = await app.request({
            method: 'POST', url: '/token', as: null, headers: { 'content-type': 'application/x-www-form-urlencoded' },
            payload: `grant_type=password&username=${ADMIN.name}&password=${ADMIN.password}&realm_name=master`,
        });
        expect(form.statusCode, form.body).toBe(200);
        expectOAuthError(await token({ grant_type: 'password', username: ADMIN.name, password: 'wrong' }), 400, 'invalid_grant');
        // the admin lives in master, not in token-realm
        expectOAuthError(await token({ grant_type: 'password', username: ADMIN.name, password: ADMIN.password, realm_id: realmId }), 400, 'invalid_grant');
    });

    it('issues client_credentials tokens to a confidential client (Basic or body), without a refresh token', async () => {
        const basic = await token({ grant_type: 'client_credentials', realm_name: 'token-realm' }, { authorization: app.basic(confidential.id, 'service-secret') });
        expect(basic.statusCode, basic.body).toBe(200);
        const answer = basic.json() as TokenAnswer;
        expect(answer.refresh_token).toBeUndefined();
        expect(decodeJwt(answer.access_token)).toMatchObject({ sub: confidential.id, sub_kind: 'client', client_id: confidential.id, realm_id: realmId, scope: 'global' });
        const me = await app.json<{ data: { id: string } }>({ method: 'GET', url: '/clients/@me', as: `Bearer ${answer.access_token}` }, 200);
        expect(me.data.id).toBe(confidential.id);
        const body = await token({ grant_type: 'client_credentials', realm_id: realmId, client_id: 'service', client_secret: 'service-secret', scope: 'global openid' });
        expect(body.statusCode, body.body).toBe(200);
        expect((body.json() as TokenAnswer).scope).toBe('global openid');
        expectOAuthError(await token({ grant_type: 'client_credentials', realm_id: realmId, client_id: 'service', client_secret: 'service-secret', scope: 'nope' }), 400, 'invalid_scope');
    });

    it('limits a client with scope bindings to them; no requested scope yields its default bindings', async () => {
        const bound = await createClient({ name: 'bound-service', secret: 'bound-secret' });
        const scopeId = async (name: string) => (await app.deps.db.selectFrom('auth_scopes').select('id').where('name', '=', name)
            .where('realm_id', 'is', null).executeTakeFirstOrThrow()).id;
        const reports = (await app.json<{ data: { id: string } }>({ method: 'POST', url: '/scopes', payload: { name: 'reports', realmId } }, 201)).data.id;
        await app.json({ method: 'POST', url: '/client-scopes', payload: { clientId: bound.id, scopeId: await scopeId('global'), default: true } }, 201);
        await app.json({ method: 'POST', url: '/client-scopes', payload: { clientId: bound.id, scopeId: reports } }, 201);
        const as = { authorization: app.basic(bound.id, 'bound-secret') };
        const scopeOf = async (scope?: string) => {
            const response = await token({ grant_type: 'client_credentials', ...(scope === undefined ? {} : { scope }) }, as);
            expect(response.statusCode, response.body).toBe(200);
            return (response.json() as TokenAnswer).scope;
        };
        expect(await scopeOf()).toBe('global');
        expect(await scopeOf('reports')).toBe('reports');
        expect(await scopeOf('reports global')).toBe('reports global');
        // openid exists globally but is not bound to this client
        expectOAuthError(await token({ grant_type: 'client_credentials', scope: 'reports openid' }, as), 400, 'invalid_scope');
        // a client without bindings stays unrestricted within its realm's and the global scopes
        expect((await token({ grant_type: 'client_credentials', scope: 'reports openid' }, { authorization: app.basic(confidential.id, 'service-secret') })).statusCode).toBe(200);
    });

    it('refuses a wrong secret (401 invalid_client), an excluded grant type, a public client and Basic with body credentials', async () => {
        const wrong = await token({ grant_type: 'client_credentials', realm_id: realmId }, { authorization: app.basic(confidential.id, 'nope') });
        expectOAuthError(wrong, 401, 'invalid_client');
        expect(wrong.headers['www-authenticate']).toMatch(/^Basic/);
        expectOAuthError(await token({ grant_type: 'client_credentials', realm_id: realmId, client_id: 'unknown', client_secret: 'x' }), 401, 'invalid_client');
        const limited = await createClient({ name: 'password-only', secret: 'limited-secret', grantTypes: ['password'] });
        expectOAuthError(await token({ grant_type: 'client_credentials', realm_id: realmId }, { authorization: app.basic(limited.id, 'limited-secret') }), 400, 'unauthorized_client');
        const publicClient = await createClient({ name: 'spa' });
        expectOAuthError(await token({ grant_type: 'client_credentials', realm_id: realmId, client_id: publicClient.id }), 400, 'unauthorized_client');
        expectOAuthError(await token({ grant_type: 'client_credentials' }), 401, 'invalid_client');
        expectOAuthError(await token(
            { grant_type: 'client_credentials', realm_id: realmId, client_id: confidential.id, client_secret: 'service-secret' },
            { authorization: app.basic(confidential.id, 'service-secret') },
        ), 400, 'invalid_request');
        // a confidential client cannot pass as a public one by leaving its secret out
        expectOAuthError(await token({ grant_type: 'client_credentials', realm_id: realmId, client_id: confidential.id }), 401, 'invalid_client');
    });

    it('answers bad input with the OAuth error shape, never 500', async () => {
        expectOAuthError(await token({}), 400, 'invalid_request');
        expectOAuthError(await token({ grant_type: 'implicit' }), 400, 'unsupported_grant_type');
        expectOAuthError(await token({ grant_type: 'password', username: 'admin' }), 400, 'invalid_request');
        expectOAuthError(await token({ grant_type: 'password', username: 'admin', password: 'x', realm_name: 'no-such-realm' }), 400, 'invalid_request');
        expectOAuthError(await token({ grant_type: 'password', username: 'admin', password: 'x', realm_id: 'not-a-uuid' }), 400, 'invalid_request');
        expectOAuthError(await token({ grant_type: ['password', 'x'] }), 400, 'invalid_request');
        expectOAuthError(await token({ grant_type: 'password', username: 42, password: 'x' }), 400, 'invalid_request');
        expectOAuthError(await token({ grant_type: 'refresh_token', refresh_token: 'garbage' }), 400, 'invalid_grant');
        const malformed = await app.request({ method: 'POST', url: '/token', as: null, headers: { 'content-type': 'application/json' }, payload: '{"grant_type":' });
        expectOAuthError(malformed, 400, 'invalid_request');
        const repeated = await app.request({
            method: 'POST', url: '/token', as: null, headers: { 'content-type': 'application/x-www-form-urlencoded' },
            payload: 'grant_type=password&grant_type=client_credentials',
        });
        expectOAuthError(repeated, 400, 'invalid_request');
        const text = await app.request({ method: 'POST', url: '/token', as: null, headers: { 'content-type': 'text/plain' }, payload: 'grant_type=password' });
        expectOAuthError(text, 400, 'invalid_request');
        expectOAuthError(await token({ grant_type: 'password' }, { authorization: 'Bearer abc' }), 400, 'invalid_request');
    });
    it('creates a signing key on demand when the realm has no active one, instead of failing with 500', async () => {
        const issue = async () => {
            const response = await token({ grant_type: 'client_credentials', realm_id: realmId }, { authorization: app.basic(confidential.id, 'service-secret') });
            expect(response.statusCode, response.body).toBe(200);
            return (response.json() as TokenAnswer).access_token;
        };
        const before = await issue();
        const oldKid = (await app.deps.keys.activeSigningKey(app.deps.db, realmId))!.kid;
        await app.json({ method: 'POST', url: `/keys/${oldKid}`, payload: { status: 'disabled' } }, 200);
        const after = await issue();
        const newKid = decodeProtectedHeader(after).kid;
        expect(newKid).not.toBe(oldKid);
        // the disabled key stays disabled: its tokens stay inactive (spec States), the new one works
        expect((await app.request({ method: 'GET', url: '/clients/@me', as: `Bearer ${before}` })).statusCode).toBe(401);
        expect((await app.request({ method: 'GET', url: '/clients/@me', as: `Bearer ${after}` })).statusCode).toBe(200);
        const jwks = (await app.request({ method: 'GET', url: `/realms/${realmId}/jwks`, as: null })).json() as JSONWebKeySet;
        expect(jwks.keys.map((key) => key.kid)).toEqual([newKid]);
        // a realm without any signing key row issues as well
        await app.deps.db.deleteFrom('auth_keys').where('realm_id', '=', realmId).where('use', '=', 'sig').execute();
        // a write behind the API's back: empty the caches as the bus does after an API write
        app.deps.caches.invalidateAll();
        const fresh = await issue();
        const published = (await app.request({ method: 'GET', url: `/realms/${realmId}/jwks`, as: null })).json() as JSONWebKeySet;
        expect((await jwtVerify(fresh, createLocalJWKSet(published))).payload.realm_id).toBe(realmId);
    });
});
