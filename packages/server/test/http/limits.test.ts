import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { decodeJwt, SignJWT } from 'jose';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { WINDOW_MS } from '../../src/limits/limiter.js';
import { loginGateKey } from '../../src/limits/request-limits.js';
import { ADMIN, startTestApp, type TestApp } from '../app.js';
import { describeEachDialect } from '../databases.js';
import { createClient, createUser, masterRealmId } from '../identities.js';

/*
 * Spec Limits over HTTP, with low limits and the limiter's clock moved by the test (a new window
 * instead of a wait). Every request of one suite comes from one address, as inject() sends them.
 */

type TokenAnswer = { access_token: string };

/** The limiter's clock: each test starts in a window of its own. */
function windowClock() {
    const clock = { now: 20_000 * WINDOW_MS + 1_000, next() {
        clock.now = (Math.floor(clock.now / WINDOW_MS) + 1) * WINDOW_MS + 1_000;
    } };
    return clock;
}

const HIGH = { userMax: 1_000_000, clientMax: 1_000_000, anonymousMax: 1_000_000 };

describeEachDialect('limits: failed authentications per address', (dialect) => {
    const FAILURES = 3;
    const clock = windowClock();
    let app: TestApp;
    let client: Awaited<ReturnType<typeof createClient>>;
    beforeAll(async () => {
        app = await startTestApp(dialect, { rateLimit: HIGH }, { limits: { failureMax: FAILURES, loginConcurrency: 1, clock: () => clock.now } });
        client = await createClient(app, await masterRealmId(app));
    });
    afterAll(async () => app?.dispose());
    beforeEach(() => clock.next());

    const admin = () => app.request({ method: 'GET', url: '/users' });
    const token = (payload: Record<string, string>, as: string | null = null) => app.request({ method: 'POST', url: '/token', payload, as });
    const login = async (username = ADMIN.name, password = ADMIN.password, extra: Record<string, string> = {}) => {
        const response = await token({ grant_type: 'password', username, password, ...extra });
        expect(response.statusCode, response.body).toBe(200);
        return (response.json() as TokenAnswer).access_token;
    };
    const bearer = (accessToken: string) => app.request({ method: 'GET', url: '/users/@me', as: `Bearer ${accessToken}` });

    /** `times` failures of one kind, each answered with `status` */
    const fail = async (times: number, status: number, send: () => ReturnType<TestApp['request']>) => {
        for (let index = 0; index < times; index++) {
            const response = await send();
            expect(response.statusCode, response.body).toBe(status);
        }
    };
    const expectRefused = async () => {
        for (const response of [await admin(), await app.request({ method: 'GET', url: '/.well-known/openid-configuration', as: null })]) {
            expect(response.statusCode, response.body).toBe(429);
            const body = response.json() as { code: string; retryAfter: number; statusCode: number };
            expect(body).toMatchObject({ statusCode: 429, code: 'too_many_requests' });
            expect(body.retryAfter).toBe(59);
            expect(response.headers['retry-after']).toBe('59');
        }
    };
    const expectOpen = async () => {
        const response = await admin();
        expect(response.statusCode, response.body).toBe(200);
    };

    it('refuses the address as a whole after wrong Basic passwords, for the rest of the minute', async () => {
        await fail(FAILURES, 401, () => app.request({ method: 'GET', url: '/users', as: app.basic(ADMIN.name, 'wrong') }));
        await expectRefused();
        // the right password changes nothing until the window ends
        expect((await app.request({ method: 'GET', url: '/users', as: app.basic(ADMIN.name, ADMIN.password) })).statusCode).toBe(429);
        clock.now += 58_000;
        expect((await admin()).headers['retry-after']).toBe('1');
        clock.next();
        await expectOpen();
    });

    it('counts a wrong client secret by Basic on a protected route and at /token, /token/introspect and /token/revoke', async () => {
        const attempts = [
            () => app.request({ method: 'GET', url: '/users', as: app.basic(client.id, 'wrong') }),
            () => token({ grant_type: 'client_credentials' }, app.basic(client.id, 'wrong')),
            () => app.request({ method: 'POST', url: '/token/introspect', payload: { token: 'x', client_id: client.id, client_secret: 'wrong' }, as: null }),
            () => app.request({ method: 'POST', url: '/token/revoke', payload: { token: 'x' }, as: app.basic(client.id, 'wrong') }),
        ];
        for (const attempt of attempts) {
            await fail(FAILURES - 1, 401, attempt);
            await expectOpen();
            await fail(1, 401, attempt);
            await expectRefused();
            clock.next();
        }
    });

    it('counts an unknown client with a secret and a wrong password at the password grant', async () => {
        await fail(2, 401, () => token({ grant_type: 'client_credentials', client_id: 'no-such-client', client_secret: 'x' }));
        await fail(1, 400, () => token({ grant_type: 'password', username: ADMIN.name, password: 'wrong' }));
        await expectRefused();
        clock.next();
        await fail(FAILURES, 400, () => token({ grant_type: 'password', username: 'no-such-user', password: 'x' }));
        await expectRefused();
    });

    it('counts a bearer this deployment did not sign: malformed, or a signature its key refutes', async () => {
        const accessToken = await login();
        const [header, payload, signature] = accessToken.split('.');
        const tampered = `${header}.${payload}.${signature!.startsWith('A') ? 'B' : 'A'}${signature!.slice(1)}`;
        await fail(1, 401, () => bearer('not-a-token'));
        await fail(1, 401, () => bearer(tampered));
        // claims rewritten under the original signature
        const claims = Buffer.from(JSON.stringify({ ...decodeJwt(accessToken), sub: client.id })).toString('base64url');
        await fail(1, 401, () => bearer(`${header}.${claims}.${signature}`));
        await expectRefused();
    });

    it('does not count valid requests, requests without credentials, or an inactive account with its right password', async () => {
        for (let index = 0; index <= FAILURES; index++) await expectOpen();
        await fail(FAILURES + 1, 401, () => app.request({ method: 'GET', url: '/users', as: null }));
        const user = await createUser(app, await masterRealmId(app), undefined, { active: false });
        await fail(FAILURES + 1, 401, () => app.request({ method: 'GET', url: '/users', as: user.header }));
        await expectOpen();
    });

    it('does not count expired or revoked tokens', async () => {
        const accessToken = await login();
        const claims = decodeJwt(accessToken);
        const kid = JSON.parse(Buffer.from(accessToken.split('.')[0]!, 'base64url').toString()) as { kid: string };
        const key = await app.deps.keys.privateKeyFor(app.deps.db, String(claims.realm_id), kid.kid);
        const expired = await new SignJWT({ ...claims, exp: Math.floor(Date.now() / 1000) - 60 }).setProtectedHeader({ alg: 'ES256', kid: kid.kid, typ: 'at+jwt' }).sign(key!);
        await fail(FAILURES + 1, 401, () => bearer(expired));
        expect((await bearer(expired)).json()).toMatchObject({ code: 'expired_token' });
        const revoked = await login();
        expect((await app.request({ method: 'POST', url: '/token/revoke', payload: { token: revoked } })).statusCode).toBe(200);
        await fail(FAILURES + 1, 401, () => bearer(revoked));
        expect((await bearer(revoked)).json()).toMatchObject({ code: 'inactive_token' });
        await expectOpen();
    });

    it('does not count tokens whose signing key was disabled or deleted', async () => {
        for (const action of ['disable', 'delete'] as const) {
            const realm = (await app.json<{ data: { id: string; name: string } }>({
                method: 'POST', url: '/realms', payload: { name: `limits-${action}-${randomBytes(3).toString('hex')}` },
            }, 201)).data;
            const user = await createUser(app, realm.id);
            const accessToken = await login(user.name, user.password, { realm_name: realm.name });
            const kid = (await app.deps.keys.activeSigningKey(app.deps.db, realm.id))!.kid;
            if (action === 'disable') await app.json({ method: 'POST', url: `/keys/${kid}`, payload: { status: 'disabled' } }, 200);
            else await app.json({ method: 'DELETE', url: `/keys/${kid}` }, 200);
            await fail(FAILURES + 1, 401, () => bearer(accessToken));
        }
        await expectOpen();
    });

    it('after a failed login, refuses concurrent attempts for the account beyond the threshold with retryAfter 1, without counting them', async () => {
        const slots = [loginGateKey(`basic:${ADMIN.name}`, '127.0.0.1'), loginGateKey(`user:${ADMIN.name}`, '127.0.0.1')];
        // a running attempt holds each slot (threshold 1); without a failure nothing is refused
        for (const slot of slots) expect(app.deps.limits.gate.enter(slot)).toBe(true);
        try {
            await expectOpen();
            await login();
            // one failure each turns the throttle on for the account from this address
            await fail(1, 401, () => app.request({ method: 'GET', url: '/users', as: app.basic(ADMIN.name, 'wrong') }));
            await fail(1, 400, () => token({ grant_type: 'password', username: ADMIN.name, password: 'wrong' }));
            for (let index = 0; index <= FAILURES; index++) {
                for (const response of [await admin(), await token({ grant_type: 'password', username: ADMIN.name, password: 'wrong' })]) {
                    expect(response.statusCode, response.body).toBe(429);
                    expect(response.json()).toMatchObject({ code: 'login_attempt_throttled', retryAfter: 1 });
                    expect(response.headers['retry-after']).toBe('1');
                }
            }
            // another account from the same address is not held up
            expect((await app.request({ method: 'GET', url: '/clients/@me', as: client.header })).statusCode).toBe(200);
        } finally {
            for (const slot of slots) app.deps.limits.gate.leave(slot);
        }
        // the refusals did not count: two failures stay below the address limit
        await expectOpen();
        await login();
    });
});

