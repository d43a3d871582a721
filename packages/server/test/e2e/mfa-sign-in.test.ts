import * as oidc from 'openid-client';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import type { TestApp } from '../app.js';
import { enrolTotp, nextTotpCode } from '../browser.js';
import { describeEachDialect } from '../databases.js';
import { launchChromium, startListeningApp, startRelyingParty, type RelyingPartyListener } from './relying-party.js';

/**
 * Multi-factor sign-in in a real browser (multi-factor sign-in with TOTP; RFC 6238): a user enrolled through the API signs
 * in to an application in Debian's chromium — the password, then the second page with the code
 * otplib computes (RFC 6238), or a recovery code — and openid-client redeems the code.
 */
describeEachDialect('end to end: two-factor browser sign-in with chromium and openid-client', (dialect) => {
    let app: TestApp;
    let browser: Browser;
    let rp: RelyingPartyListener;
    let issuer: URL;
    let web: { id: string };
    let bob: { id: string };
    let enrolment: { secret: string; recoveryCodes: string[] };
    let context: BrowserContext;
    let page: Page;

    beforeAll(async () => {
        const { app: started, publicUrl } = await startListeningApp(dialect);
        app = started;
        rp = await startRelyingParty();
        browser = await launchChromium();
        const realm = (await app.json<{ data: { id: string; name: string } }>({ method: 'POST', url: '/realms', payload: { name: 'e2e-mfa' } }, 201)).data;
        issuer = new URL(`${publicUrl}/realms/${realm.name}`);
        web = (await app.json<{ data: { id: string } }>({
            method: 'POST', url: '/clients', payload: { realmId: realm.id, name: 'web', secret: 'web-secret', firstParty: true, redirectUri: rp.callback },
        }, 201)).data;
        bob = (await app.json<{ data: { id: string } }>({
            method: 'POST', url: '/users', payload: { name: 'bob', password: 'bob-password', realmId: realm.id },
        }, 201)).data;
        // multi-factor on in the realm; an authenticator enrolled and confirmed through the API
        enrolment = await enrolTotp(app, { realmId: realm.id, user: bob });
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

    /** the authorization request, the password, and the second page: the code typed by `second` */
    async function signIn(second: (page: Page) => Promise<void>) {
        const config = await oidc.discovery(issuer, web.id, 'web-secret', oidc.ClientSecretBasic(), { execute: [oidc.allowInsecureRequests] });
        const verifier = oidc.randomPKCECodeVerifier();
        const state = oidc.randomState();
        const url = oidc.buildAuthorizationUrl(config, {
            redirect_uri: rp.callback, scope: 'openid', state, code_challenge: await oidc.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256',
        });
        await page.goto(url.href);
        await page.getByLabel('Username or email').fill('bob');
        await page.getByLabel('Password').fill('bob-password');
        await page.getByRole('button', { name: 'Sign in', exact: true }).click();
        await page.getByLabel('Authentication code').waitFor();
        await second(page);
        await page.waitForURL((current) => current.href.startsWith(rp.callback), { timeout: 10_000 }).catch(async (error: unknown) => {
            throw new Error(`the browser stopped at ${page.url()}: ${(await page.locator('body').innerText()).slice(0, 500)}`, { cause: error });
        });
        return oidc.authorizationCodeGrant(config, new URL(page.url()), { pkceCodeVerifier: verifier, expectedState: state });
    }

    it('asks for the authentication code after the password; a wrong code is refused, the code from otplib signs in', async () => {
        const tokens = await signIn(async (second) => {
            await second.getByLabel('Authentication code').fill('000000');
            await second.getByRole('button', { name: 'Verify' }).click();
            await second.getByText('The code is incorrect or was already used.').waitFor();
            await second.getByLabel('Authentication code').fill(await nextTotpCode(enrolment.secret));
            await second.getByRole('button', { name: 'Verify' }).click();
        });
        expect(tokens.claims()).toMatchObject({ sub: bob.id, aud: web.id });
    });

    it('signs in with a recovery code instead', async () => {
        const tokens = await signIn(async (second) => {
            await second.getByText('Use a recovery code instead').click();
            await second.getByLabel('Recovery code').fill(enrolment.recoveryCodes[0]!);
            await second.getByRole('button', { name: 'Verify' }).click();
        });
        expect(tokens.claims()).toMatchObject({ sub: bob.id });
    });
});
