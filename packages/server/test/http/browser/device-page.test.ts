import { beforeEach, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { useTestApp } from '../../app.js';
import { SoftwareAuthenticator } from '../../software-authenticator.js';
import { relyingPartyOf } from '../../../src/authn/passkey-ceremonies.js';
import { browser, browserWorld, createBrowserClient, enrolTotp, hiddenFields, nextTotpCode, setCookieLine, type BrowserWorld } from '../../browser.js';
import { describeEachDialect } from '../../databases.js';
import { adjustDeviceCode, authorizeDevice, DEVICE_GRANT, deviceCodeRow, poll, pollError } from '../../device-flow.js';
import { DEVICE_VERIFICATION_MAX } from '../../../src/limits/device-verification.js';
import { WINDOW_MS } from '../../../src/limits/limiter.js';

/*
 * The device verification page (RFC 8628 §3.3, spec `GET /device`) through
 * app.inject — the code, the sign-in of the code's realm (with the second page when due), the
 * client and scopes, Approve or Deny, the result; then the device's poll.
 */
describeEachDialect('the device verification page', (dialect) => {
    const clock = { now: 50_000 * WINDOW_MS + 1_000 };
    const app = useTestApp(dialect, {}, { limits: { clock: () => clock.now } });
    // each test in a limiter window of its own: wrong codes of one never throttle another
    beforeEach(() => {
        clock.now = (Math.floor(clock.now / WINDOW_MS) + 1) * WINDOW_MS + 1_000;
    });
    let addresses = 0;
    const newBrowser = () => browser(app, `198.51.100.${++addresses}`);

    /** a browser world with a public device client (display name "Living Room TV") */
    const deviceWorld = async () => {
        const world = await browserWorld(app, { firstParty: true });
        const tv = { id: await createBrowserClient(app, world.realmId, { displayName: 'Living Room TV', grantTypes: [DEVICE_GRANT, 'refresh_token'] }) };
        return { world, tv };
    };
    const pathOf = (uri: string) => {
        const url = new URL(uri);
        return `${url.pathname}${url.search}`;
    };
    const signIn = (client: ReturnType<typeof browser>, page: LightMyRequestResponse, world: BrowserWorld) =>
        client.submit(page, { username: world.user.name, password: world.user.password });
    const decide = (client: ReturnType<typeof browser>, page: LightMyRequestResponse, decision: 'approve' | 'deny') => client.submit(page, { decision });

    it('serves the code form with the pages\' headers, a CSRF token and no script', async () => {
        const client = newBrowser();
        const page = await client.get('/device');
        expect(page.statusCode).toBe(200);
        expect(page.headers['content-type']).toContain('text/html');
        expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
        expect(page.headers['x-frame-options']).toBe('DENY');
        expect(page.headers['cache-control']).toBe('no-store');
        expect(page.body).toContain('<label for="user_code">Code</label>');
        expect(page.body).toContain('<button type="submit">Continue</button>');
        expect(page.body).not.toMatch(/<script/);
        expect(hiddenFields(page.body).csrf).toBe(client.jar.cookies.get('realmgate_csrf'));
    });

    it('is where verification_uri and verification_uri_complete point; signs in, shows client and scopes, approves, and the poll gets the tokens', async () => {
        const { world, tv } = await deviceWorld();
        const started = await authorizeDevice(app, tv, { scope: 'openid profile' });
        expect(started.verification_uri).toBe(`${app.deps.config.publicUrl}/device`);
        expect(started.verification_uri_complete).toBe(`${app.deps.config.publicUrl}/device?user_code=${started.user_code}`);
        const client = newBrowser();
        const signInPage = await client.get(pathOf(started.verification_uri_complete));
        expect(signInPage.statusCode).toBe(200);
        expect(signInPage.body).toContain(`Sign in to Realm ${world.realmName}`);
        expect(signInPage.body).toContain('to continue to Living Room TV');
        expect(hiddenFields(signInPage.body)).toMatchObject({ user_code: started.user_code });
        expect(await pollError(app, tv, started.device_code)).toMatchObject({ error: 'authorization_pending' });
        // the device waits its interval before the next poll (RFC 8628 §3.5)
        await adjustDeviceCode(app, started.device_code, { polledAt: new Date(Date.now() - 60_000) });

        const confirm = await signIn(client, signInPage, world);
        expect(confirm.statusCode, confirm.body).toBe(200);
        expect(confirm.body).toContain('Living Room TV on a device wants to access your account');
        expect(confirm.body).toContain(`Make sure your device shows the code ${started.user_code}.`);
        expect(confirm.body).toContain('<code>openid</code>');
        expect(confirm.body).toContain('<code>profile</code>');
        expect(confirm.body).toContain('>Approve</button>');
        expect(confirm.body).toContain('>Deny</button>');
        const sessionId = client.jar.cookies.get('realmgate_session')!.split('.')[0];

        const done = await decide(client, confirm, 'approve');
        expect(done.statusCode).toBe(200);
        expect(done.body).toContain('Device connected');
        expect(done.body).toContain(`<p class="realm">Realm ${world.realmName}</p>`);
        const row = await deviceCodeRow(app, started.device_code);
        expect(row).toMatchObject({ status: 'approved', user_id: world.user.id, session_id: sessionId });
        const tokens = await poll(app, tv, started.device_code);
        expect(tokens.statusCode, tokens.body).toBe(200);
        expect(tokens.json()).toMatchObject({ token_type: 'Bearer', refresh_token: expect.any(String) });
    });

    it('takes a typed code (any case, no dash) and, with a session of the code\'s realm, goes straight to the decision', async () => {
        const { world, tv } = await deviceWorld();
        const client = newBrowser();
        const first = await authorizeDevice(app, tv);
        const entry = await client.get('/device');
        const signInPage = await client.submit(entry, { user_code: first.user_code.replace('-', '').toLowerCase() });
        expect(signInPage.body).toContain('<label for="password">Password</label>');
        await decide(client, await signIn(client, signInPage, world), 'approve');

        const second = await authorizeDevice(app, tv);
        const confirm = await client.submit(await client.get('/device'), { user_code: second.user_code });
        expect(confirm.body).toContain('>Approve</button>');
        // the code page of a signed-in browser shows its realm's display name
        expect((await client.get('/device')).body).toContain(`<p class="realm">Realm ${world.realmName}</p>`);
        expect((await decide(client, confirm, 'approve')).body).toContain('Device connected');
        expect((await poll(app, tv, second.device_code)).statusCode).toBe(200);
    });

    it('denies: the result page, and the poll answers access_denied', async () => {
        const { world, tv } = await deviceWorld();
        const started = await authorizeDevice(app, tv);
        const client = newBrowser();
        const confirm = await signIn(client, await client.get(pathOf(started.verification_uri_complete)), world);
        const done = await decide(client, confirm, 'deny');
        expect(done.statusCode).toBe(200);
        expect(done.body).toContain('Living Room TV was not given access.');
        expect(await pollError(app, tv, started.device_code)).toMatchObject({ error: 'access_denied' });
    });

    it('answers a wrong, an expired and an already decided code with the code form and a clear message', async () => {
        const { world, tv } = await deviceWorld();
        const client = newBrowser();
        const wrong = await client.get('/device?user_code=BCDF-GHJK');
        expect(wrong.statusCode).toBe(400);
        expect(wrong.body).toContain('The code is unknown or has expired.');
        expect(wrong.body).toContain('value="BCDF-GHJK"');

        const expiring = await authorizeDevice(app, tv);
        await adjustDeviceCode(app, expiring.device_code, { expiresAt: new Date(Date.now() - 1_000) });
        expect((await client.get(pathOf(expiring.verification_uri_complete))).body).toContain('The code is unknown or has expired.');

        const started = await authorizeDevice(app, tv);
        const confirm = await signIn(client, await client.get(pathOf(started.verification_uri_complete)), world);
        await decide(client, confirm, 'approve');
        // the same decision form again: decided already
        const again = await decide(client, confirm, 'deny');
        expect(again.statusCode).toBe(400);
        expect(again.body).toContain('The code is unknown or has expired.');
        expect((await deviceCodeRow(app, started.device_code)).status).toBe('approved');
    });

    it('refuses every form without the CSRF token or from another origin, and decides nothing', async () => {
        const { world, tv } = await deviceWorld();
        const started = await authorizeDevice(app, tv);
        const client = newBrowser();
        const entry = await client.get('/device');
        expect((await client.submit(entry, { user_code: started.user_code, csrf: '' })).statusCode).toBe(403);
        const signInPage = await client.get(pathOf(started.verification_uri_complete));
        const forged = await client.submit(signInPage, { username: world.user.name, password: world.user.password }, { origin: 'https://evil.example' });
        expect(forged.statusCode).toBe(403);
        expect(client.jar.cookies.get('realmgate_session')).toBeUndefined();
        const confirm = await signIn(client, signInPage, world);
        const refused = await client.submit(confirm, { decision: 'approve', csrf: 'y'.repeat(43) });
        expect(refused.statusCode).toBe(403);
        expect((await deviceCodeRow(app, started.device_code)).status).toBe('pending');
    });

    it('never uses a session of another realm: the code\'s realm asks for a sign-in, and a forged decision finds no code', async () => {
        const { tv } = await deviceWorld();
        const other = await deviceWorld();
        const started = await authorizeDevice(app, tv);
        const client = newBrowser();
        // signed in to the other realm through its own device code
        const own = await authorizeDevice(app, other.tv);
        const confirm = await signIn(client, await client.get(pathOf(own.verification_uri_complete)), other.world);
        // the first realm's code: its sign-in page, not the decision
        const page = await client.get(pathOf(started.verification_uri_complete));
        expect(page.body).toContain('<label for="password">Password</label>');
        expect(page.body).not.toContain('>Approve</button>');
        // the other realm's session posting a decision for this code: unknown to it
        const forged = await client.post('/device/decision', { ...hiddenFields(confirm.body), user_code: started.user_code, decision: 'approve' });
        expect(forged.statusCode).toBe(400);
        expect(forged.body).toContain('The code is unknown or has expired.');
        expect((await deviceCodeRow(app, started.device_code)).status).toBe('pending');
    });

    it('shows the decision again when the session changed since the page was shown', async () => {
        const { world, tv } = await deviceWorld();
        const started = await authorizeDevice(app, tv);
        const client = newBrowser();
        const confirm = await signIn(client, await client.get(pathOf(started.verification_uri_complete)), world);
        const answer = await client.submit(confirm, { decision: 'approve', session_id: '00000000-0000-4000-8000-000000000000' });
        expect(answer.body).toContain('>Approve</button>');
        expect((await deviceCodeRow(app, started.device_code)).status).toBe('pending');
    });

    it(`throttles code entry after ${DEVICE_VERIFICATION_MAX} wrong codes: 429 with the wait, the right code refused too`, async () => {
        const { tv } = await deviceWorld();
        const started = await authorizeDevice(app, tv);
        const client = newBrowser();
        for (let attempt = 0; attempt < DEVICE_VERIFICATION_MAX; attempt++) {
            expect((await client.get('/device?user_code=ZZZZ-ZZZZ')).statusCode).toBe(400);
        }
        const refused = await client.get(pathOf(started.verification_uri_complete));
        expect(refused.statusCode).toBe(429);
        expect(refused.headers['retry-after']).toBe('59');
        expect(refused.body).toContain('Too many wrong codes. Wait 59 seconds and try again.');
        expect(refused.body).toContain('<label for="user_code">Code</label>');
        // another address is not held up
        expect((await newBrowser().get(pathOf(started.verification_uri_complete))).statusCode).toBe(200);
    });

    it('signs in with the second factor on the way, by code or by recovery code', async () => {
        const { world, tv } = await deviceWorld();
        const { secret, recoveryCodes } = await enrolTotp(app, world);
        const started = await authorizeDevice(app, tv);
        const client = newBrowser();
        const second = await signIn(client, await client.get(pathOf(started.verification_uri_complete)), world);
        expect(second.body).toContain('<label for="otp">Authentication code</label>');
        expect(new URL(/action="([^"]*)"/.exec(second.body)![1]!).pathname).toBe('/device/second-factor');
        expect(setCookieLine(second, 'realmgate_session')).toBeUndefined();
        expect((await client.submit(second, { otp: '111111' })).statusCode).toBe(401);
        const confirm = await client.submit(second, { otp: await nextTotpCode(secret) });
        expect(confirm.body).toContain('>Approve</button>');
        expect((await decide(client, confirm, 'approve')).body).toContain('Device connected');

        const next = await authorizeDevice(app, tv);
        const other = newBrowser();
        const page = await signIn(other, await other.get(pathOf(next.verification_uri_complete)), world);
        const byRecovery = await other.submit(page, { recovery_code: recoveryCodes[0]! });
        expect((await decide(other, byRecovery, 'approve')).body).toContain('Device connected');
        expect((await poll(app, tv, next.device_code)).statusCode).toBe(200);
    });
    it('offers a passkey as the second factor on the way too (API.md §8)', async () => {
        const { world, tv } = await deviceWorld();
        await app.json({ method: 'POST', url: `/realms/${world.realmId}`, payload: { mfaEnabled: true } }, 200);
        const rp = relyingPartyOf(app.deps.config.publicUrl);
        const authenticator = new SoftwareAuthenticator(rp.id, rp.origin, world.user.id);
        const options = await app.json<{ data: { challenge: string } }>({ method: 'POST', url: '/user-authenticators/webauthn/registration-options', payload: { userId: world.user.id } }, 200);
        await app.json({
            method: 'POST', url: '/user-authenticators/webauthn/registration', payload: { name: 'Phone', userId: world.user.id, response: authenticator.register(options.data.challenge) },
        }, 201);
        const started = await authorizeDevice(app, tv);
        const client = newBrowser();
        const second = await signIn(client, await client.get(pathOf(started.verification_uri_complete)), world);
        expect(second.body).toContain('Use a passkey');
        // a passkey-only user: no code field
        expect(second.body).not.toContain('name="otp"');
        const fields = hiddenFields(second.body);
        const offered = await client.post('/authorize/passkey-options', { ...fields, ceremony: 'second-factor' });
        const challenge = offered.json<{ options: { challenge: string } }>().options.challenge;
        const confirm = await client.post('/device/second-factor', { ...fields, passkey_response: JSON.stringify(authenticator.assert(challenge)) });
        expect(confirm.body).toContain('>Approve</button>');
        expect((await decide(client, confirm, 'approve')).body).toContain('Device connected');
        expect((await poll(app, tv, started.device_code)).statusCode).toBe(200);
    });
});