describeEachDialect('limits: budgets per identity and per address', (dialect) => {
    const clock = windowClock();
    let app: TestApp;
    let client: Awaited<ReturnType<typeof createClient>>;
    let user: Awaited<ReturnType<typeof createUser>>;
    beforeAll(async () => {
        app = await startTestApp(dialect, { rateLimit: { userMax: 3, clientMax: 2, anonymousMax: 2 } }, { limits: { clock: () => clock.now } });
        // fixtures in a window of their own: each takes a request of the admin's budget
        client = await createClient(app, await masterRealmId(app));
        clock.next();
        user = await createUser(app, await masterRealmId(app));
    });
    afterAll(async () => app?.dispose());
    beforeEach(() => clock.next());

    const discovery = (headers: Record<string, string> = {}) =>
        app.request({ method: 'GET', url: '/.well-known/openid-configuration', as: null, headers });

    it('charges a user its budget per minute and answers 429 with Retry-After and RateLimit headers', async () => {
        for (let index = 0; index < 3; index++) {
            const response = await app.request({ method: 'GET', url: '/users/@me' });
            expect(response.statusCode).toBe(200);
            expect(response.headers).toMatchObject({ 'ratelimit-limit': '3', 'ratelimit-remaining': String(2 - index), 'ratelimit-reset': '59' });
        }
        const refused = await app.request({ method: 'GET', url: '/users/@me' });
        expect(refused.statusCode).toBe(429);
        expect(refused.json()).toMatchObject({ statusCode: 429, code: 'too_many_requests', retryAfter: 59 });
        expect(refused.headers['retry-after']).toBe('59');
        // another identity from the same address keeps its own budget
        expect((await app.request({ method: 'GET', url: '/users/@me', as: user.header })).statusCode).toBe(200);
        clock.next();
        expect((await app.request({ method: 'GET', url: '/users/@me' })).statusCode).toBe(200);
    });

    it('charges a client its budget, the token request included', async () => {
        const issued = await app.request({ method: 'POST', url: '/token', payload: { grant_type: 'client_credentials' }, as: client.header });
        expect(issued.statusCode, issued.body).toBe(200);
        const accessToken = (issued.json() as TokenAnswer).access_token;
        expect((await app.request({ method: 'GET', url: '/clients/@me', as: `Bearer ${accessToken}` })).statusCode).toBe(200);
        const refused = await app.request({ method: 'GET', url: '/clients/@me', as: `Bearer ${accessToken}` });
        expect(refused.statusCode).toBe(429);
        expect(refused.json()).toMatchObject({ code: 'too_many_requests' });
        const introspected = await app.request({ method: 'POST', url: '/token/introspect', payload: { token: accessToken }, as: client.header });
        expect(introspected.statusCode).toBe(429);
        expect(introspected.json()).toMatchObject({ code: 'too_many_requests', error: 'invalid_request' });
    });

    it('charges a client authenticating in the body to its own budget, not to the address', async () => {
        const post = () => app.request({
            method: 'POST', url: '/token', payload: { grant_type: 'client_credentials', client_id: client.id, client_secret: client.secret }, as: null,
        });
        expect((await post()).statusCode).toBe(200);
        expect((await post()).statusCode).toBe(200);
        const refused = await post();
        expect(refused.statusCode).toBe(429);
        expect(refused.json()).toMatchObject({ code: 'too_many_requests' });
        expect((await discovery()).statusCode).toBe(200);
        expect((await discovery()).statusCode).toBe(200);
        expect((await discovery()).statusCode).toBe(429);
    });

    it('charges requests without credentials to their address, X-Forwarded-For included under TRUST_PROXY true', async () => {
        expect((await discovery()).statusCode).toBe(200);
        expect((await app.request({ method: 'POST', url: '/token', payload: { grant_type: 'password', username: user.name, password: user.password }, as: null })).statusCode).toBe(200);
        const refused = await discovery();
        expect(refused.statusCode).toBe(429);
        expect(refused.json()).toMatchObject({ code: 'too_many_requests', retryAfter: 59 });
        // a credential that does not authenticate is charged to the address as well
        expect((await app.request({ method: 'GET', url: '/users/@me', as: 'Bearer not-a-token' })).statusCode).toBe(401);
        // the address's anonymous budget does not hold up identities
        expect((await app.request({ method: 'GET', url: '/users/@me' })).statusCode).toBe(200);
        // TRUST_PROXY true (the default): the limiter keys on the forwarded address
        expect((await discovery({ 'x-forwarded-for': '203.0.113.7' })).statusCode).toBe(200);
        expect((await discovery({ 'x-forwarded-for': '203.0.113.7' })).statusCode).toBe(200);
        expect((await discovery({ 'x-forwarded-for': '203.0.113.7' })).statusCode).toBe(429);
        expect((await discovery({ 'x-forwarded-for': '203.0.113.8' })).statusCode).toBe(200);
    });

    it('caps request bodies at 10 MB (413) and refuses a content coding it does not decode (415), never a 500', async () => {
        const big = JSON.stringify({ name: 'big', description: 'x'.repeat(11 * 1024 * 1024) });
        const tooLarge = await app.request({ method: 'POST', url: '/roles', payload: big, headers: { 'content-type': 'application/json' } });
        expect(tooLarge.statusCode).toBe(413);
        expect(tooLarge.json()).toMatchObject({ statusCode: 413, code: 'payload_too_large' });
        const form = await app.request({
            method: 'POST', url: '/token', payload: `grant_type=password&username=${'x'.repeat(11 * 1024 * 1024)}`,
            headers: { 'content-type': 'application/x-www-form-urlencoded' }, as: null,
        });
        expect(form.statusCode).toBe(413);
        // a protocol route: the RFC 6749 §5.2 error beside the code
        expect(form.json()).toMatchObject({ statusCode: 413, code: 'payload_too_large', error: 'invalid_request' });
        const compressed = await app.request({
            method: 'POST', url: '/roles', payload: gzipSync(JSON.stringify({ name: 'zipped' })),
            headers: { 'content-type': 'application/json', 'content-encoding': 'compress' },
        });
        expect(compressed.statusCode).toBe(415);
        expect(compressed.json()).toMatchObject({ code: 'unsupported_media_type', issues: [{ path: ['headers', 'content-encoding'] }] });
    });
});

