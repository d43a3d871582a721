import { randomUUID } from 'node:crypto';
import { ErrorCode, RealmScope } from '@realmgate/core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { WINDOW_MS } from '../../server/src/limits/limiter.js';
import { ADMIN, type TestApp } from '../../server/test/app.js';
import { createBrowserClient } from '../../server/test/browser.js';
import { describeEachDialect } from '../../server/test/databases.js';
import { grantDirect } from '../../server/test/identities.js';
import {
    basicAuth,
    clientCredentials,
    createAuthorizationRequest,
    createClient,
    handleAuthorizationCallback,
    passwordGrant,
    pollDeviceToken,
    refreshingSession,
    ROUTE_METHODS,
    startDeviceAuthorization,
    type RealmgateClient,
    type RealmgateError,
    type TokenSet,
} from '../src/index.js';
import { caught, startListening } from './listening.js';

/*
 * The client kit against the real server listening on a free port (no inject, no stubbed fetch):
 * a representative call per route family, every parameterless GET route through its generated
 * method, the token helpers end to end, the error type and the 429 retry policy.
 */

describeEachDialect('client kit against a real server', (dialect) => {
    let app: TestApp;
    let admin: RealmgateClient;
    let anonymous: RealmgateClient;
    let realmId: string;
    let realmName: string;
    beforeAll(async () => {
        const started = await startListening(dialect);
        app = started.app;
        admin = createClient({ baseUrl: started.url, auth: basicAuth(ADMIN.name, ADMIN.password) });
        anonymous = createClient({ baseUrl: started.url });
        realmName = `ck-${randomUUID().slice(0, 8)}`;
        realmId = (await admin.postRealms({ body: { name: realmName } })).data.id as string;
    });
    afterAll(async () => app?.dispose());

    it('reaches every parameterless GET route through its generated method (no route of the table is missing)', async () => {
        const routes = Object.entries(ROUTE_METHODS).filter(([, route]) => route.startsWith('GET ') && !route.includes('{'));
        expect(routes.length).toBeGreaterThan(40);
        const notFound = await caught(admin.request('GET /no-such-route' as 'GET /users'));
        expect(notFound.statusCode).toBe(404);
        for (const [name] of routes) {
            const method = (admin as unknown as Record<string, (input?: unknown) => Promise<unknown>>)[name]!;
            // a page answers HTML, a route without its parameters 400, the metrics need their own token,
            // @me of a user on /clients 404: never the router's not-found answer, never a 5xx
            const outcome = await method().then(() => null, (error: RealmgateError) => error);
            if (!outcome) continue;
            // this server has no mail relay: the forgot-password page says so with its documented 503
            if (/ForgotPassword/.test(name) && outcome.statusCode === 503) continue;
            expect(outcome.statusCode, name).toBeLessThan(500);
            expect(outcome.message, name).not.toBe(notFound.message);
        }
    });

    it('reaches every route with path parameters through its generated method: an unknown id answers the route\'s own error', async () => {
        const notFound = await caught(admin.request('GET /no-such-route' as 'GET /users'));
        const routes = Object.entries(ROUTE_METHODS).filter(([, route]) => route.includes('{'));
        expect(routes.length).toBeGreaterThan(100);
        for (const [name, route] of routes) {
            const params = Object.fromEntries([...route.matchAll(/\{([^}]+)\}/g)].map(([, param]) => [param, /^realm/.test(param!) ? realmName : randomUUID()]));
            const method = (admin as unknown as Record<string, (input?: unknown) => Promise<unknown>>)[name]!;
            // nothing has these ids: no write can happen, and every answer is the route's (400, 404, ...)
            const outcome = await method({ params, ...(route.startsWith('GET ') || route.startsWith('DELETE ') ? {} : { body: {} }) })
                .then(() => null, (error: RealmgateError) => error);
            if (!outcome) continue;
            // this server has no mail relay: the forgot-password page says so with its documented 503
            if (/ForgotPassword/.test(name) && outcome.statusCode === 503) continue;
            expect(outcome.statusCode, name).toBeLessThan(500);
            expect(outcome.message, name).not.toBe(notFound.message);
        }
    });

    it('realms, users and the list query: create, read with fields, list with filter, sort and page, update, delete', async () => {
        const names = ['ada', 'bob', 'cyd'].map((name) => `${name}-${randomUUID().slice(0, 6)}`);
        for (const name of names) await admin.postUsers({ body: { name, realmId, password: `pw-${name}-secret` } });
        const page = await admin.getUsers({
            query: { filter: { realmId, name: names.slice(1) }, fields: ['id', 'name'], sort: ['-name'], page: { limit: 1, offset: 0 } },
        });
        expect(page.meta).toMatchObject({ total: 2, limit: 1, offset: 0 });
        expect(page.data).toEqual([{ id: expect.any(String), name: names[2] }]);
        const id = page.data[0]!.id as string;
        expect((await admin.getUsersById({ params: { id }, query: { fields: ['name'] } })).data).toEqual({ name: names[2] });
        expect((await admin.postUsersById({ params: { id }, body: { displayName: 'Cyd' } })).data.displayName).toBe('Cyd');
        // the realm mount: the same collection in one realm
        expect((await admin.getUsersInRealm({ params: { realmId: realmName }, query: { filter: { name: names[0] } } })).meta.total).toBe(1);
        expect((await admin.deleteUsersById({ params: { id } })).data.id).toBe(id);
        expect((await admin.getUsersSchema()).data).toBeTruthy();
    });

    it('roles, permissions, scopes, policies and junctions', async () => {
        const role = (await admin.postRoles({ body: { name: `role-${randomUUID().slice(0, 6)}`, realmId } })).data;
        const permission = (await admin.postPermissions({ body: { name: `perm_${randomUUID().slice(0, 6)}`, realmId } })).data;
        const binding = (await admin.postRolePermissions({ body: { roleId: role.id as string, permissionId: permission.id as string } })).data;
        expect((await admin.getRolePermissions({ query: { filter: { roleId: role.id as string } } })).data.map((row) => row.id)).toEqual([binding.id]);
        expect((await admin.getScopes({ query: { filter: { name: 'global' } } })).meta.total).toBeGreaterThanOrEqual(1);
        expect((await admin.getPolicies({ query: { page: { limit: 1 } } })).data.length).toBe(1);
        expect((await admin.getPermissionsStats({ query: { group: 'bucket(createdAt,day)', filter: { createdAt: '>=2020-01-01T00:00:00Z' } } })).data).toBeInstanceOf(Array);
    });

    it('errors: one type with statusCode, code and issues', async () => {
        const invalid = await caught(admin.postUsers({ body: { name: '', realmId } as never }));
        expect(invalid).toMatchObject({ statusCode: 400, code: ErrorCode.BAD_REQUEST });
        expect(invalid.issues.length).toBeGreaterThan(0);
        expect(await caught(admin.getUsersById({ params: { id: randomUUID() } }))).toMatchObject({ statusCode: 404, code: ErrorCode.ENTITY_NOT_FOUND });
        expect(await caught(anonymous.getUsers())).toMatchObject({ statusCode: 401 });
        const badGrant = await caught(passwordGrant(anonymous, { username: 'admin', password: 'wrong' }));
        expect(badGrant).toMatchObject({ statusCode: 400, code: ErrorCode.INVALID_GRANT, error: 'invalid_grant' });
    });

    it('protocol routes: discovery, jwks, token, introspection, revocation, catalog and batch check', async () => {
        expect((await anonymous.getWellKnownOpenidConfiguration()).issuer).toContain('/realms/master');
        expect((await anonymous.getJwksInRealm({ params: { realmId: 'master' } })).keys).toBeInstanceOf(Array);
        const tokens = await passwordGrant(anonymous, { username: ADMIN.name, password: ADMIN.password });
        const bearer = createClient({ baseUrl: admin.baseUrl, auth: `Bearer ${tokens.access_token}` });
        expect((await bearer.getUsersMe()).data.name).toBe(ADMIN.name);
        expect((await bearer.getAuthorization()).permissions).toBeInstanceOf(Array);
        expect(await bearer.postAuthorizationCheck({ body: { names: ['user_read'] } })).toEqual([expect.objectContaining({ name: 'user_read' })]);
        const introspected = await admin.postTokenIntrospect({ body: { token: tokens.access_token }, form: true });
        expect(introspected).toMatchObject({ active: true, permissions: expect.any(Array) });
        await admin.postTokenRevoke({ body: { token: tokens.refresh_token! }, form: true });
        expect(await caught(bearer.getUsersMe())).toMatchObject({ statusCode: 401 });
    });

    it('client_credentials: cached, shared by concurrent callers, renewed before expiry on a controllable clock', async () => {
        const secret = 'service-secret-123';
        const service = (await admin.postClients({ body: { name: `svc-${randomUUID().slice(0, 6)}`, realmId, secret } })).data.id as string;
        let now = Date.now();
        const source = clientCredentials(anonymous, { clientId: service, clientSecret: secret, realmId }, { now: () => now, renewBeforeSeconds: 30 });
        const [first, same] = await Promise.all([source.accessToken(), source.accessToken()]);
        expect(same).toBe(first);
        expect(await source.accessToken()).toBe(first);
        const lifetime = source.current()!.expires_in!;
        now += (lifetime - 31) * 1000;
        expect(await source.accessToken()).toBe(first);
        now += 2000; // inside the renewal window
        const renewed = await source.accessToken();
        expect(renewed).not.toBe(first);
        // the source is a credential of the client itself
        expect((await anonymous.withAuth(source).getClientsMe()).data.id).toBe(service);
    });

    it('password grant and refresh with rotation: the rotated refresh token replaces the used one', async () => {
        const name = `rot-${randomUUID().slice(0, 6)}`;
        await admin.postUsers({ body: { name, realmId, password: 'rotation-secret-1' } });
        const initial = await passwordGrant(anonymous, { username: name, password: 'rotation-secret-1', realmId });
        let now = Date.now();
        const rotations: TokenSet[] = [];
        const session = refreshingSession(anonymous, initial, { now: () => now, onRotate: (tokens) => rotations.push(tokens) });
        expect(await session.accessToken()).toBe(initial.access_token);
        now += initial.expires_in! * 1000;
        const renewed = await session.accessToken();
        expect(renewed).not.toBe(initial.access_token);
        expect(rotations).toHaveLength(1);
        expect(rotations[0]!.refresh_token).toBeTruthy();
        expect(rotations[0]!.refresh_token).not.toBe(initial.refresh_token);
        now += initial.expires_in! * 1000;
        await session.accessToken();
        expect(rotations).toHaveLength(2);
        expect((await anonymous.withAuth(session).getUsersMe()).data.name).toBe(name);
    });

    it('authorization code with PKCE: URL with state, nonce and S256 challenge; callback checks state and redeems', async () => {
        const redirectUri = 'https://app.example/callback';
        const clientId = await createBrowserClient(app, realmId, { redirectUri });
        const userName = `pkce-${randomUUID().slice(0, 6)}`;
        await admin.postUsers({ body: { name: userName, realmId, password: 'pkce-secret-12' } });
        const { issuer } = await anonymous.getRealmsByRealmWellKnownOpenidConfiguration({ params: { realm: realmName } });
        const pending = await createAuthorizationRequest({ baseUrl: admin.baseUrl, issuer, clientId, redirectUri, scope: 'openid' });
        const parameters = Object.fromEntries(new URL(pending.url).searchParams);
        expect(parameters).toMatchObject({ response_type: 'code', code_challenge_method: 'S256', state: pending.state, nonce: pending.nonce });
        // the user's approval through the API form of the authorization endpoint (a token without a client)
        const user = await passwordGrant(anonymous, { username: userName, password: 'pkce-secret-12', realmId });
        const answer = await anonymous.postAuthorize({ body: parameters, auth: `Bearer ${user.access_token}` });
        const forged = answer.url.replace(`state=${pending.state}`, 'state=forged');
        expect(await caught(handleAuthorizationCallback(anonymous, forged, pending))).toMatchObject({ code: ErrorCode.INVALID_REQUEST });
        const tokens = await handleAuthorizationCallback(anonymous, answer.url, pending);
        expect(tokens.id_token).toBeTruthy();
        expect((await anonymous.withAuth(`Bearer ${tokens.access_token}`).getUserinfo()).sub).toBeTruthy();
        const denied = `${redirectUri}?error=access_denied&state=${pending.state}`;
        expect(await caught(handleAuthorizationCallback(anonymous, denied, pending))).toMatchObject({ code: ErrorCode.ACCESS_DENIED });
    });

    it('device flow: polls at the interval, adds 5 seconds on slow_down and returns the tokens once approved', async () => {
        const device = (await admin.postClients({
            body: { name: `tv-${randomUUID().slice(0, 6)}`, realmId, grantTypes: ['urn:ietf:params:oauth:grant-type:device_code', 'refresh_token'] },
        })).data.id as string;
        const userName = `dev-${randomUUID().slice(0, 6)}`;
        await admin.postUsers({ body: { name: userName, realmId, password: 'device-secret-1' } });
        const user = await passwordGrant(anonymous, { username: userName, password: 'device-secret-1', realmId });
        const started = await startDeviceAuthorization(anonymous, { clientId: device });
        const waits: number[] = [];
        const tokens = await pollDeviceToken(anonymous, started, { clientId: device }, {
            // no real waiting: the first poll is pending, the second comes too soon (slow_down), the user approves before the third
            sleep: async (milliseconds) => {
                waits.push(milliseconds);
                if (waits.length === 3) await anonymous.postDeviceAuthorizationApprove({ body: { user_code: started.user_code }, auth: `Bearer ${user.access_token}` });
            },
        });
        expect(waits).toEqual([started.interval * 1000, started.interval * 1000, (started.interval + 5) * 1000]);
        expect(tokens.access_token).toBeTruthy();
    });

    it('the catalog read with a client_credentials source (spec consumer rule 12)', async () => {
        const reader = (await admin.postClients({ body: { name: `reader-${randomUUID().slice(0, 6)}`, realmId, secret: 'reader-secret-1' } })).data.id as string;
        await grantDirect(app, { clientId: reader }, 'permission_read', RealmScope.OWN_OR_NULL);
        const source = clientCredentials(anonymous, { clientId: reader, clientSecret: 'reader-secret-1', realmId });
        const catalog = await anonymous.withAuth(source).getAuthorization() as { permissions: unknown[] };
        expect(catalog.permissions.length).toBeGreaterThan(0);
    });
});

