import { createRemoteJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify } from 'jose';
import * as oidc from 'openid-client';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import type { TestApp } from '../app.js';
import { describeEachDialect } from '../databases.js';
import { launchChromium, startListeningApp, startRelyingParty, type RelyingPartyListener } from './relying-party.js';

/**
 * A person signs in to an application in a real browser (authorization code with PKCE): Debian's chromium drives the
 * server's own pages, openid-client is the relying party, a loopback listener is the application's
 * redirect URI and back-channel logout endpoint. Nothing is injected: every step is real HTTP.
 */
describeEachDialect('end to end: browser sign-in with chromium and openid-client', (dialect) => {
    let app: TestApp;
    let browser: Browser;
    let rp: RelyingPartyListener;
    let issuer: URL;
    let realm: { id: string; name: string };
    let spa: { id: string };
    let web: { id: string };
    let alice: { id: string };
    let context: BrowserContext;
    let page: Page;

    beforeAll(async () => {
        const { app: started, publicUrl } = await startListeningApp(dialect);
        app = started;
        rp = await startRelyingParty();
        browser = await launchChromium();
        realm = (await app.json<{ data: { id: string; name: string } }>({ method: 'POST', url: '/realms', payload: { name: 'e2e-browser', displayName: 'Browser Realm' } }, 201)).data;
        issuer = new URL(`${publicUrl}/realms/${realm.name}`);
        const client = async (payload: Record<string, unknown>) =>
            (await app.json<{ data: { id: string } }>({ method: 'POST', url: '/clients', payload: { realmId: realm.id, ...payload } }, 201)).data;
        // a public client (no secret): PKCE S256 is required, consent is asked
        spa = await client({ name: 'spa', displayName: 'Single Page App', redirectUri: rp.callback, postLogoutRedirectUri: rp.loggedOut });
        // a confidential first-party client with a back-channel logout endpoint: no consent
        web = await client({
            name: 'web', secret: 'web-secret', firstParty: true, redirectUri: rp.callback, postLogoutRedirectUri: rp.loggedOut,
            backchannelLogoutUri: rp.backchannel,
        });
        alice = (await app.json<{ data: { id: string } }>({
            method: 'POST', url: '/users', payload: { name: 'alice', email: 'alice@example.com', password: 'alice-password', realmId: realm.id },
        }, 201)).data;
    });
    afterAll(async () => {
        await browser?.close();
        await rp?.close();
        await app?.dispose();
    });
    beforeEach(async () => {
        context = await browser.newContext();
        page = await context.newPage();
    });
    afterEach(async () => context?.close());

    const discover = (clientId: string, secret?: string) => oidc.discovery(
        issuer, clientId, secret, secret === undefined ? oidc.None() : oidc.ClientSecretBasic(), { execute: [oidc.allowInsecureRequests] },
    );

    interface Attempt { url: URL; verifier: string; state: string; nonce: string }

    async function authorizationUrl(config: oidc.Configuration, extra: Record<string, string> = {}): Promise<Attempt> {
        const verifier = oidc.randomPKCECodeVerifier();
        const state = oidc.randomState();
        const nonce = oidc.randomNonce();
        const url = oidc.buildAuthorizationUrl(config, {
            redirect_uri: rp.callback, scope: 'openid profile email', state, nonce,
            code_challenge: await oidc.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256', ...extra,
        });
        return { url, verifier, state, nonce };
    }

    /** navigates to the authorization URL and waits until the browser is back at the application */
    async function landAtCallback(attempt: Attempt, signIn: boolean, consent = false): Promise<URL> {
        await page.goto(attempt.url.href);
        if (signIn) {
            await page.getByLabel('Username or email').fill('alice');
            await page.getByLabel('Password').fill('alice-password');
            await page.getByRole('button', { name: 'Sign in', exact: true }).click();
        }
        if (consent) await page.getByRole('button', { name: 'Allow' }).click();
        // a page that stops short of the application says where and why in the failure
        await page.waitForURL((url) => url.href.startsWith(rp.callback), { timeout: 10_000 }).catch(async (error: unknown) => {
            throw new Error(`the browser stopped at ${page.url()}: ${(await page.locator('body').innerText()).slice(0, 500)}`, { cause: error });
        });
        return new URL(page.url());
    }

    const redeem = (config: oidc.Configuration, callback: URL, attempt: Attempt) => oidc.authorizationCodeGrant(config, callback, {
        pkceCodeVerifier: attempt.verifier, expectedState: attempt.state, expectedNonce: attempt.nonce, idTokenExpected: true,
    });

    it('signs in a public client with PKCE and consent, reads userinfo and refreshes', async () => {
        const config = await discover(spa.id);
        const attempt = await authorizationUrl(config);
        await page.goto(attempt.url.href);
        // the realm's display name is shown; every page refuses framing
        await page.getByText('Browser Realm').first().waitFor();
        const callback = await landAtCallback(attempt, true, true);
        expect(callback.searchParams.get('iss')).toBe(issuer.href);
        const tokens = await redeem(config, callback, attempt);
        const claims = tokens.claims()!;
        expect(claims).toMatchObject({ sub: alice.id, aud: spa.id, nonce: attempt.nonce, email: 'alice@example.com', email_verified: false });
        expect(claims.sid).toBeTypeOf('string');
        expect(claims.auth_time).toBeTypeOf('number');

        const userinfo = await oidc.fetchUserInfo(config, tokens.access_token, alice.id);
        expect(userinfo).toMatchObject({ sub: alice.id, email: 'alice@example.com', preferred_username: 'alice' });

        const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
        expect(refreshed.access_token).not.toBe(tokens.access_token);
        expect((await oidc.fetchUserInfo(config, refreshed.access_token, alice.id)).sub).toBe(alice.id);
    });

    it('signs ID tokens ES256 for a client that registered it, which openid-client verifies as registered', async () => {
        const es = (await app.json<{ data: { id: string } }>({
            method: 'POST', url: '/clients',
            payload: { realmId: realm.id, name: 'es-app', secret: 'es-secret', firstParty: true, redirectUri: rp.callback, idTokenSignedResponseAlg: 'ES256' },
        }, 201)).data;
        const config = await oidc.discovery(issuer, es.id, { client_secret: 'es-secret', id_token_signed_response_alg: 'ES256' }, oidc.ClientSecretBasic(), {
            execute: [oidc.allowInsecureRequests],
        });
        const attempt = await authorizationUrl(config);
        const tokens = await redeem(config, await landAtCallback(attempt, true), attempt);
        expect(decodeProtectedHeader(tokens.id_token!).alg).toBe('ES256');
        expect(tokens.claims()).toMatchObject({ sub: alice.id, aud: es.id, nonce: attempt.nonce });
        // verified against the realm's published JWKS with ES256 only
        const { payload } = await jwtVerify(tokens.id_token!, createRemoteJWKSet(new URL(config.serverMetadata().jwks_uri!)), {
            issuer: issuer.href, audience: es.id, algorithms: ['ES256'],
        });
        expect(payload.at_hash).toEqual(expect.any(String));
    });

    it('signs in a confidential client, then single sign-on answers prompt=none without the form and prompt=login asks again', async () => {
        const config = await discover(web.id, 'web-secret');
        const first = await authorizationUrl(config);
        const tokens = await redeem(config, await landAtCallback(first, true), first);
        const authTime = tokens.claims()!.auth_time!;

        // a valid session answers a new request without the form (prompt=none may not show one)
        const silent = await authorizationUrl(config, { prompt: 'none' });
        const again = await redeem(config, await landAtCallback(silent, false), silent);
        expect(again.claims()).toMatchObject({ sub: alice.id, auth_time: authTime });

        // prompt=login forces a fresh sign-in: the form is shown again
        const forced = await authorizationUrl(config, { prompt: 'login' });
        await page.goto(forced.url.href);
        await page.getByLabel('Password').waitFor();
        const fresh = await redeem(config, await landAtCallback(forced, true), forced);
        expect(fresh.claims()!.auth_time).toBeGreaterThanOrEqual(authTime);
    });

    it('logs out through the end-session endpoint: back-channel logout reaches the client, prompt=none then answers login_required', async () => {
        const config = await discover(web.id, 'web-secret');
        const attempt = await authorizationUrl(config);
        const tokens = await redeem(config, await landAtCallback(attempt, true), attempt);
        const sid = tokens.claims()!.sid;

        const logoutToken = rp.logoutToken((token) => decodeJwt(token).sid === sid);
        const state = oidc.randomState();
        await page.goto(oidc.buildEndSessionUrl(config, { id_token_hint: tokens.id_token!, post_logout_redirect_uri: rp.loggedOut, state }).href);
        await page.waitForURL((url) => url.href.startsWith(rp.loggedOut));
        expect(new URL(page.url()).searchParams.get('state')).toBe(state);

        // OIDC Back-Channel Logout 1.0 §2.4, verified against the realm's published keys
        const token = await logoutToken;
        expect(decodeProtectedHeader(token).typ).toBe('logout+jwt');
        const { payload } = await jwtVerify(token, createRemoteJWKSet(new URL(config.serverMetadata().jwks_uri!)), { issuer: issuer.href, audience: web.id });
        expect(payload).toMatchObject({ sub: alice.id, sid, events: { 'http://schemas.openid.net/event/backchannel-logout': {} } });
        expect(payload.nonce).toBeUndefined();

        // the session is over: its access token is refused and a silent request needs a login
        const me = await fetch(new URL('/users/@me', issuer), { headers: { authorization: `Bearer ${tokens.access_token}` } });
        expect(me.status).toBe(401);
        const silent = await authorizationUrl(config, { prompt: 'none' });
        const callback = await landAtCallback(silent, false);
        expect(callback.searchParams.get('error')).toBe('login_required');
        expect(callback.searchParams.get('state')).toBe(silent.state);
    });

    // RFC 9700 §4.11 (clickjacking): the pages refuse to be framed by another site
    it('refuses to render the sign-in page inside a frame of another site', async () => {
        const config = await discover(spa.id);
        const attempt = await authorizationUrl(config);
        const attacker = rp.servePage('/frame', `<!doctype html><iframe id="f" src="${attempt.url.href.replace(/&/g, '&amp;')}"></iframe>`);
        await page.goto(attacker);
        const frame = await (await page.waitForSelector('#f')).contentFrame();
        await frame!.waitForLoadState();
        // the browser blocked it: no form was rendered inside the frame
        expect(await frame!.locator('input[type=password]').count()).toBe(0);
    });

    // RFC 9700 §4.4.1.8 / §2.1 (login CSRF): a form another site posts carries no valid CSRF token
    it('refuses a sign-in form posted from another site', async () => {
        const config = await discover(spa.id);
        const attempt = await authorizationUrl(config);
        // the attacker loads the form in its own browser: its token is bound to its own cookie
        const attackerContext = await browser.newContext();
        const attackerPage = await attackerContext.newPage();
        await attackerPage.goto(attempt.url.href);
        const form = attackerPage.locator('form').filter({ has: attackerPage.getByLabel('Password') });
        const action = new URL((await form.getAttribute('action'))!, attackerPage.url()).href;
        const fields = await form.locator('input').evaluateAll((inputs) => inputs.map((input) => {
            const element = input as unknown as { name: string; type: string; value: string };
            return { name: element.name, type: element.type, value: element.value };
        }));
        await attackerContext.close();
        // the victim has an authorization request of its own open, so it holds a token of its own
        await page.goto(attempt.url.href);
        const inputs = fields.filter((field) => field.name).map((field) => {
            const value = field.type === 'password' ? 'alice-password' : field.type === 'hidden' ? field.value : 'alice';
            return `<input type="hidden" name="${field.name}" value="${value.replace(/&/g, '&amp;').replace(/"/g, '&quot;')}">`;
        }).join('');
        const attacker = rp.servePage('/login-csrf', `<!doctype html><form id="x" method="post" action="${action}">${inputs}</form><script>document.getElementById('x').submit()</script>`);
        const answer = page.waitForResponse((response) => response.url() === action);
        await page.goto(attacker);
        expect((await answer).status()).toBeGreaterThanOrEqual(400);
        // no session was planted: a silent request still needs a login
        const silent = await authorizationUrl(config, { prompt: 'none' });
        const callback = await landAtCallback(silent, false);
        expect(callback.searchParams.get('error')).toBe('login_required');
    });
});
