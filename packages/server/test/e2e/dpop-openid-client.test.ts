import * as oidc from 'openid-client';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../app.js';
import { describeEachDialect } from '../databases.js';
import { freePort } from '../network.js';

/**
 * RFC 9449 with a certified relying party over real HTTP: openid-client v6's DPoP handle obtains a
 * DPoP-bound client_credentials token, calls `GET /clients/@me` with it (a fresh proof per call,
 * `ath` included), and — with server nonces required — retries on use_dpop_nonce by itself.
 */
describeEachDialect('end to end: openid-client DPoP against a realm', (dialect) => {
    const apps: TestApp[] = [];
    afterAll(async () => Promise.all(apps.map((app) => app.dispose())));

    /** an app listening on its PUBLIC_URL, a realm and a confidential client; the client's discovered configuration */
    const realmServer = async (nonceRequired: boolean) => {
        const port = await freePort();
        const publicUrl = `http://127.0.0.1:${port}`;
        const app = await startTestApp(dialect, { publicUrl, dpop: { nonceRequired, nonceSecret: undefined } });
        apps.push(app);
        await app.app.listen({ port, host: '127.0.0.1' });
        const realm = (await app.json<{ data: { id: string; name: string } }>({ method: 'POST', url: '/realms', payload: { name: 'e2e-dpop' } }, 201)).data;
        const client = (await app.json<{ data: { id: string } }>({
            method: 'POST', url: '/clients', payload: { realmId: realm.id, name: 'service', secret: 'service-secret' },
        }, 201)).data;
        const config = await oidc.discovery(new URL(`${publicUrl}/realms/${realm.name}`), client.id, 'service-secret', oidc.ClientSecretBasic(), {
            execute: [oidc.allowInsecureRequests],
        });
        return { publicUrl, client, config };
    };

    let plain: Awaited<ReturnType<typeof realmServer>>;
    let nonces: Awaited<ReturnType<typeof realmServer>>;
    beforeAll(async () => {
        plain = await realmServer(false);
        nonces = await realmServer(true);
    });

    it('discovers the DPoP algorithms, obtains a bound token and calls the API with it', async () => {
        expect(plain.config.serverMetadata().dpop_signing_alg_values_supported).toEqual(['ES256', 'PS256', 'RS256', 'EdDSA', 'Ed25519']);
        const keyPair = await oidc.randomDPoPKeyPair('ES256');
        const dpop = oidc.getDPoPHandle(plain.config, keyPair);
        const tokens = await oidc.clientCredentialsGrant(plain.config, {}, { DPoP: dpop });
        expect(tokens.token_type.toLowerCase()).toBe('dpop');
        expect(decodeJwt(tokens.access_token).cnf).toMatchObject({ jkt: expect.any(String) });
        for (let call = 0; call < 2; call++) {
            const me = await oidc.fetchProtectedResource(plain.config, tokens.access_token, new URL(`${plain.publicUrl}/clients/@me`), 'GET', undefined, undefined, { DPoP: dpop });
            expect(me.status).toBe(200);
            expect((await me.json() as { data: { id: string } }).data.id).toBe(plain.client.id);
        }
        // the stolen token without the key: as a bearer, refused
        const stolen = await fetch(`${plain.publicUrl}/clients/@me`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
        expect(stolen.status).toBe(401);
        // introspection names the key (RFC 9449 §6.2)
        expect(await oidc.tokenIntrospection(plain.config, tokens.access_token)).toMatchObject({ active: true, cnf: decodeJwt(tokens.access_token).cnf });
    });

    it('follows the server nonce: use_dpop_nonce at /token and at the API, answered by a retry with the nonce', async () => {
        const dpop = oidc.getDPoPHandle(nonces.config, await oidc.randomDPoPKeyPair('EdDSA'));
        // openid-client learns the nonce from the use_dpop_nonce answer and retries once by itself (RFC 9449 §8, §9)
        const tokens = await oidc.clientCredentialsGrant(nonces.config, {}, { DPoP: dpop });
        expect(tokens.token_type.toLowerCase()).toBe('dpop');
        const me = await oidc.fetchProtectedResource(nonces.config, tokens.access_token, new URL(`${nonces.publicUrl}/clients/@me`), 'GET', undefined, undefined, { DPoP: dpop });
        expect(me.status).toBe(200);
    });
});
