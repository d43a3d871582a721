import * as oidc from 'openid-client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../app.js';
import { describeEachDialect } from '../databases.js';
import { freePort } from '../network.js';

/**
 * End to end with a certified relying-party library over real HTTP: openid-client finds the
 * realm's registration endpoint in discovery, registers itself with an initial access token
 * (RFC 7591), and then uses the client it registered; the registration is managed with its
 * registration access token (RFC 7592).
 */
describeEachDialect('end to end: openid-client registers a client dynamically and uses it', (dialect) => {
    let app: TestApp;
    let issuer: URL;
    let realm: { id: string; name: string };
    beforeAll(async () => {
        const port = await freePort();
        const publicUrl = `http://127.0.0.1:${port}`;
        app = await startTestApp(dialect, { publicUrl });
        await app.app.listen({ port, host: '127.0.0.1' });
        realm = (await app.json<{ data: { id: string; name: string } }>({ method: 'POST', url: '/realms', payload: { name: 'e2e-dcr', dynamicRegistrationEnabled: true } }, 201)).data;
        issuer = new URL(`${publicUrl}/realms/${realm.name}`);
    });
    afterAll(async () => app?.dispose());

    it('registers through discovery with an initial access token, obtains and introspects a token, then reads and deletes its registration', async () => {
        const { token } = (await app.json<{ data: { token: string } }>({ method: 'POST', url: '/initial-access-tokens', payload: { realmId: realm.id } }, 201)).data;
        const config = await oidc.dynamicClientRegistration(issuer, {
            client_name: 'registered by openid-client',
            redirect_uris: ['https://rp.example.com/cb'],
            grant_types: ['authorization_code', 'client_credentials', 'refresh_token'],
            token_endpoint_auth_method: 'client_secret_basic',
        }, oidc.ClientSecretBasic(), { initialAccessToken: token, execute: [oidc.allowInsecureRequests] });
        const registered = config.clientMetadata();
        expect(registered).toMatchObject({ client_name: 'registered by openid-client', token_endpoint_auth_method: 'client_secret_basic', client_secret_expires_at: 0 });
        expect(registered.client_secret).toBeTypeOf('string');

        const tokens = await oidc.clientCredentialsGrant(config);
        expect(tokens.token_type.toLowerCase()).toBe('bearer');
        expect(await oidc.tokenIntrospection(config, tokens.access_token)).toMatchObject({ active: true, sub: registered.client_id, realm_id: realm.id });

        // the token was for one registration: a second one is refused
        await expect(oidc.dynamicClientRegistration(issuer, { redirect_uris: ['https://rp.example.com/cb'] }, undefined, {
            initialAccessToken: token, execute: [oidc.allowInsecureRequests],
        })).rejects.toMatchObject({ status: 401 });

        const uri = registered.registration_client_uri as string;
        const headers = { authorization: `Bearer ${registered.registration_access_token as string}` };
        const read = await fetch(uri, { headers });
        expect(read.status).toBe(200);
        expect(await read.json()).toMatchObject({ client_id: registered.client_id, client_secret: registered.client_secret });
        expect((await fetch(uri, { method: 'DELETE', headers })).status).toBe(204);
        // the deleted client no longer authenticates (401 with a Basic challenge)
        await expect(oidc.clientCredentialsGrant(config)).rejects.toMatchObject({ status: 401 });
    });
});
