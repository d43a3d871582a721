import { randomUUID } from 'node:crypto';
import { beforeAll, expect, it } from 'vitest';
import { useTestApp } from '../../app.js';
import { authorizeParams, browser, browserWorld, hiddenFields, locationParams, setCookieLine, type Browser, type BrowserWorld } from '../../browser.js';
import { describeEachDialect } from '../../databases.js';
import { toDbDate } from '../../../src/db/values.js';

/*
 * RP-initiated logout (OIDC RP-Initiated Logout 1.0) at /logout — a verified id_token_hint ends
 * the session at once only when this browser is signed in to that very session as the hint's user
 * (§2: the OP asks the End-User whether to log out otherwise); any other request asks on a page
 * (CSRF-protected) whose confirmation ends this browser's own session alone.
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
    const idToken = (sessionId: string, clientId = world.clientId, userId = world.user.id) => app.deps.tokens.issueIdToken(app.deps.db, {
        subject: { id: userId, kind: 'user', realmId: world.realmId, realmName: world.realmName },
        clientId, sessionId, authTime: new Date(), claims: {},
    });
    /** an application session signed in through the browser session `parentId` (as the code redemption creates it) */
    const appSessionUnder = async (parentId: string, userId = world.user.id): Promise<string> => {
        const now = toDbDate(app.deps.handle.dialect, new Date());
        const id = randomUUID();
        await app.deps.db.insertInto('auth_sessions').values({
            id, sub: userId, sub_kind: 'user', user_id: userId, client_id: world.clientId, realm_id: world.realmId,
            ip_address: null, user_agent: null, seen_at: now, expires_at: toDbDate(app.deps.handle.dialect, new Date(Date.now() + 3_600_000)),
            revoked_at: null, parent_id: parentId, cookie_digest: null, created_at: now, updated_at: now,
        }).execute();
        return id;
    };
    const stillSignedIn = async (client: Browser) =>
        locationParams(await client.authorize(authorizeParams(world, { prompt: 'none' }).params)).params.code !== undefined;

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

    it('with a verified id_token_hint of this browser\'s own session ends it and the session named by sid at once, and echoes state', async () => {
        const { client, sessionId } = await signedIn();
        const appSession = await appSessionUnder(sessionId);
        const hint = await idToken(appSession);
        // the relying party redirects the browser here (a top-level navigation carries the Lax cookie)
        const answer = await client.get(`/logout?${new URLSearchParams({ id_token_hint: hint, post_logout_redirect_uri: postLogout, state: 'xyz' }).toString()}`);
        const { base, params } = locationParams(answer);
        expect(base).toBe(postLogout);
        expect(params.state).toBe('xyz');
        expect(setCookieLine(answer, 'realmgate_session')).toMatch(/Max-Age=0|Expires=Thu, 01 Jan 1970/i);
        expect(await revoked(appSession)).toBe(true);
        expect(await revoked(sessionId)).toBe(true);
        expect(await stillSignedIn(client)).toBe(false);
    });

    it('a hint sent by a browser without a session (an <img>, a cross-site post) asks, and confirming ends none of the hint\'s sessions', async () => {
        const victim = await signedIn();
        const appSession = await appSessionUnder(victim.sessionId);
        const hint = await idToken(appSession);
        const attacker = browser(app, '127.0.0.9');
        for (const answer of [
            await attacker.get(`/logout?${new URLSearchParams({ id_token_hint: hint }).toString()}`),
            await attacker.post('/logout', { id_token_hint: hint, post_logout_redirect_uri: postLogout, state: 'xyz' }, { origin: 'https://app.example' }),
        ]) {
            expect(answer.statusCode).toBe(200);
            expect(answer.headers.location).toBeUndefined();
            expect(answer.body).toContain('Do you want to sign out');
        }
        const page = await attacker.get(`/logout?${new URLSearchParams({ id_token_hint: hint, post_logout_redirect_uri: postLogout, state: 'xyz' }).toString()}`);
        // the confirmation still honours the registered redirect, yet ends nothing of the hint's
        expect(locationParams(await attacker.submit(page)).base).toBe(postLogout);
        expect(await revoked(appSession)).toBe(false);
        expect(await revoked(victim.sessionId)).toBe(false);
        expect(await stillSignedIn(victim.client)).toBe(true);
    });

    it('a hint of another user asks in a signed-in browser, and confirming ends only that browser\'s own session', async () => {
        const victim = await signedIn();
        const victimApp = await appSessionUnder(victim.sessionId);
        const hint = await idToken(victimApp);
        const name = `other-${randomUUID().slice(0, 8)}`;
        const password = `pw-${randomUUID()}`;
        await app.json({ method: 'POST', url: '/users', payload: { name, password, realmId: world.realmId } }, 201);
        const other = browser(app, '127.0.0.10');
        expect(locationParams(await other.submit(await other.authorize(authorizeParams(world).params), { username: name, password })).params.code).toBeDefined();
        const otherSession = other.jar.cookies.get('realmgate_session')!.split('.')[0]!;
        const page = await other.get(`/logout?${new URLSearchParams({ id_token_hint: hint }).toString()}`);
        expect(page.statusCode).toBe(200);
        expect(page.body).toContain('Do you want to sign out');
        expect(await revoked(victimApp)).toBe(false);
        expect((await other.submit(page)).body).toContain('You are signed out.');
        expect(await revoked(otherSession)).toBe(true);
        expect(await revoked(victimApp)).toBe(false);
        expect(await revoked(victim.sessionId)).toBe(false);
        expect(await stillSignedIn(victim.client)).toBe(true);
    });

    it('a hint of the same user\'s session in another browser asks, and confirming ends only this browser\'s session', async () => {
        const first = await signedIn();
        const firstApp = await appSessionUnder(first.sessionId);
        const second = await signedIn();
        const page = await second.client.get(`/logout?${new URLSearchParams({ id_token_hint: await idToken(firstApp) }).toString()}`);
        expect(page.statusCode).toBe(200);
        expect(page.body).toContain('Do you want to sign out');
        await second.client.submit(page);
        expect(await revoked(second.sessionId)).toBe(true);
        expect(await revoked(firstApp)).toBe(false);
        expect(await revoked(first.sessionId)).toBe(false);
        expect(await stillSignedIn(first.client)).toBe(true);
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
