import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { WINDOW_MS } from '../../../src/limits/limiter.js';
import { loginGateKey } from '../../../src/limits/request-limits.js';
import { startTestApp, useTestApp, type TestApp } from '../../app.js';
import { authorizeParams, browser, browserWorld, codeRow, type BrowserWorld } from '../../browser.js';
import { describeEachDialect } from '../../databases.js';
import { login } from '../../sessions.js';

/*
 * POST /authorize (the API form of spec Authentication 7), and the sign-in form (the sign-in
 * form is protected like the password grant: failed-authentication limiter, concurrent-login gate).
 */
describeEachDialect('POST /authorize: the API form', (dialect) => {
    const app = useTestApp(dialect);
    let world: BrowserWorld;
    beforeAll(async () => {
        world = await browserWorld(app);
    });

    const authorize = (as: string, payload: Record<string, string>) => app.request({ method: 'POST', url: '/authorize', as, payload });

    it('answers a user bearer issued without a client with the redirect URL, the code, state and iss', async () => {
        const user = await login(app, world.realmId, world.user.name, world.user.password);
        const { params } = authorizeParams(world);
        const answer = await authorize(user.bearer, params);
        expect(answer.statusCode, answer.body).toBe(200);
        const body = answer.json() as { url: string; code: string; state: string; iss: string };
        const iss = `${app.deps.config.publicUrl}/realms/${world.realmName}`;
        expect(body.state).toBe(params.state);
        expect(body.iss).toBe(iss);
        expect(body.url).toBe(`${world.redirectUri}?${new URLSearchParams({ code: body.code, state: params.state!, iss }).toString()}`);
        // the code belongs to the bearer's session; no consent page for the API form
        expect(await codeRow(app, body.code)).toMatchObject({ session_id: user.sessionId, client_id: world.clientId, user_id: world.user.id });
        expect(answer.headers['cache-control']).toBe('no-store');
    });

    it('accepts a form body and Basic (Basic authentication is unaffected)', async () => {
        const { params } = authorizeParams(world);
        const answer = await app.request({
            method: 'POST', url: '/authorize', as: app.basic(world.user.id, world.user.password),
            headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams(params).toString(),
        });
        expect(answer.statusCode, answer.body).toBe(200);
        const row = await codeRow(app, (answer.json() as { code: string }).code);
        const session = await app.deps.db.selectFrom('auth_sessions').selectAll().where('id', '=', row!.session_id).executeTakeFirstOrThrow();
        expect(session).toMatchObject({ sub: world.user.id, client_id: null, cookie_digest: null });
    });

    it('refuses a bearer issued to a client with 400 login_required', async () => {
        const viaClient = await login(app, world.realmId, world.user.name, world.user.password, { client_id: world.clientId });
        const answer = await authorize(viaClient.bearer, authorizeParams(world).params);
        expect(answer.statusCode).toBe(400);
        expect(answer.json()).toMatchObject({ code: 'login_required', error: 'login_required' });
    });

    it('refuses a user of another realm with login_required, and answers request errors as JSON, never a redirect', async () => {
        const other = await browserWorld(app);
        const stranger = await login(app, other.realmId, other.user.name, other.user.password);
        const refused = await authorize(stranger.bearer, authorizeParams(world).params);
        expect(refused.statusCode).toBe(400);
        expect(refused.json()).toMatchObject({ code: 'login_required' });
        const user = await login(app, world.realmId, world.user.name, world.user.password);
        const unregistered = await authorize(user.bearer, { ...authorizeParams(world).params, redirect_uri: 'https://evil.example/cb' });
        expect(unregistered.statusCode).toBe(400);
        expect(unregistered.headers.location).toBeUndefined();
        expect(unregistered.json()).toMatchObject({ error: 'invalid_request' });
        const plain = await authorize(user.bearer, { ...authorizeParams(world).params, code_challenge_method: 'plain' });
        expect(plain.json()).toMatchObject({ error: 'invalid_request' });
        const invalid = await authorize('Bearer not-a-token', authorizeParams(world).params);
        expect(invalid.statusCode).toBe(401);
    });
});

describeEachDialect('browser sign-in: the failed-authentication limiter and the login gate', (dialect) => {
    const FAILURES = 3;
    const clock = { now: 20_000 * WINDOW_MS + 1_000 };
    let app: TestApp;
    let world: BrowserWorld;
    beforeAll(async () => {
        app = await startTestApp(dialect, { rateLimit: { userMax: 1_000_000, clientMax: 1_000_000, anonymousMax: 1_000_000 } }, {
            limits: { failureMax: FAILURES, loginConcurrency: 1, clock: () => clock.now },
        });
        world = await browserWorld(app, { firstParty: true });
    });
    afterAll(async () => app?.dispose());
    beforeEach(() => {
        clock.now = (Math.floor(clock.now / WINDOW_MS) + 1) * WINDOW_MS + 1_000;
    });

    it('counts wrong passwords toward the address: once the limit is reached the address is refused (429 page)', async () => {
        const client = browser(app);
        const page = await client.authorize(authorizeParams(world).params);
        for (let attempt = 0; attempt < FAILURES; attempt++) {
            expect((await client.submit(page, { username: world.user.name, password: 'wrong' })).statusCode).toBe(401);
        }
        const refused = await client.submit(page, { username: world.user.name, password: world.user.password });
        expect(refused.statusCode).toBe(429);
        expect(refused.headers['content-type']).toContain('text/html');
        expect(refused.headers['retry-after']).toBeDefined();
        expect(refused.headers['set-cookie'] ?? '').not.toContain('realmgate_session');
    });

    it('holds concurrent sign-ins of a throttled account from one address at the login gate', async () => {
        const client = browser(app);
        const page = await client.authorize(authorizeParams(world).params);
        // an attempt is already running for the account from this address, and it failed before
        const key = loginGateKey(`user:${world.user.name}`, '127.0.0.1');
        app.deps.limits.gate.failed(key);
        expect(app.deps.limits.gate.enter(key)).toBe(true);
        try {
            const held = await client.submit(page, { username: world.user.name, password: world.user.password });
            expect(held.statusCode).toBe(429);
            expect(held.body).toContain('Too many sign-in attempts');
            expect(held.headers['retry-after']).toBe('1');
        } finally {
            app.deps.limits.gate.leave(key);
        }
    });
});
