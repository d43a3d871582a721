import { PermissionName, RealmScope, TOKEN_EXCHANGE_GRANT_TYPE } from '@realmgate/core';
import { createRemoteJWKSet, decodeJwt, jwtVerify } from 'jose';
import * as oidc from 'openid-client';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { TestApp } from '../app.js';
import { describeEachDialect } from '../databases.js';
import { grantDirect } from '../identities.js';
import { launchChromium, startListeningApp, startRelyingParty, type RelyingPartyListener } from './relying-party.js';

/**
 * Resource indicators (RFC 8707) and token exchange (RFC 8693) with openid-client as the relying
 * party over real HTTP: a person signs in in Chromium for one resource server, the tokens carry
 * it as their audience (verified with jose against the realm's JWKS), and a back-end service
 * exchanges the user's token for one it acts with.
 */
const API = 'https://api.example.com/';
const ACCESS = 'urn:ietf:params:oauth:token-type:access_token';

describeEachDialect('end to end: resource indicators and token exchange with openid-client', (dialect) => {
    let app: TestApp;
    let browser: Browser;
    let rp: RelyingPartyListener;
    let issuer: URL;
    let web: { id: string };
    let backend: { id: string };
    let plain: { id: string };
    let alice: { id: string };
    beforeAll(async () => {
        const { app: started, publicUrl } = await startListeningApp(dialect);
        app = started;
        rp = await startRelyingParty();
        browser = await launchChromium();
        const realm = (await app.json<{ data: { id: string; name: string } }>({ method: 'POST', url: '/realms', payload: { name: 'e2e-exchange' } }, 201)).data;
        issuer = new URL(`${publicUrl}/realms/${realm.name}`);
        const client = async (payload: Record<string, unknown>) =>
            (await app.json<{ data: { id: string } }>({ method: 'POST', url: '/clients', payload: { realmId: realm.id, ...payload } }, 201)).data;
        await client({ name: 'api', secret: 'api-secret', audience: API });
        web = await client({ name: 'web', secret: 'web-secret', firstParty: true, redirectUri: rp.callback });
        backend = await client({ name: 'backend', secret: 'backend-secret' });
        plain = await client({ name: 'plain', secret: 'plain-secret' });
        await grantDirect(app, { clientId: backend.id }, PermissionName.TOKEN_EXCHANGE, RealmScope.OWN);
        alice = (await app.json<{ data: { id: string } }>({
            method: 'POST', url: '/users', payload: { name: 'alice', password: 'alice-password', realmId: realm.id },
        }, 201)).data;
    });
    afterAll(async () => {
        await browser?.close();
        await rp?.close();
        await app?.dispose();
    });

    const discover = (clientId: string, secret: string) =>
        oidc.discovery(issuer, clientId, secret, oidc.ClientSecretBasic(), { execute: [oidc.allowInsecureRequests] });

    /** signs alice in through Chromium with `resource` on the authorization request; the tokens of the code */
    async function signIn(config: oidc.Configuration) {
        const verifier = oidc.randomPKCECodeVerifier();
        const state = oidc.randomState();
        const url = oidc.buildAuthorizationUrl(config, {
            redirect_uri: rp.callback, scope: 'openid', state, resource: API,
            code_challenge: await oidc.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256',
        });
        const context = await browser.newContext();
        try {
            const page = await context.newPage();
            await page.goto(url.href);
            await page.getByLabel('Username or email').fill('alice');
            await page.getByLabel('Password').fill('alice-password');
            await page.getByRole('button', { name: 'Sign in', exact: true }).click();
            await page.waitForURL((landed) => landed.href.startsWith(rp.callback), { timeout: 10_000 });
            return await oidc.authorizationCodeGrant(config, new URL(page.url()), { pkceCodeVerifier: verifier, expectedState: state }, { resource: API });
        } finally {
            await context.close();
        }
    }

    it('a resource on the authorization request narrows the code\'s and the refreshed access tokens to that resource server', async () => {
        const config = await discover(web.id, 'web-secret');
        const jwks = createRemoteJWKSet(new URL(config.serverMetadata().jwks_uri!));
        const tokens = await signIn(config);
        const { payload } = await jwtVerify(tokens.access_token, jwks, { issuer: issuer.href, audience: API });
        expect(payload).toMatchObject({ sub: alice.id, client_id: web.id });
        expect(await oidc.tokenIntrospection(config, tokens.access_token)).toMatchObject({ active: true, aud: API });
        const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
        expect((await jwtVerify(refreshed.access_token, jwks, { audience: API })).payload.sub).toBe(alice.id);
        await expect(oidc.refreshTokenGrant(config, refreshed.refresh_token!, { resource: 'https://elsewhere.example.com/' }))
            .rejects.toMatchObject({ error: 'invalid_target' });
    });

    it('a service exchanges the user\'s token: impersonation, then delegation with act, never beyond its permission', async () => {
        const user = await oidc.genericGrantRequest(await discover(web.id, 'web-secret'), 'password', { username: 'alice', password: 'alice-password' });
        const config = await discover(backend.id, 'backend-secret');
        const jwks = createRemoteJWKSet(new URL(config.serverMetadata().jwks_uri!));
        expect(config.serverMetadata().grant_types_supported).toContain(TOKEN_EXCHANGE_GRANT_TYPE);

        const impersonated = await oidc.genericGrantRequest(config, TOKEN_EXCHANGE_GRANT_TYPE, {
            subject_token: user.access_token, subject_token_type: ACCESS, resource: API,
        });
        expect(impersonated.issued_token_type).toBe(ACCESS);
        const { payload } = await jwtVerify(impersonated.access_token, jwks, { issuer: issuer.href, audience: API });
        expect(payload).toMatchObject({ sub: alice.id, client_id: backend.id });
        expect(payload.act).toBeUndefined();
        expect(payload.exp).toBeLessThanOrEqual(decodeJwt(user.access_token).exp!);

        const own = await oidc.clientCredentialsGrant(config);
        const delegated = await oidc.genericGrantRequest(config, TOKEN_EXCHANGE_GRANT_TYPE, {
            subject_token: user.access_token, subject_token_type: ACCESS, actor_token: own.access_token, actor_token_type: ACCESS, scope: 'global',
        });
        expect((await jwtVerify(delegated.access_token, jwks)).payload).toMatchObject({ sub: alice.id, scope: 'global', act: { sub: backend.id, sub_kind: 'client' } });
        const me = await fetch(new URL('/users/@me', issuer), { headers: { authorization: `Bearer ${delegated.access_token}` } });
        expect(me.status).toBe(200);

        await expect(oidc.genericGrantRequest(await discover(plain.id, 'plain-secret'), TOKEN_EXCHANGE_GRANT_TYPE, {
            subject_token: user.access_token, subject_token_type: ACCESS,
        })).rejects.toMatchObject({ error: 'unauthorized_client' });
        await expect(oidc.genericGrantRequest(config, TOKEN_EXCHANGE_GRANT_TYPE, {
            subject_token: user.access_token, subject_token_type: ACCESS, scope: 'global openid',
        })).rejects.toMatchObject({ error: 'invalid_scope' });
    });
});
