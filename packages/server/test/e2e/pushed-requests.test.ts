import { exportJWK, generateKeyPair, type CryptoKey } from 'jose';
import * as oidc from 'openid-client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../app.js';
import { describeEachDialect } from '../databases.js';
import { freePort } from '../network.js';

/**
 * End to end with openid-client v6 as the relying party over real HTTP: a pushed authorization
 * request (RFC 9126, `buildAuthorizationUrlWithPAR`), a signed request object (RFC 9101,
 * `buildAuthorizationUrlWithJAR`) and both together, each redeemed through the API form of
 * `POST /authorize` and exchanged for tokens by openid-client's own code grant (state, iss, PKCE).
 */
describeEachDialect('end to end: openid-client pushes and signs its authorization requests', (dialect) => {
    const redirectUri = 'https://app.example/callback';
    let app: TestApp;
    let issuer: URL;
    let web: { id: string };
    let alice: { id: string };
    let privateKey: CryptoKey;
    let kid: string;
    beforeAll(async () => {
        const port = await freePort();
        const publicUrl = `http://127.0.0.1:${port}`;
        app = await startTestApp(dialect, { publicUrl });
        await app.app.listen({ port, host: '127.0.0.1' });
        const realm = (await app.json<{ data: { id: string; name: string } }>({ method: 'POST', url: '/realms', payload: { name: 'e2e-par' } }, 201)).data;
        issuer = new URL(`${publicUrl}/realms/${realm.name}`);
        const pair = await generateKeyPair('ES256');
        privateKey = pair.privateKey;
        kid = 'rp-signing-key';
        const jwk = { ...await exportJWK(pair.publicKey), kid, alg: 'ES256', use: 'sig' };
        web = (await app.json<{ data: { id: string } }>({
            method: 'POST', url: '/clients',
            payload: { realmId: realm.id, name: 'web', secret: 'web-secret', redirectUri, firstParty: true, jwks: { keys: [jwk] }, requirePushedAuthorizationRequests: true },
        }, 201)).data;
        alice = (await app.json<{ data: { id: string } }>({ method: 'POST', url: '/users', payload: { name: 'alice', password: 'alice-password', realmId: realm.id } }, 201)).data;
    });
    afterAll(async () => app?.dispose());

    const configure = () => oidc.discovery(issuer, web.id, 'web-secret', oidc.ClientSecretBasic(), { execute: [oidc.allowInsecureRequests] });

    /** The user answers the authorization URL through the API form; openid-client redeems the code it returns. */
    async function signIn(config: oidc.Configuration, url: URL, verifier: string, state: string) {
        const answer = await app.request({ method: 'POST', url: '/authorize', as: app.basic(alice.id, 'alice-password'), payload: Object.fromEntries(url.searchParams) });
        expect(answer.statusCode, answer.body).toBe(200);
        return oidc.authorizationCodeGrant(config, new URL((answer.json() as { url: string }).url), { pkceCodeVerifier: verifier, expectedState: state });
    }

    async function request() {
        const verifier = oidc.randomPKCECodeVerifier();
        const state = oidc.randomState();
        const params = { redirect_uri: redirectUri, scope: 'openid', state, code_challenge: await oidc.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256' };
        return { verifier, state, params };
    }

    it('discovers the endpoint and the realm\'s requirement, pushes, and signs in with the request_uri', async () => {
        const config = await configure();
        expect(config.serverMetadata()).toMatchObject({ pushed_authorization_request_endpoint: `${issuer.origin}/par`, require_pushed_authorization_requests: false, request_parameter_supported: true });
        const { verifier, state, params } = await request();
        const url = await oidc.buildAuthorizationUrlWithPAR(config, params);
        expect(url.searchParams.get('request_uri')).toMatch(/^urn:ietf:params:oauth:request_uri:/);
        expect(url.searchParams.get('state')).toBeNull();
        const tokens = await signIn(config, url, verifier, state);
        expect(tokens.claims()).toMatchObject({ sub: alice.id, aud: web.id });
        // the reference was spent by the first use
        const again = await app.request({ method: 'POST', url: '/authorize', as: app.basic(alice.id, 'alice-password'), payload: Object.fromEntries(url.searchParams) });
        expect(again.json()).toMatchObject({ error: 'invalid_request_uri' });
    });

    it('signs the request object with the client\'s key and pushes it (JAR inside PAR)', async () => {
        const config = await configure();
        const { verifier, state, params } = await request();
        const signed = await oidc.buildAuthorizationUrlWithJAR(config, params, { key: privateKey, kid });
        const url = await oidc.buildAuthorizationUrlWithPAR(config, signed.searchParams);
        const tokens = await signIn(config, url, verifier, state);
        expect(tokens.claims()).toMatchObject({ sub: alice.id });
    });

    it('refuses the signed object by value at /authorize for a client that must push, and accepts it once the requirement is off', async () => {
        const config = await configure();
        const { verifier, state, params } = await request();
        const url = await oidc.buildAuthorizationUrlWithJAR(config, params, { key: privateKey, kid });
        expect(url.searchParams.get('state')).toBeNull();
        const refused = await app.request({ method: 'POST', url: '/authorize', as: app.basic(alice.id, 'alice-password'), payload: Object.fromEntries(url.searchParams) });
        expect(refused.json()).toMatchObject({ error: 'invalid_request' });
        await app.json({ method: 'POST', url: `/clients/${web.id}`, payload: { requirePushedAuthorizationRequests: false } }, 200);
        try {
            const tokens = await signIn(config, await oidc.buildAuthorizationUrlWithJAR(config, params, { key: privateKey, kid }), verifier, state);
            expect(tokens.claims()).toMatchObject({ sub: alice.id });
        } finally {
            await app.json({ method: 'POST', url: `/clients/${web.id}`, payload: { requirePushedAuthorizationRequests: true } }, 200);
        }
    });
});
