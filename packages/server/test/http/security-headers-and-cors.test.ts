import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createActor, createRealm } from '../actors.js';
import { startTestApp, type TestApp } from '../app.js';
import { describeEachDialect } from '../databases.js';
import { masterRealmId } from '../identities.js';
import { CORS_LOOKUP_TTL_MS } from '../../src/http/cors.js';

/*
 * Browser readiness: helmet's security headers on every answer, errors and 404s
 * included; CORS for the origins the clients name (redirect URIs, base URL) and CORS_ORIGINS, and
 * for no other; CORS never stands in for authorization.
 */
describeEachDialect('security headers and CORS', (dialect) => {
    let app: TestApp;
    let now = 1_000_000;
    beforeAll(async () => {
        app = await startTestApp(dialect, { corsOrigins: 'https://console.example, https://ops.example:8443' }, { corsClock: () => now });
    });
    afterAll(async () => app?.dispose());

    const later = () => { now += CORS_LOOKUP_TTL_MS + 1; };
    const preflight = (origin: string, url = '/users') => app.request({
        method: 'OPTIONS', url, as: null, headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' },
    });
    const fromOrigin = (origin: string, as?: string | null) => app.request({ method: 'GET', url: '/users/@me', headers: { origin }, ...(as !== undefined ? { as } : {}) });

    it('sends the security headers on successes, errors and unknown routes', async () => {
        const answers = [
            await app.request({ method: 'GET', url: '/users' }),
            await app.request({ method: 'GET', url: '/users', as: null }),
            await app.request({ method: 'POST', url: '/users', payload: { bad: 1 } }),
            await app.request({ method: 'GET', url: '/no/such/route', as: null }),
            await app.request({ method: 'POST', url: '/token', as: null, payload: { grant_type: 'nonsense' } }),
            await app.request({ method: 'GET', url: '/.well-known/openid-configuration', as: null }),
        ];
        expect(answers.map((answer) => answer.statusCode)).toEqual([200, 401, 400, 404, 400, 200]);
        for (const answer of answers) {
            expect(answer.headers['content-security-policy']).toBe("default-src 'none';frame-ancestors 'none'");
            expect(answer.headers['x-content-type-options']).toBe('nosniff');
            // RFC 6797 §7.2: HSTS is sent over secure transport only; this deployment's PUBLIC_URL is http
            expect(answer.headers['strict-transport-security']).toBeUndefined();
            expect(answer.headers['x-frame-options']).toBe('DENY');
            expect(answer.headers['x-powered-by']).toBeUndefined();
        }
    });

    it('gives an origin no client names no CORS header, on a preflight or a request', async () => {
        const origin = `https://unknown-${randomUUID().slice(0, 6)}.example`;
        expect((await preflight(origin)).headers['access-control-allow-origin']).toBeUndefined();
        const answer = await fromOrigin(origin);
        expect(answer.statusCode).toBe(200);
        expect(answer.headers['access-control-allow-origin']).toBeUndefined();
    });

    it('allows the configured CORS_ORIGINS', async () => {
        for (const origin of ['https://console.example', 'https://ops.example:8443']) {
            const answer = await preflight(origin);
            expect(answer.statusCode).toBe(204);
            expect(answer.headers['access-control-allow-origin']).toBe(origin);
            expect(answer.headers['access-control-allow-headers']).toMatch(/authorization/i);
        }
        expect((await preflight('https://ops.example')).headers['access-control-allow-origin']).toBeUndefined();
    });

    it('allows the origins of a client\'s redirect URIs and base URL, and follows edits and deletion', async () => {
        const name = `spa-${randomUUID().slice(0, 6)}`;
        const redirect = `https://${name}.example`;
        const base = `https://${name}-home.example:8080`;
        const created = await app.json<{ data: { id: string } }>({
            method: 'POST', url: '/clients', payload: { name, realmId: await masterRealmId(app), redirectUri: `${redirect}/cb http://localhost:5173/cb`, baseUrl: `${base}/app` },
        }, 201);
        for (const origin of [redirect, base, 'http://localhost:5173']) {
            const answer = await preflight(origin);
            expect(answer.statusCode, origin).toBe(204);
            expect(answer.headers['access-control-allow-origin'], origin).toBe(origin);
            expect((await fromOrigin(origin)).headers['access-control-allow-origin'], origin).toBe(origin);
        }
        // another port or scheme is another origin (RFC 6454)
        expect((await preflight(`http://${name}.example`)).headers['access-control-allow-origin']).toBeUndefined();
        expect((await preflight('http://localhost:5174')).headers['access-control-allow-origin']).toBeUndefined();

        await app.json({ method: 'POST', url: `/clients/${created.data.id}`, payload: { redirectUri: 'http://localhost:5173/cb' } }, 200);
        later();
        expect((await preflight(redirect)).headers['access-control-allow-origin']).toBeUndefined();
        expect((await preflight('http://localhost:5173')).headers['access-control-allow-origin']).toBe('http://localhost:5173');

        await app.json({ method: 'DELETE', url: `/clients/${created.data.id}` }, 200);
        later();
        for (const origin of [base, 'http://localhost:5173']) expect((await preflight(origin)).headers['access-control-allow-origin'], origin).toBeUndefined();
    });

    it('never grants authorization: the credential alone decides, realm isolation included', async () => {
        const origin = 'https://console.example';
        const anonymous = await fromOrigin(origin, null);
        expect(anonymous.statusCode).toBe(401);
        expect(anonymous.headers['access-control-allow-origin']).toBe(origin);
        expect(anonymous.headers['access-control-allow-credentials']).toBeUndefined();
        const realmA = await createRealm(app, `cors-a-${randomUUID().slice(0, 6)}`);
        const realmB = await createRealm(app, `cors-b-${randomUUID().slice(0, 6)}`);
        const actor = await createActor(app, realmA, [{ permission: 'user_read', scope: 'own' }]);
        const own = await app.request({ method: 'GET', url: `/realms/${realmA}/users`, as: actor.header, headers: { origin } });
        expect(own.statusCode).toBe(200);
        const other = await app.request({ method: 'GET', url: `/realms/${realmB}/users`, as: actor.header, headers: { origin } });
        expect(other.statusCode).toBe(200);
        // a foreign realm's rows stay invisible from an allowed origin
        expect((other.json() as { data: unknown[] }).data).toEqual([]);
        const create = await app.request({ method: 'POST', url: '/users', as: actor.header, headers: { origin }, payload: { name: `x-${randomUUID().slice(0, 6)}`, realmId: realmB, password: 'pw-123456789' } });
        expect(create.statusCode).toBe(403);
    });
});


// the headers of an https deployment are set before any statement: the embedded database suffices
describeEachDialect('security headers on an https deployment', (dialect) => {
    let app: TestApp;
    beforeAll(async () => {
        app = await startTestApp(dialect, { publicUrl: 'https://auth.example.com' });
    });
    afterAll(async () => app?.dispose());

    it('sends Strict-Transport-Security when PUBLIC_URL is https (RFC 6797 §7.1), errors and unknown routes included', async () => {
        const answers = [
            await app.request({ method: 'GET', url: '/users' }),
            await app.request({ method: 'GET', url: '/users', as: null }),
            await app.request({ method: 'GET', url: '/no/such/route', as: null }),
        ];
        expect(answers.map((answer) => answer.statusCode)).toEqual([200, 401, 404]);
        for (const answer of answers) {
            expect(answer.headers['strict-transport-security']).toMatch(/^max-age=\d+; includeSubDomains$/);
            expect(answer.headers['x-content-type-options']).toBe('nosniff');
        }
    });
}, ['sqlite']);
