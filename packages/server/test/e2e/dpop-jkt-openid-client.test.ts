import * as oidc from 'openid-client';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../app.js';
import { describeEachDialect } from '../databases.js';
import { freePort } from '../network.js';
import { login } from '../sessions.js';

/**
 * RFC 9449 §10.1 with a certified relying party over real HTTP: openid-client pushes its
 * authorization request with a DPoP proof, so the code is bound to its key; the user approves
 * through the API form; the code is redeemed with a proof of the same key (an RFC 9068 access
 * token bound to it), and another key's proof is refused with invalid_grant.
 */
describeEachDialect('end to end: openid-client, a pushed request binding its code to a DPoP key', (dialect) => {
    let app: TestApp;
    let config: oidc.Configuration;
    let realm: { id: string; name: string };
    const redirectUri = 'https://rp.example/callback';
    beforeAll(async () => {
        const port = await freePort();
        const publicUrl = `http://127.0.0.1:${port}`;
        app = await startTestApp(dialect, { publicUrl });
        await app.app.listen({ port, host: '127.0.0.1' });
        realm = (await app.json<{ data: { id: string; name: string } }>({ method: 'POST', url: '/realms', payload: { name: 'e2e-dpop-jkt' } }, 201)).data;
        const client = (await app.json<{ data: { id: string } }>({
            method: 'POST', url: '/clients', payload: { realmId: realm.id, name: 'web', secret: 'web-secret', redirectUri, firstParty: true },
        }, 201)).data;
        await app.json({ method: 'POST', url: '/users', payload: { realmId: realm.id, name: 'carol', password: 'carol-password' } }, 201);
        config = await oidc.discovery(new URL(`${publicUrl}/realms/${realm.name}`), client.id, 'web-secret', oidc.ClientSecretBasic(), {
            execute: [oidc.allowInsecureRequests],
        });
    });
    afterAll(async () => app?.dispose());

    /** a pushed request carrying a proof of `dpop`'s key, approved by carol through the API form: the callback URL */
    async function approvedCallback(dpop: oidc.DPoPHandle, verifier: string, state: string): Promise<URL> {
        const url = await oidc.buildAuthorizationUrlWithPAR(config, {
            redirect_uri: redirectUri, scope: 'openid', state, code_challenge: await oidc.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256',
        }, { DPoP: dpop });
        const carol = await login(app, realm.id, 'carol', 'carol-password');
        const approved = await app.request({
            method: 'POST', url: '/authorize', as: carol.bearer,
            payload: { client_id: config.clientMetadata().client_id, request_uri: url.searchParams.get('request_uri')! },
        });
        expect(approved.statusCode, approved.body).toBe(200);
        return new URL((approved.json() as { url: string }).url);
    }

    it('redeems the code with a proof of the key the push proved: a DPoP-bound at+jwt access token', async () => {
        const dpop = oidc.getDPoPHandle(config, await oidc.randomDPoPKeyPair('ES256'));
        const verifier = oidc.randomPKCECodeVerifier();
        const state = oidc.randomState();
        const callback = await approvedCallback(dpop, verifier, state);
        const tokens = await oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state }, undefined, { DPoP: dpop });
        expect(tokens.token_type.toLowerCase()).toBe('dpop');
        expect(decodeProtectedHeader(tokens.access_token).typ).toBe('at+jwt');
        const claims = decodeJwt(tokens.access_token);
        expect(claims).toMatchObject({ client_id: config.clientMetadata().client_id, aud: config.serverMetadata().issuer, cnf: { jkt: expect.any(String) } });
    });

    it('refuses the code with another key\'s proof (invalid_grant); the right key still redeems it', async () => {
        const dpop = oidc.getDPoPHandle(config, await oidc.randomDPoPKeyPair('ES256'));
        const thief = oidc.getDPoPHandle(config, await oidc.randomDPoPKeyPair('ES256'));
        const verifier = oidc.randomPKCECodeVerifier();
        const state = oidc.randomState();
        const callback = await approvedCallback(dpop, verifier, state);
        const stolen = oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state }, undefined, { DPoP: thief });
        await expect(stolen).rejects.toMatchObject({ error: 'invalid_grant' });
        const tokens = await oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state }, undefined, { DPoP: dpop });
        expect(tokens.token_type.toLowerCase()).toBe('dpop');
    });
});
