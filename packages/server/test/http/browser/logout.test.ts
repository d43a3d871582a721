import { randomUUID } from 'node:crypto';
import { beforeAll, expect, it } from 'vitest';
import { useTestApp } from '../../app.js';
import { authorizeParams, browser, browserWorld, hiddenFields, locationParams, setCookieLine, type Browser, type BrowserWorld } from '../../browser.js';
import { describeEachDialect } from '../../databases.js';
import { toDbDate } from '../../../src/db/values.js';

/*
 * Issue 13 item 9: RP-initiated logout (OIDC RP-Initiated Logout 1.0) at /logout — a verified
 * id_token_hint ends the session at once, otherwise the user confirms on a page (CSRF-protected);
 * post_logout_redirect_uri must match exactly (no open redirect) and state is echoed.
 */
describeEachDialect('RP-initiated logout', (dialect) => {
    const app = useTestApp(dialect);
    const postLogout = 'https://app.example/signed-out';
    let world: BrowserWorld;
    beforeAll(async () => {
        world = await browserWorld(app, { firstParty: true, postLogoutRedirectUri: `${postLogout} https://app.example/other` });
    });

    const signedIn = async (): Promise<{ client: Browser; sessionId: string }> => {
        const client = browser(app);
        const answer = await client.submit(await client.authorize(authorizeParams(world).params), { username: world.user.name, password: world.user.password });
        expect(locationParams(answer).params.code).toBeDefined();
        return { client, sessionId: client.jar.cookies.get('realmgate_session')!.split('.')[0]! };
    };
    const revoked = async (sessionId: string) =>
        (await app.deps.db.selectFrom('auth_sessions').select('revoked_at').where('id', '=', sessionId).executeTakeFirstOrThrow()).revoked_at !== null;
    const idToken = (sessionId: string, clientId = world.clientId) => app.deps.tokens.issueIdToken(app.deps.db, {
        subject: { id: world.user.id, kind: 'user', realmId: world.realmId, realmName: world.realmName },
        clientId, sessionId, authTime: new Date(), claims: {},
    });

    it('without a hint asks for confirmation; the confirmed form ends the session, clears the cookie and prompt=none then answers login_required', async () => {
        const { client, sessionId } = await signedIn();
        const page = await client.get('/logout');
        expect(page.statusCode).toBe(200);
        expect(page.body).toContain(`Do you want to sign out of Realm ${world.realmName}?`);
        expect(page.headers['x-frame-options']).toBe('DENY');
        expect(await revoked(sessionId)).toBe(false);
        const done = await client.submit(page);
        expect(done.statusCode).toBe(200);
        expect(done.body).toContain('You are signed out.');
        expect(setCookieLine(done, 'realmgate_session')).toMatch(/Max-Age=0|Expires=Thu, 01 Jan 1970/i);
        expect(await revoked(sessionId)).toBe(true);
        const silent = await client.authorize(authorizeParams(world, { prompt: 'none' }).params);
        expect(locationParams(silent).params.error).toBe('login_required');
    });

    it('refuses the confirmation without the CSRF token or from a foreign origin, and the session lives on', async () => {
        const { client, sessionId } = await signedIn();
        const page = await client.get('/logout');
        const fields = hiddenFields(page.body);
        const { csrf: _csrf, ...withoutToken } = fields;
        expect((await client.post('/logout', withoutToken)).statusCode).toBe(403);
        expect((await client.post('/logout', fields, { origin: 'https://evil.example' })).statusCode).toBe(403);
        expect(await revoked(sessionId)).toBe(false);
        // the cookie still signs in
        expect(locationParams(await client.authorize(authorizeParams(world, { prompt: 'none' }).params)).params.code).toBeDefined();
    });

    it('redirects after confirmation to a registered post_logout_redirect_uri with state', async () => {
        const { client, sessionId } = await signedIn();
        const page = await client.get(`/logout?${new URLSearchParams({ client_id: world.clientId, post_logout_redirect_uri: postLogout, state: 'bye' }).toString()}`);
        expect(page.statusCode).toBe(200);
        expect(page.headers['content-security-policy']).toContain('https://app.example');
        const { base, params } = locationParams(await client.submit(page));
        expect(base).toBe(postLogout);
        expect(params).toEqual({ state: 'bye' });
        expect(await revoked(sessionId)).toBe(true);
    });

    it('never redirects to an unregistered or altered post_logout_redirect_uri (no open redirect)', async () => {
        const { client } = await signedIn();
        const hint = await idToken(randomUUID());
        const queries: Record<string, string>[] = [
            { client_id: world.clientId, post_logout_redirect_uri: 'https://evil.example/' },
            { client_id: world.clientId, post_logout_redirect_uri: `${postLogout}/x` },
            { post_logout_redirect_uri: postLogout },
            { id_token_hint: hint, post_logout_redirect_uri: 'https://evil.example/' },
            { id_token_hint: hint, client_id: randomUUID(), post_logout_redirect_uri: postLogout },
        ];
        for (const query of queries) {
            const answer = await client.get(`/logout?${new URLSearchParams(query).toString()}`);
            expect(answer.statusCode, JSON.stringify(query)).toBe(400);
            expect(answer.headers.location).toBeUndefined();
            expect(answer.body).toContain('Something went wrong');
        }
    });

    it('with a verified id_token_hint ends the session named by sid and its browser session at once, and echoes state', async () => {
        const { client, sessionId } = await signedIn();
        // an application session signed in through the browser session (as the code redemption creates it)
        const now = toDbDate(app.deps.handle.dialect, new Date());
        const appSession = randomUUID();
        await app.deps.db.insertInto('auth_sessions').values({
            id: appSession, sub: world.user.id, sub_kind: 'user', user_id: world.user.id, client_id: world.clientId, realm_id: world.realmId,
            ip_address: null, user_agent: null, seen_at: now, expires_at: toDbDate(app.deps.handle.dialect, new Date(Date.now() + 3_600_000)),
            revoked_at: null, parent_id: sessionId, cookie_digest: null, created_at: now, updated_at: now,
        }).execute();
        const hint = await idToken(appSession);
        // from the relying party's page: no cookie is needed (SameSite=Lax keeps it off a cross-site POST)
        const answer = await browser(app).post('/logout', { id_token_hint: hint, post_logout_redirect_uri: postLogout, state: 'xyz' }, { origin: 'https://app.example' });
        const { base, params } = locationParams(answer);
        expect(base).toBe(postLogout);
        expect(params.state).toBe('xyz');
        expect(await revoked(appSession)).toBe(true);
        expect(await revoked(sessionId)).toBe(true);
        expect(locationParams(await client.authorize(authorizeParams(world, { prompt: 'none' }).params)).params.error).toBe('login_required');
    });

    it('treats a tampered hint as no hint: the confirmation page', async () => {
        const { client, sessionId } = await signedIn();
        const hint = await idToken(sessionId);
        const [header, payload, signature] = hint.split('.');
        const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString()) as Record<string, unknown>;
        const forged = `${header}.${Buffer.from(JSON.stringify({ ...claims, sub: randomUUID() })).toString('base64url')}.${signature}`;
        const answer = await client.get(`/logout?${new URLSearchParams({ id_token_hint: forged }).toString()}`);
        expect(answer.statusCode).toBe(200);
        expect(answer.body).toContain('Do you want to sign out');
        expect(await revoked(sessionId)).toBe(false);
    });
});