describe('client kit: the 429 retry policy', () => {
    const clock = { now: 30_000 * WINDOW_MS + 1_000, next() {
        clock.now = (Math.floor(clock.now / WINDOW_MS) + 1) * WINDOW_MS + 1_000;
    } };
    let app: TestApp;
    let url: string;
    beforeAll(async () => {
        ({ app, url } = await startListening('sqlite', { rateLimit: { userMax: 2, clientMax: 2, anonymousMax: 2 } }, { limits: { clock: () => clock.now } }));
    });
    afterAll(async () => app?.dispose());
    beforeEach(() => clock.next());

    it('waits Retry-After and retries; the wait is the limiter\'s next window', async () => {
        const waits: number[] = [];
        const client = createClient({ baseUrl: url, auth: basicAuth(ADMIN.name, ADMIN.password), retry: { sleep: async (ms) => {
            waits.push(ms);
            clock.next();
        } } });
        for (let index = 0; index < 3; index++) await client.getUsersMe();
        expect(waits).toEqual([expect.any(Number)]);
        expect(waits[0]).toBeGreaterThan(0);
    });

    it('turned off, a 429 is thrown with retryAfter', async () => {
        const client = createClient({ baseUrl: url, auth: basicAuth(ADMIN.name, ADMIN.password), retry: false });
        await client.getUsersMe();
        await client.getUsersMe();
        const refused = await caught(client.getUsersMe());
        expect(refused).toMatchObject({ statusCode: 429, code: ErrorCode.TOO_MANY_REQUESTS });
        expect(refused.retryAfter).toBeGreaterThan(0);
    });

    it('does not wait longer than maxDelaySeconds', async () => {
        const client = createClient({ baseUrl: url, auth: basicAuth(ADMIN.name, ADMIN.password), retry: { maxDelaySeconds: 1, sleep: async () => {
            throw new Error('no wait expected');
        } } });
        await client.getUsersMe();
        await client.getUsersMe();
        expect(await caught(client.getUsersMe())).toMatchObject({ statusCode: 429 });
    });
});