describeEachDialect('limits: TRUST_PROXY false keys on the peer address', (dialect) => {
    const clock = windowClock();
    let app: TestApp;
    beforeAll(async () => {
        app = await startTestApp(dialect, { trustProxy: false, rateLimit: { ...HIGH, anonymousMax: 2 } }, { limits: { failureMax: 2, clock: () => clock.now } });
    });
    afterAll(async () => app?.dispose());

    it('ignores X-Forwarded-For for budgets and failures', async () => {
        const discovery = (forwarded: string) =>
            app.request({ method: 'GET', url: '/.well-known/openid-configuration', as: null, headers: { 'x-forwarded-for': forwarded } });
        expect((await discovery('203.0.113.1')).statusCode).toBe(200);
        expect((await discovery('203.0.113.2')).statusCode).toBe(200);
        expect((await discovery('203.0.113.3')).statusCode).toBe(429);
        clock.next();
        for (const forwarded of ['203.0.113.1', '203.0.113.2']) {
            const response = await app.request({ method: 'GET', url: '/users', as: app.basic(ADMIN.name, 'wrong'), headers: { 'x-forwarded-for': forwarded } });
            expect(response.statusCode).toBe(401);
        }
        expect((await app.request({ method: 'GET', url: '/users', headers: { 'x-forwarded-for': '203.0.113.9' } })).statusCode).toBe(429);
    });
});

