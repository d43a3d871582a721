import * as oidc from 'openid-client';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import type { TestApp } from '../app.js';
import { describeEachDialect } from '../databases.js';
import { startOidcUpstream, type OidcUpstream } from '../oidc-upstream.js';
import { launchChromium, startListeningApp, startRelyingParty, type RelyingPartyListener } from './relying-party.js';
import { fileURLToPath } from 'node:url';
import { recordedViews } from './recording-console.js';
import { authorizeDevice, DEVICE_GRANT, poll } from '../device-flow.js';

/**
 * Sign-in through an upstream OpenID provider, end to end in Chromium: oidc-provider on
 * loopback is the upstream, Realmgate the relying party (openid-client inside), openid-client again
 * the application in front of Realmgate. A first login creates the user and files it under
 * sources/<provider name>; a second links by the upstream subject; a tampered ID token, a wrong
 * state and a replayed callback never sign anyone in.
 */
describeEachDialect('end to end: sign-in through an upstream OpenID provider', (dialect) => {
    let app: TestApp;
    let browser: Browser;
    let rp: RelyingPartyListener;
    let upstream: OidcUpstream;
    let publicUrl: string;
    let realm: { id: string; name: string };
    let client: { id: string };
    let provider: { id: string };
    let adminRole: string;
    let context: BrowserContext;
    let page: Page;
    // the render data of the pages, as the substituted auth console module received it (contract version 5)
    const views = recordedViews();

    beforeAll(async () => {
        const started = await startListeningApp(dialect, { authConsolePath: fileURLToPath(new URL('./recording-console.ts', import.meta.url)) });
        app = started.app;
        publicUrl = started.publicUrl;
        rp = await startRelyingParty();
        upstream = await startOidcUpstream(`${publicUrl}/authorize/federated/callback`);
        browser = await launchChromium();
        // without default roles: the roles a provisioned user holds are the mapped ones
        realm = (await app.json<{ data: { id: string; name: string } }>({ method: 'POST', url: '/realms', payload: { name: `e2e-federated-${dialect}`, defaultRoleIds: [] } }, 201)).data;
        client = (await app.json<{ data: { id: string } }>({ method: 'POST', url: '/clients', payload: { realmId: realm.id, name: 'spa', redirectUri: rp.callback } }, 201)).data;
        provider = (await app.json<{ data: { id: string } }>({
            method: 'POST', url: '/identity-providers', payload: {
                realmId: realm.id, name: 'upstream-idp', displayName: 'Upstream ID', protocol: 'oidc', issuer: upstream.issuer,
                clientId: upstream.clientId, clientSecret: upstream.clientSecret, scope: 'openid profile email groups',
            },
        }, 201)).data;
        adminRole = (await app.json<{ data: { id: string } }>({ method: 'POST', url: '/roles', payload: { realmId: realm.id, name: 'upstream-admin' } }, 201)).data.id;
        await app.json({ method: 'POST', url: '/identity-provider-role-mappings', payload: { providerId: provider.id, claim: 'groups', value: 'admins', roleId: adminRole } }, 201);
    }, 60_000);
    afterAll(async () => {
        await browser?.close();
        await upstream?.close();
        await rp?.close();
        await app?.dispose();
    });
    beforeEach(async () => {
        context = await browser.newContext();
        page = await context.newPage();
        page.setDefaultTimeout(8000);
    });
    afterEach(async () => context?.close());

    const configuration = () => oidc.discovery(new URL(`${publicUrl}/realms/${realm.name}`), client.id, undefined, oidc.None(), { execute: [oidc.allowInsecureRequests] });

    /** The application sends the browser to Realmgate; the sign-in page's provider button leads to the upstream, where `login` signs in. */
    async function throughUpstream(login: string): Promise<{ verifier: string; state: string; config: oidc.Configuration }> {
        const config = await configuration();
        const verifier = oidc.randomPKCECodeVerifier();
        const state = oidc.randomState();
        const url = oidc.buildAuthorizationUrl(config, {
            // prompt=consent: Realmgate's consent page follows the login through the provider
            redirect_uri: rp.callback, scope: 'openid', prompt: 'consent', state, code_challenge: await oidc.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256',
        });
        await page.goto(url.href);
        expect(views.signIn.at(-1)?.providers).toEqual([{ id: provider.id, name: 'upstream-idp', displayName: 'Upstream ID' }]);
        await page.getByRole('button', { name: 'Sign in with Upstream ID' }).click();
        await page.waitForURL((current) => current.origin === upstream.issuer);
        await page.locator('input[name="login"]').fill(login);
        await page.locator('input[name="password"]').fill('anything');
        await page.locator('button[type="submit"]').click();
        // oidc-provider's development consent page
        await page.waitForURL((current) => current.origin !== upstream.issuer || current.pathname.includes('/interaction/'));
        if (new URL(page.url()).origin === upstream.issuer) await page.locator('button[type="submit"]').click();
        return { verifier, state, config };
    }

    async function userOf(subject: string) {
        const link = await app.deps.db.selectFrom('auth_user_identities').selectAll().where('provider_id', '=', provider.id).where('subject', '=', subject).execute();
        return link;
    }

    it('lists the provider, creates the user on the first login (filed under sources/<provider>, roles mapped) and links the second by subject', { timeout: 90_000 }, async () => {
        const { verifier, state, config } = await throughUpstream('admin-carol');
        // Realmgate's consent page, after the login through the provider, carries federatedLogin
        await page.getByRole('button', { name: 'Allow' }).click();
        await page.waitForURL((current) => current.href.startsWith(rp.callback));
        expect(views.consent.at(-1)?.federatedLogin).toEqual({ providerId: provider.id });
        const tokens = await oidc.authorizationCodeGrant(config, new URL(page.url()), { pkceCodeVerifier: verifier, expectedState: state });
        const userId = tokens.claims()!.sub;
        const user = await app.deps.db.selectFrom('auth_users').selectAll().where('id', '=', userId).executeTakeFirstOrThrow();
        expect(user).toMatchObject({ realm_id: realm.id, name: 'admin-carol', email: 'admin-carol@upstream.test', password: null });
        const folder = await app.deps.db.selectFrom('auth_paths').selectAll().where('id', '=', user.path_id!).executeTakeFirstOrThrow();
        expect(folder.name).toBe('upstream-idp');
        expect((await app.deps.db.selectFrom('auth_paths').select('name').where('id', '=', folder.parent_id!).executeTakeFirstOrThrow()).name).toBe('sources');
        const roles = await app.deps.db.selectFrom('auth_user_roles').select('role_id').where('user_id', '=', userId).execute();
        expect(roles.map((row) => row.role_id)).toEqual([adminRole]);
        expect(await userOf('admin-carol')).toHaveLength(1);

        // a second login, in a fresh browser: the same user, linked by the upstream subject
        await context.close();
        context = await browser.newContext();
        page = await context.newPage();
        const again = await throughUpstream('admin-carol');
        await page.getByRole('button', { name: 'Allow' }).click();
        await page.waitForURL((current) => current.href.startsWith(rp.callback));
        const second = await oidc.authorizationCodeGrant(again.config, new URL(page.url()), { pkceCodeVerifier: again.verifier, expectedState: again.state });
        expect(second.claims()!.sub).toBe(userId);
        expect(await userOf('admin-carol')).toHaveLength(1);
    });

    it('refuses a tampered ID token: no session, no user', async () => {
        upstream.tamper.on = true;
        try {
            const answer = page.waitForResponse((response) => response.url().startsWith(`${publicUrl}/authorize/federated/callback`));
            await throughUpstream('mallory');
            expect((await answer).status()).toBe(400);
            expect(await page.locator('body').innerText()).toContain('did not succeed');
        } finally {
            upstream.tamper.on = false;
        }
        expect(await userOf('mallory')).toHaveLength(0);
        expect((await context.cookies()).some((cookie) => cookie.name === 'realmgate_session')).toBe(false);
    });

    it('refuses a wrong state and a replayed callback', async () => {
        // the browser is at the upstream; an answer comes back with another state than the one it holds
        const config = await configuration();
        await page.goto(oidc.buildAuthorizationUrl(config, {
            redirect_uri: rp.callback, scope: 'openid', code_challenge: await oidc.calculatePKCECodeChallenge(oidc.randomPKCECodeVerifier()), code_challenge_method: 'S256',
        }).href);
        await page.getByRole('button', { name: 'Sign in with Upstream ID' }).click();
        await page.waitForURL((current) => current.origin === upstream.issuer);
        const refused = await page.goto(`${publicUrl}/authorize/federated/callback?code=forged-code&state=${oidc.randomState()}`);
        expect(refused?.status()).toBe(400);
        expect(await page.locator('body').innerText()).toContain('not started in this browser');
        expect(await userOf('dave')).toHaveLength(0);

        // a full login, then its callback replayed in the same browser (the state cookie set again by hand)
        await context.close();
        context = await browser.newContext();
        page = await context.newPage();
        let used = '';
        page.on('framenavigated', (frame) => {
            if (frame.url().startsWith(`${publicUrl}/authorize/federated/callback`)) used = frame.url();
        });
        await throughUpstream('erin');
        await page.getByRole('button', { name: 'Allow' }).click();
        await page.waitForURL((current) => current.href.startsWith(rp.callback));
        expect(used).not.toBe('');
        await context.addCookies([{ name: 'realmgate_federated', value: new URL(used).searchParams.get('state')!, url: publicUrl }]);
        const replayed = await page.goto(used);
        expect(replayed?.status()).toBe(400);
        expect(await page.content()).toContain('expired, was already completed');
        expect(await userOf('erin')).toHaveLength(1);
    });

    it('fails the upstream login while the realm encryption key is disabled, and works once it is enabled (spec States)', async () => {
        const row = await app.deps.db.selectFrom('auth_identity_providers').select('client_secret').where('id', '=', provider.id).executeTakeFirstOrThrow();
        expect(row.client_secret).toMatch(/^enc:v1:/);
        expect(row.client_secret).not.toContain(upstream.clientSecret);
        const keyId = row.client_secret!.split(':')[2]!;
        await app.json({ method: 'POST', url: `/keys/${keyId}`, payload: { status: 'disabled' } }, 200);
        try {
            const config = await configuration();
            const url = oidc.buildAuthorizationUrl(config, {
                redirect_uri: rp.callback, scope: 'openid', code_challenge: await oidc.calculatePKCECodeChallenge(oidc.randomPKCECodeVerifier()), code_challenge_method: 'S256',
            });
            await page.goto(url.href);
            const answer = page.waitForResponse((response) => response.url().endsWith('/authorize/federated'));
            await page.getByRole('button', { name: 'Sign in with Upstream ID' }).click();
            expect((await answer).status()).toBe(503);
        } finally {
            await app.json({ method: 'POST', url: `/keys/${keyId}`, payload: { status: 'active' } }, 200);
        }
        await throughUpstream('frank');
        await page.getByRole('button', { name: 'Allow' }).click();
        await page.waitForURL((current) => current.href.startsWith(rp.callback));
        expect(await userOf('frank')).toHaveLength(1);
    });

    it('signs in through the provider from the /device page too: the decision page carries federatedLogin', async () => {
        const tv = (await app.json<{ data: { id: string } }>({ method: 'POST', url: '/clients', payload: { realmId: realm.id, name: 'tv', grantTypes: [DEVICE_GRANT] } }, 201)).data;
        const device = await authorizeDevice(app, { id: tv.id });
        await page.goto(device.verification_uri_complete!);
        expect(views.signIn.at(-1)?.providers?.map((entry) => entry.id)).toEqual([provider.id]);
        await page.getByRole('button', { name: 'Sign in with Upstream ID' }).click();
        await page.waitForURL((current) => current.origin === upstream.issuer);
        await page.locator('input[name="login"]').fill('grace');
        await page.locator('input[name="password"]').fill('anything');
        await page.locator('button[type="submit"]').click();
        await page.waitForURL((current) => current.origin !== upstream.issuer || current.pathname.includes('/interaction/'));
        if (new URL(page.url()).origin === upstream.issuer) await page.locator('button[type="submit"]').click();
        await page.getByRole('button', { name: 'Approve' }).click();
        await expect.poll(async () => (await poll(app, { id: tv.id }, device.device_code)).statusCode).toBe(200);
        expect(views.deviceConfirm.at(-1)?.federatedLogin).toEqual({ providerId: provider.id });
        expect(await userOf('grace')).toHaveLength(1);
    });

    it('signs in through a plain OAuth 2.0 provider (configured endpoints, the subject from userinfo)', async () => {
        const oauth = (await app.json<{ data: { id: string } }>({
            method: 'POST', url: '/identity-providers', payload: {
                realmId: realm.id, name: 'upstream-oauth', displayName: 'Upstream OAuth', protocol: 'oauth2',
                authorizationUrl: `${upstream.issuer}/auth`, tokenUrl: `${upstream.issuer}/token`, userinfoUrl: `${upstream.issuer}/me`,
                clientId: upstream.clientId, clientSecret: upstream.clientSecret, scope: 'openid email',
            },
        }, 201)).data;
        const config = await configuration();
        const verifier = oidc.randomPKCECodeVerifier();
        await page.goto(oidc.buildAuthorizationUrl(config, {
            redirect_uri: rp.callback, scope: 'openid', prompt: 'consent', code_challenge: await oidc.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256',
        }).href);
        await page.getByRole('button', { name: 'Sign in with Upstream OAuth' }).click();
        await page.waitForURL((current) => current.origin === upstream.issuer);
        await page.locator('input[name="login"]').fill('heidi');
        await page.locator('input[name="password"]').fill('anything');
        await page.locator('button[type="submit"]').click();
        await page.waitForURL((current) => current.origin !== upstream.issuer || current.pathname.includes('/interaction/'));
        if (new URL(page.url()).origin === upstream.issuer) await page.locator('button[type="submit"]').click();
        await page.getByRole('button', { name: 'Allow' }).click();
        await page.waitForURL((current) => current.href.startsWith(rp.callback));
        expect(views.consent.at(-1)?.federatedLogin).toEqual({ providerId: oauth.id });
        const link = await app.deps.db.selectFrom('auth_user_identities').selectAll().where('provider_id', '=', oauth.id).execute();
        expect(link.map((row) => row.subject)).toEqual(['heidi']);
        const user = await app.deps.db.selectFrom('auth_users').select(['email', 'path_id']).where('id', '=', link[0]!.user_id).executeTakeFirstOrThrow();
        expect(user.email).toBe('heidi@upstream.test');
        expect((await app.deps.db.selectFrom('auth_paths').select('name').where('id', '=', user.path_id!).executeTakeFirstOrThrow()).name).toBe('upstream-oauth');
    });
});
