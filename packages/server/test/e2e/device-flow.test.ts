import { createRemoteJWKSet, jwtVerify } from 'jose';
import * as oidc from 'openid-client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../app.js';
import { describeEachDialect } from '../databases.js';
import { DEVICE_GRANT } from '../device-flow.js';
import { freePort } from '../network.js';
import { login } from '../sessions.js';

/**
 * The device flow (RFC 8628) end to end with openid-client over real HTTP: the device discovers
 * the realm, starts the flow and polls with the library's helpers, while the user approves
 * through the API with a bearer issued without a client (the `/device` page comes later).
 */
describeEachDialect('end to end: openid-client device authorization grant', (dialect) => {
    let app: TestApp;
    let issuer: URL;
    let realm: { id: string; name: string };
    let alice: { id: string };
    let tv: { id: string };
    beforeAll(async () => {
        const port = await freePort();
        const publicUrl = `http://127.0.0.1:${port}`;
        app = await startTestApp(dialect, { publicUrl });
        await app.app.listen({ port, host: '127.0.0.1' });
        realm = (await app.json<{ data: { id: string; name: string } }>({ method: 'POST', url: '/realms', payload: { name: 'e2e-device' } }, 201)).data;
        issuer = new URL(`${publicUrl}/realms/${realm.name}`);
        tv = (await app.json<{ data: { id: string } }>({
            method: 'POST', url: '/clients', payload: { realmId: realm.id, name: 'tv', secret: 'tv-secret', grantTypes: [DEVICE_GRANT, 'refresh_token'] },
        }, 201)).data;
        alice = (await app.json<{ data: { id: string } }>({
            method: 'POST', url: '/users', payload: { name: 'alice', password: 'alice-password', realmId: realm.id },
        }, 201)).data;
    });
    afterAll(async () => app?.dispose());

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
});
