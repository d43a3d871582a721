import { randomUUID } from 'node:crypto';
import * as oidc from 'openid-client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../app.js';
import { clientKeyPair, startJwksServer, type ClientKeyPair } from '../client-assertions.js';
import { describeEachDialect } from '../databases.js';
import { freePort } from '../network.js';

/**
 * End to end with openid-client v6 as the relying party over real HTTP: private_key_jwt (inline
 * keys and a jwksUri) and client_secret_jwt clients obtain client_credentials tokens, introspect
 * and revoke them, each request carrying a fresh assertion the library builds from discovery.
 */
describeEachDialect('end to end: openid-client with private_key_jwt and client_secret_jwt', (dialect) => {
    let app: TestApp;
    let issuer: URL;
    let realm: { id: string; name: string };
    let jwksServer: Awaited<ReturnType<typeof startJwksServer>>;
    let key: ClientKeyPair;
    beforeAll(async () => {
        const port = await freePort();
        const publicUrl = `http://127.0.0.1:${port}`;
        app = await startTestApp(dialect, { publicUrl });
        await app.app.listen({ port, host: '127.0.0.1' });
        realm = (await app.json<{ data: { id: string; name: string } }>({ method: 'POST', url: '/realms', payload: { name: `e2e-jwt-${randomUUID().slice(0, 6)}` } }, 201)).data;
        issuer = new URL(`${publicUrl}/realms/${realm.name}`);
        jwksServer = await startJwksServer();
        key = await clientKeyPair('ES256');
    });
    afterAll(async () => {
        await app?.dispose();
        await jwksServer?.close();
    });

    const client = async (payload: Record<string, unknown>) =>
        (await app.json<{ data: { id: string } }>({ method: 'POST', url: '/clients', payload: { realmId: realm.id, name: `c-${randomUUID().slice(0, 8)}`, ...payload } }, 201)).data;

    /** client_credentials, introspection of the token, revocation, and the token inactive after it */
    const roundTrip = async (config: oidc.Configuration, clientId: string) => {
        const tokens = await oidc.clientCredentialsGrant(config);
        expect(tokens.token_type.toLowerCase()).toBe('bearer');
        expect(await oidc.tokenIntrospection(config, tokens.access_token)).toMatchObject({ active: true, sub: clientId, sub_kind: 'client' });
        await oidc.tokenRevocation(config, tokens.access_token);
        expect(await oidc.tokenIntrospection(config, tokens.access_token)).toMatchObject({ active: false });
    };

    it('discovery advertises the JWT methods and their algorithms', async () => {
        const config = await oidc.discovery(issuer, 'anyone', undefined, oidc.None(), { execute: [oidc.allowInsecureRequests] });
        const metadata = config.serverMetadata();
        expect(metadata.token_endpoint_auth_methods_supported).toEqual(expect.arrayContaining(['private_key_jwt', 'client_secret_jwt']));
        expect(metadata.token_endpoint_auth_signing_alg_values_supported).toEqual(expect.arrayContaining(['ES256', 'RS256', 'PS256', 'EdDSA', 'HS256']));
        expect(metadata.token_endpoint_auth_signing_alg_values_supported).not.toContain('none');
    });

    it('private_key_jwt with inline keys: tokens, introspection and revocation', async () => {
        const created = await client({ tokenEndpointAuthMethod: 'private_key_jwt', jwks: { keys: [key.jwk] } });
        const config = await oidc.discovery(issuer, created.id, undefined, oidc.PrivateKeyJwt({ key: key.privateKey, kid: key.kid }), {
            execute: [oidc.allowInsecureRequests],
        });
        await roundTrip(config, created.id);
    });

    it('private_key_jwt with a jwksUri, and a key rotated there', async () => {
        const rsa = await clientKeyPair('PS256');
        jwksServer.state.keys = [rsa.jwk];
        const created = await client({ tokenEndpointAuthMethod: 'private_key_jwt', jwksUri: jwksServer.url });
        const config = await oidc.discovery(issuer, created.id, undefined, oidc.PrivateKeyJwt({ key: rsa.privateKey, kid: rsa.kid }), {
            execute: [oidc.allowInsecureRequests],
        });
        await roundTrip(config, created.id);
        // the client publishes a new key beside the old one and switches to it; saving the client
        // makes the server read its jwksUri again at once
        const next = await clientKeyPair('ES256');
        jwksServer.state.keys = [rsa.jwk, next.jwk];
        await app.json({ method: 'POST', url: `/clients/${created.id}`, payload: { displayName: 'rotated' } }, 200);
        const rotated = await oidc.discovery(issuer, created.id, undefined, oidc.PrivateKeyJwt({ key: next.privateKey, kid: next.kid }), {
            execute: [oidc.allowInsecureRequests],
        });
        await roundTrip(rotated, created.id);
    });

    it('client_secret_jwt with an encrypted secret; the wrong secret is refused', async () => {
        const secret = `csj-${randomUUID()}`;
        const created = await client({ tokenEndpointAuthMethod: 'client_secret_jwt', secret, secretEncrypted: true });
        const config = await oidc.discovery(issuer, created.id, secret, oidc.ClientSecretJwt(secret), { execute: [oidc.allowInsecureRequests] });
        await roundTrip(config, created.id);
        const wrong = await oidc.discovery(issuer, created.id, 'not-the-secret', oidc.ClientSecretJwt('not-the-secret'), { execute: [oidc.allowInsecureRequests] });
        await expect(oidc.clientCredentialsGrant(wrong)).rejects.toMatchObject({ status: 401 });
        // nor can the library fall back to sending the secret itself
        const post = await oidc.discovery(issuer, created.id, secret, oidc.ClientSecretPost(secret), { execute: [oidc.allowInsecureRequests] });
        await expect(oidc.clientCredentialsGrant(post)).rejects.toMatchObject({ status: 401 });
    });
});