// like describeEachDialect: without TEST_REDIS_URL no test is registered (set and unreachable fails)
if (process.env.TEST_REDIS_URL) describe('limits: counters shared through Redis by two app instances', () => {
    const clock = windowClock();
    let a: TestApp;
    let b: TestApp;
    beforeAll(async () => {
        const prefix = `realmgate:test:${randomBytes(6).toString('hex')}:`;
        const overrides = { redisUrl: process.env.TEST_REDIS_URL!, rateLimit: { ...HIGH, anonymousMax: 3 } };
        const options = { limits: { prefix, failureMax: 2, clock: () => clock.now } };
        [a, b] = await Promise.all([startTestApp('sqlite', overrides, options), startTestApp('sqlite', overrides, options)]);
    });
    afterAll(async () => {
        await a?.dispose();
        await b?.dispose();
    });
    beforeEach(() => clock.next());

    const discovery = (app: TestApp) => app.request({ method: 'GET', url: '/.well-known/openid-configuration', as: null });

    it('shares the anonymous budget of an address', async () => {
        expect((await discovery(a)).statusCode).toBe(200);
        expect((await discovery(b)).statusCode).toBe(200);
        expect((await discovery(a)).statusCode).toBe(200);
        expect((await discovery(b)).statusCode).toBe(429);
        expect((await discovery(a)).statusCode).toBe(429);
    });

    it('refuses on one instance an address that failed on the other', async () => {
        for (let index = 0; index < 2; index++) expect((await a.request({ method: 'GET', url: '/users', as: a.basic(ADMIN.name, 'wrong') })).statusCode).toBe(401);
        expect((await a.request({ method: 'GET', url: '/users' })).statusCode).toBe(429);
        // b learns it from the failure count its first charge reads, then refuses before authenticating
        expect((await b.request({ method: 'GET', url: '/users' })).statusCode).toBe(429);
        expect(b.deps.limits.limiter.refusal('127.0.0.1')).toBeGreaterThan(0);
        clock.next();
        expect((await b.request({ method: 'GET', url: '/users' })).statusCode).toBe(200);
    });
});
