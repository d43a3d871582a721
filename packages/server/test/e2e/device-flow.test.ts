import { createRemoteJWKSet, jwtVerify } from 'jose';
import * as oidc from 'openid-client';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { TestApp } from '../app.js';
import { describeEachDialect } from '../databases.js';
import { DEVICE_GRANT } from '../device-flow.js';
import { login } from '../sessions.js';
import { launchChromium, startListeningApp } from './relying-party.js';

/**
 * The device flow (RFC 8628) end to end with openid-client over real HTTP: the device discovers
 * the realm, starts the flow and polls with the library's helpers, while the user approves
 * through the API with a bearer issued without a client, or — RFC 8628 device authorization — in Debian's
 * chromium at the `/device` page the device names (verification_uri, verification_uri_complete).
 */
describeEachDialect('end to end: openid-client device authorization grant', (dialect) => {
    let app: TestApp;
    let issuer: URL;
    let realm: { id: string; name: string };
    let alice: { id: string };
    let tv: { id: string };
    let chromium: Browser;
    beforeAll(async () => {
        chromium = await launchChromium();
        const { app: started, publicUrl } = await startListeningApp(dialect);
        app = started;
        realm = (await app.json<{ data: { id: string; name: string } }>({ method: 'POST', url: '/realms', payload: { name: 'e2e-device' } }, 201)).data;
        issuer = new URL(`${publicUrl}/realms/${realm.name}`);
        tv = (await app.json<{ data: { id: string } }>({
            method: 'POST', url: '/clients', payload: { realmId: realm.id, name: 'tv', secret: 'tv-secret', grantTypes: [DEVICE_GRANT, 'refresh_token'] },
        }, 201)).data;
        alice = (await app.json<{ data: { id: string } }>({
            method: 'POST', url: '/users', payload: { name: 'alice', password: 'alice-password', realmId: realm.id },
        }, 201)).data;
    });
    afterAll(async () => {
        await chromium?.close();
        await app?.dispose();
    });

    const approve = async (userCode: string) => {
        const bearer = (await login(app, realm.id, 'alice', 'alice-password')).bearer;
        const response = await fetch(new URL('/device_authorization/approve', issuer), {
            method: 'POST', headers: { authorization: bearer, 'content-type': 'application/json' }, body: JSON.stringify({ user_code: userCode }),
        });
        expect(response.status).toBe(200);
    };

    it('initiates, is told to wait, polls to the tokens once the user approved, and cannot redeem twice', async () => {
        const config = await oidc.discovery(issuer, tv.id, 'tv-secret', oidc.ClientSecretBasic(), { execute: [oidc.allowInsecureRequests] });
        expect(config.serverMetadata().device_authorization_endpoint).toBe(new URL('/device_authorization', issuer).href);
        const started = await oidc.initiateDeviceAuthorization(config, { scope: 'openid global' });
        expect(started.verification_uri_complete).toContain(encodeURIComponent(started.user_code));
        // the first poll, before the user acted: the library reads RFC 8628's authorization_pending
        await expect(oidc.genericGrantRequest(config, DEVICE_GRANT, { device_code: started.device_code }))
            .rejects.toMatchObject({ error: 'authorization_pending' });
        await approve(started.user_code);
        // the library waits `interval` before each poll; the user already approved, so no wait is needed
        const tokens = await oidc.pollDeviceAuthorizationGrant(config, { ...started, interval: 0 });
        const claims = tokens.claims();
        expect(claims).toMatchObject({ sub: alice.id, aud: tv.id, iss: issuer.href });
        const jwks = createRemoteJWKSet(new URL(config.serverMetadata().jwks_uri!));
        expect((await jwtVerify(tokens.access_token, jwks, { issuer: issuer.href })).payload).toMatchObject({ sub: alice.id, client_id: tv.id });
        const me = await fetch(new URL('/users/@me', issuer), { headers: { authorization: `Bearer ${tokens.access_token}` } });
        expect(me.status).toBe(200);
        expect(tokens.refresh_token).toBeTypeOf('string');
        await expect(oidc.pollDeviceAuthorizationGrant(config, { ...started, interval: 0 })).rejects.toMatchObject({ error: 'invalid_grant' });
        // and the refresh token works through the library
        expect((await oidc.refreshTokenGrant(config, tokens.refresh_token!)).access_token).toBeTypeOf('string');
    });

    it('surfaces a denial as access_denied and an unlisted client as unauthorized_client', async () => {
        const config = await oidc.discovery(issuer, tv.id, 'tv-secret', oidc.ClientSecretBasic(), { execute: [oidc.allowInsecureRequests] });
        const started = await oidc.initiateDeviceAuthorization(config, {});
        const bearer = (await login(app, realm.id, 'alice', 'alice-password')).bearer;
        const denied = await fetch(new URL('/device_authorization/deny', issuer), {
            method: 'POST', headers: { authorization: bearer, 'content-type': 'application/json' }, body: JSON.stringify({ user_code: started.user_code }),
        });
        expect(denied.status).toBe(200);
        await expect(oidc.pollDeviceAuthorizationGrant(config, { ...started, interval: 0 })).rejects.toMatchObject({ error: 'access_denied' });

        const other = (await app.json<{ data: { id: string } }>({
            method: 'POST', url: '/clients', payload: { realmId: realm.id, name: 'web', secret: 'web-secret' },
        }, 201)).data;
        const web = await oidc.discovery(issuer, other.id, 'web-secret', oidc.ClientSecretBasic(), { execute: [oidc.allowInsecureRequests] });
        await expect(oidc.initiateDeviceAuthorization(web, {})).rejects.toMatchObject({ error: 'unauthorized_client' });
    });

    it('polls with openid-client while chromium signs in at verification_uri_complete and approves', async () => {
        const config = await oidc.discovery(issuer, tv.id, 'tv-secret', oidc.ClientSecretBasic(), { execute: [oidc.allowInsecureRequests] });
        const started = await oidc.initiateDeviceAuthorization(config, { scope: 'openid profile' });
        // the library polls at the server's interval (5 s), answered authorization_pending until the user approves
        const polling = oidc.pollDeviceAuthorizationGrant(config, started);
        const context = await chromium.newContext();
        try {
            const page = await context.newPage();
            await page.goto(started.verification_uri_complete!);
            await signInAtDevicePage(page, started.user_code);
            await page.getByText('openid').first().waitFor();
            await page.getByRole('button', { name: 'Approve' }).click();
            await page.getByRole('heading', { name: 'Device connected' }).waitFor();
        } finally {
            await context.close();
        }
        const tokens = await polling;
        expect(tokens.claims()).toMatchObject({ sub: alice.id, aud: tv.id, iss: issuer.href });
        const me = await fetch(new URL('/users/@me', issuer), { headers: { authorization: `Bearer ${tokens.access_token}` } });
        expect(me.status).toBe(200);
    });

    it('types the code at verification_uri in chromium and denies: the poll ends with access_denied', async () => {
        const config = await oidc.discovery(issuer, tv.id, 'tv-secret', oidc.ClientSecretBasic(), { execute: [oidc.allowInsecureRequests] });
        const started = await oidc.initiateDeviceAuthorization(config, {});
        const polling = oidc.pollDeviceAuthorizationGrant(config, started);
        const context = await chromium.newContext();
        try {
            const page = await context.newPage();
            await page.goto(started.verification_uri);
            await page.getByLabel('Code').fill(started.user_code.toLowerCase());
            await page.getByRole('button', { name: 'Continue' }).click();
            await signInAtDevicePage(page, started.user_code);
            await page.getByRole('button', { name: 'Deny' }).click();
            await page.getByRole('heading', { name: 'Access denied' }).waitFor();
        } finally {
            await context.close();
        }
        await expect(polling).rejects.toMatchObject({ error: 'access_denied' });
    });
});

/** Signs alice in on the device page the browser is at and waits for the decision page. */
async function signInAtDevicePage(page: Page, userCode: string): Promise<void> {
    await page.getByLabel('Username or email').fill('alice');
    await page.getByLabel('Password').fill('alice-password');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    // RFC 8628 §5.4: the page shows the code for the user to compare with the device's
    await page.getByText(`shows the code ${userCode}`).waitFor();
}
