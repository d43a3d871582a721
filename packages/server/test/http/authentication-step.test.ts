import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../app.js';
import { describeEachDialect } from '../databases.js';
import { masterRealmId } from '../identities.js';

/*
 * Authentication is a named step before validation: a protected route answers
 * 401 to a caller without (valid) credentials whatever the body, and validates the body (400 with
 * issues) only for an authenticated caller. The other orderings of the step stay as they were.
 */
describeEachDialect('the authentication step', (dialect) => {
    let app: TestApp;
    let realmId: string;
    beforeAll(async () => {
        app = await startTestApp(dialect);
        realmId = await masterRealmId(app);
    });
    afterAll(async () => app?.dispose());

    const BAD_BODIES: { method: 'POST' | 'PUT'; url: () => string; payload: unknown }[] = [
        { method: 'POST', url: () => '/users', payload: { unknownMember: 1 } },
        { method: 'POST', url: () => '/clients', payload: { name: 42 } },
        { method: 'PUT', url: () => `/roles/role-${randomUUID().slice(0, 8)}`, payload: { displayName: ['not', 'a', 'string'] } },
        { method: 'POST', url: () => `/realms/${realmId}/users`, payload: { name: '' } },
        { method: 'POST', url: () => `/users/${randomUUID()}`, payload: { active: 'yes' } },
        { method: 'POST', url: () => '/clients/@me/secret', payload: { mode: 'nonsense' } },
    ];

    it('answers 401, not 400, to a bad body without credentials or with wrong ones', async () => {
        for (const route of BAD_BODIES) {
            for (const as of [null, app.basic('admin', 'wrong-password'), 'Bearer not-a-token']) {
                const response = await app.request({ method: route.method, url: route.url(), payload: route.payload as object, as });
                expect(response.statusCode, `${route.method} ${route.url()} as ${as}: ${response.body}`).toBe(401);
                expect(response.json()).toMatchObject({ statusCode: 401, code: expect.any(String) });
                expect(response.json()).not.toHaveProperty('issues');
                expect(response.headers['www-authenticate']).toBeDefined();
            }
        }
    });

    it('answers 401 to a malformed body without credentials: the body is not even read', async () => {
        const response = await app.request({ method: 'POST', url: '/users', as: null, headers: { 'content-type': 'application/json' }, payload: '{"name":' });
        expect(response.statusCode).toBe(401);
    });

    it('still answers 400 with issues to a bad body from an authenticated caller', async () => {
        for (const route of BAD_BODIES.filter((entry) => !entry.url().includes('@me'))) {
            const response = await app.request({ method: route.method, url: route.url(), payload: route.payload as object });
            expect(response.statusCode, `${route.method} ${route.url()}: ${response.body}`).toBe(400);
            expect(response.json()).toMatchObject({ statusCode: 400, code: 'bad_request', issues: expect.any(Array) });
        }
    });

    it('answers 401 before saying whether a mount realm exists; 404 after authentication', async () => {
        const unknown = `/realms/no-such-realm-${randomUUID().slice(0, 6)}/users`;
        expect((await app.request({ method: 'GET', url: unknown, as: null })).statusCode).toBe(401);
        expect((await app.request({ method: 'POST', url: unknown, as: null, payload: { bad: 1 } })).statusCode).toBe(401);
        const found = await app.request({ method: 'GET', url: unknown });
        expect(found.statusCode).toBe(404);
        // the caller was charged before it learned that (spec Limits: the answer carries the budget)
        expect(found.headers['ratelimit-remaining']).toBeDefined();
    });

    it('keeps identity-optional routes optional, and public routes public', async () => {
        const check = await app.request({ method: 'POST', url: '/authorization/check', as: null, payload: {} });
        expect(check.statusCode, check.body).toBe(200);
        for (const url of ['/.well-known/openid-configuration', '/openapi.json', '/docs', `/realms/${realmId}/jwks`]) {
            expect((await app.request({ method: 'GET', url, as: null })).statusCode, url).toBe(200);
        }
    });

    it('hands the handler the caller: /users/@me reads the authenticated user', async () => {
        const me = await app.json<{ data: { name: string } }>({ method: 'GET', url: '/users/@me' }, 200);
        expect(me.data.name).toBe('admin');
    });
});
