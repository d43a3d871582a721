import { beforeEach, expect, it } from 'vitest';
import { useTestApp } from '../../app.js';
import {
    authorizeParams, browser, browserWorld, codeRow, enrolTotp, hiddenFields, locationParams, nextTotpCode, setCookieLine, type BrowserWorld,
} from '../../browser.js';
import { describeEachDialect } from '../../databases.js';
import { toDbDate } from '../../../src/db/values.js';
import { WINDOW_MS } from '../../../src/limits/limiter.js';
import { loginGateKey } from '../../../src/limits/request-limits.js';
import { sha256Hex } from '../../../src/secrets/digests.js';

/*
 * Multi-factor sign-in with TOTP (RFC 6238) in the browser: after a right password, a user holding a confirmed TOTP
 * authenticator (RFC 6238) is asked for the code on a second page; only then is the console
 * session created and the authorization answered. The pending state is an auth_mfa_tickets row
 * named by an HttpOnly cookie (authn/pending-sign-in.ts).
 */
describeEachDialect('browser sign-in: the second-factor page', (dialect) => {
    const FAILURES = 3;
    const clock = { now: 40_000 * WINDOW_MS + 1_000 };
    const app = useTestApp(dialect, { rateLimit: { userMax: 1_000_000, clientMax: 1_000_000, anonymousMax: 1_000_000 } }, {
        limits: { failureMax: FAILURES, loginConcurrency: 1, clock: () => clock.now },
    });
    // each test in a window of its own: failures counted by one never reach another
    beforeEach(() => {
        clock.now = (Math.floor(clock.now / WINDOW_MS) + 1) * WINDOW_MS + 1_000;
    });
    let addresses = 0;

    /** a browser at the second page of a world whose user enrolled */
    const toSecondPage = async (world: BrowserWorld) => {
        const client = browser(app, `192.0.2.${++addresses}`);
        const { params } = authorizeParams(world);
        const page = await client.authorize(params);
        const second = await client.submit(page, { username: world.user.name, password: world.user.password });
        return { client, params, second };
    };
    const enrolledWorld = async () => {
        const world = await browserWorld(app, { firstParty: true });
        return { world, ...(await enrolTotp(app, world)) };
    };
    const ticketCount = async (userId: string) =>
        (await app.deps.db.selectFrom('auth_mfa_tickets').select('id').where('user_id', '=', userId).execute()).length;

    it('asks for the authentication code after the password, then signs in and answers the code at the redirect URI', async () => {
        const { world, secret } = await enrolledWorld();
        const { client, params, second } = await toSecondPage(world);
        expect(second.statusCode, second.body).toBe(200);
        expect(second.body).toContain('<label for="otp">Authentication code</label>');
        expect(second.body).toContain('<summary>Use a recovery code instead</summary>');
        expect(second.body).toContain('<label for="recovery_code">Recovery code</label>');
        expect(second.headers['content-security-policy']).toContain("frame-ancestors 'none'");
        expect(second.headers['x-frame-options']).toBe('DENY');
        expect(second.headers['cache-control']).toBe('no-store');
        const fields = hiddenFields(second.body);
        expect(fields.csrf).toBe(client.jar.cookies.get('realmgate_csrf'));
        expect(fields.state).toBe(params.state);
        // no user id travels in the page: the pending sign-in is the cookie's
        expect(second.body).not.toContain(world.user.id);
        // nothing signed in yet: no session cookie, no code
        expect(setCookieLine(second, 'realmgate_session')).toBeUndefined();
        expect(second.headers.location).toBeUndefined();
        const pending = setCookieLine(second, 'realmgate_mfa')!;
        expect(pending).toMatch(/HttpOnly/i);
        expect(pending).toMatch(/SameSite=Strict/i);
        expect(pending).toMatch(/Max-Age=300/i);
        // the table holds a digest-derived id, never the cookie's secret
        const secretValue = client.jar.cookies.get('realmgate_mfa')!;
        const rows = await app.deps.db.selectFrom('auth_mfa_tickets').selectAll().where('user_id', '=', world.user.id).execute();
        expect(rows).toHaveLength(1);
        expect(JSON.stringify(rows)).not.toContain(secretValue);
        expect(rows[0]!.id.replace(/-/g, '')).toBe(sha256Hex(secretValue).slice(0, 32));

        const answer = await client.submit(second, { otp: await nextTotpCode(secret) });
        const { base, params: response } = locationParams(answer);
        expect(base).toBe(world.redirectUri);
        expect(response.state).toBe(params.state);
        const sessionId = client.jar.cookies.get('realmgate_session')!.split('.')[0];
        expect((await codeRow(app, response.code!))?.session_id).toBe(sessionId);
        // the pending sign-in is used up and its cookie cleared
        expect(client.jar.cookies.get('realmgate_mfa')).toBeUndefined();
        expect(await ticketCount(world.user.id)).toBe(0);
    });

    it('counts a wrong code as a failed authentication and keeps the page open; the right code then signs in', async () => {
        const { world, secret } = await enrolledWorld();
        const { client, second } = await toSecondPage(world);
        const wrong = await client.submit(second, { otp: '000000' });
        expect(wrong.statusCode).toBe(401);
        expect(wrong.body).toContain('The code is incorrect or was already used.');
        expect(setCookieLine(wrong, 'realmgate_session')).toBeUndefined();
        expect((await client.submit(second, { otp: '' })).statusCode).toBe(400);
        const right = await client.submit(wrong, { otp: await nextTotpCode(secret) });
        expect(locationParams(right).params.code).toBeDefined();
    });

    it('refuses the address once wrong codes reach the failed-authentication limit', async () => {
        const { world, secret } = await enrolledWorld();
        const { client, second } = await toSecondPage(world);
        for (let attempt = 0; attempt < FAILURES; attempt++) expect((await client.submit(second, { otp: '123456' })).statusCode).toBe(401);
        const refused = await client.submit(second, { otp: await nextTotpCode(secret) });
        expect(refused.statusCode).toBe(429);
        expect(refused.headers['content-type']).toContain('text/html');
        expect(refused.headers['retry-after']).toBeDefined();
        expect(setCookieLine(refused, 'realmgate_session')).toBeUndefined();
    });

    it('refuses a replayed code (RFC 6238 §5.2): the code that signed in one browser does not sign in another', async () => {
        const { world, secret } = await enrolledWorld();
        const code = await nextTotpCode(secret);
        const first = await toSecondPage(world);
        expect(locationParams(await first.client.submit(first.second, { otp: code })).params.code).toBeDefined();
        const second = await toSecondPage(world);
        const replayed = await second.client.submit(second.second, { otp: code });
        expect(replayed.statusCode).toBe(401);
        expect(setCookieLine(replayed, 'realmgate_session')).toBeUndefined();
    });

    it('signs in with a recovery code, once', async () => {
        const { world, recoveryCodes } = await enrolledWorld();
        const first = await toSecondPage(world);
        // what a human types: upper case, no dash
        const typed = recoveryCodes[0]!.replace('-', '').toUpperCase();
        expect(locationParams(await first.client.submit(first.second, { recovery_code: typed })).params.code).toBeDefined();
        const second = await toSecondPage(world);
        const again = await second.client.submit(second.second, { recovery_code: recoveryCodes[0]! });
        expect(again.statusCode).toBe(401);
        expect(locationParams(await second.client.submit(again, { recovery_code: recoveryCodes[1]! })).params.code).toBeDefined();
    });

    it('refuses the form without its CSRF token, from another origin, and without the pending cookie', async () => {
        const { world, secret } = await enrolledWorld();
        const { client, second } = await toSecondPage(world);
        const code = await nextTotpCode(secret);
        expect((await client.submit(second, { otp: code, csrf: 'x'.repeat(43) })).statusCode).toBe(403);
        expect((await client.submit(second, { otp: code }, { origin: 'https://evil.example' })).statusCode).toBe(403);
        // another browser (no pending cookie) with the page's fields and its own CSRF token
        const other = browser(app, `192.0.2.${++addresses}`);
        const page = await other.authorize(authorizeParams(world).params);
        const stolen = await other.post('/authorize/second-factor', { ...hiddenFields(second.body), csrf: hiddenFields(page.body).csrf!, otp: code });
        expect(stolen.statusCode).toBe(401);
        expect(stolen.body).toContain('Sign in again');
        expect(stolen.body).toContain('<label for="password">Password</label>');
        expect(other.jar.cookies.get('realmgate_session')).toBeUndefined();
        // the code was not used up by the refusals: the right browser still signs in with it
        expect(locationParams(await client.submit(second, { otp: code })).params.code).toBeDefined();
    });

    it('binds the pending sign-in to its realm: a foreign realm\'s authorization request does not redeem it', async () => {
        const { world, secret } = await enrolledWorld();
        const foreign = await browserWorld(app, { firstParty: true });
        const { client, second } = await toSecondPage(world);
        const { params } = authorizeParams(foreign);
        const answer = await client.post('/authorize/second-factor', { ...params, csrf: hiddenFields(second.body).csrf!, otp: await nextTotpCode(secret) });
        expect(answer.statusCode).toBe(401);
        expect(answer.body).toContain('Sign in again');
        expect(setCookieLine(answer, 'realmgate_session')).toBeUndefined();
    });

    it('is single use and expires', async () => {
        const { world, secret, recoveryCodes } = await enrolledWorld();
        const { client, second } = await toSecondPage(world);
        const pending = client.jar.cookies.get('realmgate_mfa')!;
        expect(locationParams(await client.submit(second, { otp: await nextTotpCode(secret) })).params.code).toBeDefined();
        // the used cookie, presented again, names nothing
        client.jar.cookies.set('realmgate_mfa', pending);
        const reused = await client.submit(second, { recovery_code: recoveryCodes[0]! });
        expect(reused.statusCode).toBe(401);
        expect(reused.body).toContain('Sign in again');

        const late = await toSecondPage(world);
        await app.deps.db.updateTable('auth_mfa_tickets').set({ expires_at: toDbDate(app.deps.handle.dialect, new Date(Date.now() - 1_000)) })
            .where('user_id', '=', world.user.id).execute();
        const expired = await late.client.submit(late.second, { recovery_code: recoveryCodes[0]! });
        expect(expired.statusCode).toBe(401);
        expect(expired.body).toContain('Sign in again');
        // an expired sign-in is refused before any code is looked at: the recovery code is still unused
        const fresh = await toSecondPage(world);
        expect(locationParams(await fresh.client.submit(fresh.second, { recovery_code: recoveryCodes[0]! })).params.code).toBeDefined();
    });

    it('holds concurrent second pages of a throttled account at the login gate', async () => {
        const { world, secret } = await enrolledWorld();
        const { client, second } = await toSecondPage(world);
        const address = `192.0.2.${addresses}`;
        const key = loginGateKey(`mfa:${world.user.id}`, address);
        app.deps.limits.gate.failed(key);
        expect(app.deps.limits.gate.enter(key)).toBe(true);
        try {
            const held = await client.submit(second, { otp: await nextTotpCode(secret) });
            expect(held.statusCode).toBe(429);
            expect(held.body).toContain('Too many sign-in attempts');
            expect(held.body).toContain('Authentication code');
        } finally {
            app.deps.limits.gate.leave(key);
        }
    });

    it('signs in without a second page when multi-factor is off in the realm', async () => {
        const { world } = await enrolledWorld();
        await app.json({ method: 'POST', url: `/realms/${world.realmId}`, payload: { mfaEnabled: false } }, 200);
        const { second } = await toSecondPage(world);
        expect(locationParams(second).params.code).toBeDefined();
    });
});
