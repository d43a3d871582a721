import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../app.js';
import { authorizeParams, browser, browserWorld, codeRow, hiddenFields, locationParams, setCookieLine, type BrowserWorld } from '../../browser.js';
import { describeEachDialect } from '../../databases.js';
import { fromDbDate, toDbDate } from '../../../src/db/values.js';

/*
 * The browser sign-in through app.inject — the sign-in page, the form
 * post, the console-session cookie, the code at the redirect URI and its stored row.
 */
describeEachDialect('browser sign-in: authorization code flow', (dialect) => {
    const app = useTestApp(dialect);

    const signIn = async (world: BrowserWorld, extra: Record<string, string> = {}) => {
        const client = browser(app);
        const { params, pair } = authorizeParams(world, extra);
        const page = await client.authorize(params);
        expect(page.statusCode, page.body).toBe(200);
        const answer = await client.submit(page, { username: world.user.name, password: world.user.password });
        return { client, params, pair, page, answer };
    };

    it('shows a sign-in page with labelled fields, the realm and client names, a CSRF token and no inline script', async () => {
        const world = await browserWorld(app, { displayName: 'Example App' });
        const client = browser(app);
        const { params } = authorizeParams(world, { login_hint: world.user.email });
        const page = await client.authorize(params);
        expect(page.statusCode).toBe(200);
        expect(page.headers['content-type']).toContain('text/html');
        expect(page.body).toContain('<label for="username">Username or email</label>');
        expect(page.body).toContain('<label for="password">Password</label>');
        expect(page.body).toContain('<button type="submit">Sign in</button>');
        expect(page.body).toContain(`Realm ${world.realmName}`);
        expect(page.body).toContain('Example App');
        // login_hint prefills the username
        expect(page.body).toContain(`value="${world.user.email}"`);
        expect(page.body).not.toMatch(/<script(?![^>]*\bsrc=)/);
        expect(page.body).not.toMatch(/\sstyle=/);
        const fields = hiddenFields(page.body);
        expect(fields.csrf).toMatch(/^[A-Za-z0-9_-]{43}$/);
        expect(fields.client_id).toBe(world.clientId);
        expect(fields.code_challenge).toBe(params.code_challenge);
        const csrfCookie = setCookieLine(page, 'realmgate_csrf');
        expect(csrfCookie).toMatch(/HttpOnly/i);
        expect(csrfCookie).toMatch(/SameSite=Strict/i);
        expect(client.jar.cookies.get('realmgate_csrf')).toBe(fields.csrf);
    });

    it('escapes what it shows: a display name with markup stays text', async () => {
        const world = await browserWorld(app, { displayName: '<img src=x onerror=alert(1)>' });
        const page = await browser(app).authorize(authorizeParams(world).params);
        expect(page.body).not.toContain('<img src=x');
        expect(page.body).toContain('&lt;img src=x onerror=alert(1)&gt;');
    });

    it('signs in and answers 303 to the redirect URI with code, state and iss; the code is stored only as its digest', async () => {
        const world = await browserWorld(app, { firstParty: true });
        const { client, params, answer } = await signIn(world);
        const { base, params: response } = locationParams(answer);
        expect(base).toBe(world.redirectUri);
        expect(response.state).toBe(params.state);
        expect(response.iss).toBe(`${app.deps.config.publicUrl}/realms/${world.realmName}`);
        expect(response.code).toMatch(/^[A-Za-z0-9_-]{43}$/);
        const cookieLine = setCookieLine(answer, 'realmgate_session')!;
        expect(cookieLine).toMatch(/HttpOnly/i);
        expect(cookieLine).toMatch(/SameSite=Lax/i);
        expect(cookieLine).toMatch(/Path=\//);
        expect(cookieLine).not.toMatch(/Secure/i);
        const cookie = client.jar.cookies.get('realmgate_session')!;
        const sessionId = cookie.split('.')[0]!;
        const row = await codeRow(app, response.code!);
        expect(row).toBeDefined();
        expect(row).toMatchObject({
            client_id: world.clientId, user_id: world.user.id, realm_id: world.realmId, session_id: sessionId,
            redirect_uri: world.redirectUri, scope: 'openid profile', nonce: params.nonce,
            code_challenge: params.code_challenge, code_challenge_method: 'S256', used_at: null,
        });
        // nothing stores the code itself
        expect(JSON.stringify(row)).not.toContain(response.code);
        const lifetime = fromDbDate(row!.expires_at).getTime() - fromDbDate(row!.auth_time).getTime();
        expect(Math.round(lifetime / 1000 / 60)).toBe(5);
        const session = await app.deps.db.selectFrom('auth_sessions').selectAll().where('id', '=', sessionId).executeTakeFirstOrThrow();
        expect(session.client_id).toBeNull();
        expect(session.sub).toBe(world.user.id);
        expect(session.cookie_digest).toMatch(/^[0-9a-f]{64}$/);
        expect(session.cookie_digest).not.toBe(cookie.split('.')[1]);
    });

    it('accepts the email as the username', async () => {
        const world = await browserWorld(app, { firstParty: true });
        const client = browser(app);
        const page = await client.authorize(authorizeParams(world).params);
        const answer = await client.submit(page, { username: world.user.email, password: world.user.password });
        expect(locationParams(answer).params.code).toBeDefined();
    });

    it('single sign-on: a live session answers the next request without the form; prompt=login and max_age ask again', async () => {
        const world = await browserWorld(app, { firstParty: true });
        const { client } = await signIn(world);
        const again = await client.authorize(authorizeParams(world).params);
        const first = await codeRow(app, locationParams(again).params.code!);
        const sessionId = client.jar.cookies.get('realmgate_session')!.split('.')[0];
        expect(first?.session_id).toBe(sessionId);

        const forced = await client.authorize(authorizeParams(world, { prompt: 'login' }).params);
        expect(forced.statusCode).toBe(200);
        expect(forced.body).toContain('Username or email');
        const fresh = await client.submit(forced, { username: world.user.name, password: world.user.password });
        const freshRow = await codeRow(app, locationParams(fresh).params.code!);
        // a fresh sign-in is a new browser session
        expect(freshRow?.session_id).not.toBe(sessionId);

        // the session authenticated an hour ago: max_age=60 asks again, max_age=7200 does not
        const current = client.jar.cookies.get('realmgate_session')!.split('.')[0]!;
        const backdated = new Date(Date.now() - 3_600_000);
        await app.deps.db.updateTable('auth_sessions').set({ created_at: toDbDate(app.deps.handle.dialect, backdated) }).where('id', '=', current).execute();
        expect((await client.authorize(authorizeParams(world, { max_age: '60' }).params)).statusCode).toBe(200);
        const within = await client.authorize(authorizeParams(world, { max_age: '7200' }).params);
        const withinRow = await codeRow(app, locationParams(within).params.code!);
        expect(withinRow?.session_id).toBe(current);
        // auth_time is the last real sign-in
        expect(fromDbDate(withinRow!.auth_time).getTime()).toBe(backdated.getTime());
    });

    it('prompt=none: login_required without a session, a code with one', async () => {
        const world = await browserWorld(app, { firstParty: true });
        const client = browser(app);
        const { params } = authorizeParams(world, { prompt: 'none' });
        const { base, params: refused } = locationParams(await client.authorize(params));
        expect(base).toBe(world.redirectUri);
        expect(refused).toMatchObject({ error: 'login_required', state: params.state, iss: `${app.deps.config.publicUrl}/realms/${world.realmName}` });
        await signIn(world).then(async ({ client: signedIn }) => {
            const answer = await signedIn.authorize(authorizeParams(world, { prompt: 'none' }).params);
            expect(locationParams(answer).params.code).toBeDefined();
        });
    });

    it('response_mode=form_post answers a page that posts code, state and iss to the redirect URI', async () => {
        const world = await browserWorld(app, { firstParty: true });
        const { answer, params } = await signIn(world, { response_mode: 'form_post' });
        expect(answer.statusCode).toBe(200);
        expect(answer.body).toContain(`action="${world.redirectUri}"`);
        expect(answer.body).toContain('<script src="/assets/form-post.js" defer></script>');
        expect(answer.body).toContain('<button type="submit">Continue</button>');
        const fields = hiddenFields(answer.body);
        expect(fields.state).toBe(params.state);
        expect(fields.iss).toBe(`${app.deps.config.publicUrl}/realms/${world.realmName}`);
        expect((await codeRow(app, fields.code!))?.client_id).toBe(world.clientId);
        expect(answer.headers['content-security-policy']).toContain("form-action 'self'");
        expect(answer.headers['content-security-policy']).toContain('https://app.example');
    });

    it('takes the authorization request as a form POST too (OIDC Core §3.1.2.1)', async () => {
        const world = await browserWorld(app, { firstParty: true });
        const client = browser(app);
        const { params } = authorizeParams(world);
        const page = await client.post('/authorize', params);
        expect(page.statusCode).toBe(200);
        expect(page.body).toContain('Username or email');
        expect(hiddenFields(page.body).state).toBe(params.state);
    });

    it('answers an inactive user as a wrong password would', async () => {
        const world = await browserWorld(app, { firstParty: true });
        await app.json({ method: 'POST', url: `/users/${world.user.id}`, payload: { active: false } }, 200);
        const client = browser(app);
        const answer = await client.submit(await client.authorize(authorizeParams(world).params), { username: world.user.name, password: world.user.password });
        expect(answer.statusCode).toBe(401);
        expect(answer.body).toContain('The username or password is incorrect.');
        expect(answer.headers['set-cookie'] ?? '').not.toContain('realmgate_session');
    });

    it('serves the stylesheet and the form_post script', async () => {
        const css = await app.request({ method: 'GET', url: '/assets/auth.css', as: null });
        expect(css.statusCode).toBe(200);
        expect(css.headers['content-type']).toContain('text/css');
        expect(css.body).toContain('.card');
        const script = await app.request({ method: 'GET', url: '/assets/form-post.js', as: null });
        expect(script.headers['content-type']).toContain('text/javascript');
        expect(script.body).toContain("getElementById('form-post')");
    });
    // a realm requiring multi-factor never signs in a user without an authenticator by
    // password alone (as the password grant answers mfa_required without a ticket)
    it('refuses the sign-in form for an account the realm requires to enrol first, and issues nothing', async () => {
        const world = await browserWorld(app, { firstParty: true });
        await app.json({ method: 'POST', url: `/realms/${world.realmId}`, payload: { mfaEnabled: true, mfaRequired: true } }, 200);
        const { client, answer } = await signIn(world);
        expect(answer.statusCode).toBe(403);
        expect(answer.headers.location).toBeUndefined();
        expect(answer.body).toContain('requires two-factor authentication');
        expect(client.jar.cookies.get('realmgate_session')).toBeUndefined();
    });
});

describe('browser sign-in: the cookie on an https deployment at the root of its host', () => {
    const app = useTestApp('sqlite', { publicUrl: 'https://id.example' });
    it('is __Host- prefixed and Secure', async () => {
        const world = await browserWorld(app, { firstParty: true });
        const client = browser(app);
        const page = await client.authorize(authorizeParams(world).params);
        expect(setCookieLine(page, '__Host-realmgate_csrf')).toMatch(/Secure/);
        const answer = await client.submit(page, { username: world.user.name, password: world.user.password });
        const line = setCookieLine(answer, '__Host-realmgate_session')!;
        expect(line).toMatch(/Secure/);
        expect(line).toMatch(/Path=\//);
        expect(line).not.toMatch(/Domain=/i);
    });

});
