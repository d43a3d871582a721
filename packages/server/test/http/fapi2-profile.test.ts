import { randomUUID } from 'node:crypto';
import { decodeProtectedHeader } from 'jose';
import type { LightMyRequestResponse } from 'fastify';
import { beforeAll, expect, it } from 'vitest';
import { useTestApp } from '../app.js';
import { describeEachDialect } from '../databases.js';
import { browser, codeRow, locationParams, pkce } from '../browser.js';
import { assertionClaims, assertionForm, clientKeyPair, signAssertion, type ClientKeyPair } from '../client-assertions.js';
import { dpopKey, dpopProof, type DpopKey } from '../dpop-proofs.js';

const PUBLIC_URL = 'https://id.example.test';
const REDIRECT = 'https://bank-app.example.test/cb';

/**
 * A realm with `securityProfile: "fapi2"` enforces the FAPI 2.0 Security Profile for every client,
 * whatever it registered (oauth2/security-profile.ts): pushed requests, PKCE S256, private_key_jwt
 * with PS256/ES256/EdDSA, DPoP-bound tokens, codes of at most 60 s, ES256 ID tokens — each refusal
 * with its RFC's error — and discovery advertises exactly that.
 */
describeEachDialect('the FAPI 2.0 security profile of a realm', (dialect) => {
    const app = useTestApp(dialect, { publicUrl: PUBLIC_URL });
    let realm: { id: string; name: string };
    let issuer: string;
    let key: ClientKeyPair;
    let rsaKey: ClientKeyPair;
    let proofKey: DpopKey;
    let fapiClient: string;
    let rsaClient: string;
    let secretClient: string;
    const user = { name: 'fapi-user', password: 'fapi-user-password' };

    const post = (url: string, form: Record<string, string>, headers: Record<string, string> = {}) => app.request({
        method: 'POST', url, as: null, headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, payload: new URLSearchParams(form).toString(),
    });
    const assertion = async (clientId: string, signer: ClientKeyPair = key) => assertionForm(await signAssertion(signer, assertionClaims(clientId, issuer)));
    const proof = (htm: string, path: string, signer: DpopKey = proofKey) => dpopProof(signer, { htm, htu: `${PUBLIC_URL}${path}` });
    const expectError = (answer: LightMyRequestResponse, status: number, error: string) => {
        expect(answer.statusCode, answer.body).toBe(status);
        expect(answer.json()).toMatchObject({ error });
    };
    /** a pushed request of the FAPI client, its PKCE pair and parameters */
    const pushRequest = async (extra: Record<string, string> = {}) => {
        const pair = pkce();
        const params: Record<string, string> = {
            response_type: 'code', client_id: fapiClient, redirect_uri: REDIRECT, scope: 'openid', nonce: randomUUID(),
            code_challenge: pair.challenge, code_challenge_method: 'S256', ...extra,
        };
        const answer = await post('/par', { ...params, ...await assertion(fapiClient) });
        return { answer, pair, params };
    };

    beforeAll(async () => {
        realm = (await app.json<{ data: { id: string; name: string } }>({ method: 'POST', url: '/realms', payload: { name: `fapi-${randomUUID().slice(0, 8)}`, securityProfile: 'fapi2' } }, 201)).data;
        issuer = `${PUBLIC_URL}/realms/${realm.name}`;
        key = await clientKeyPair('ES256');
        rsaKey = await clientKeyPair('RS256');
        proofKey = await dpopKey('ES256');
        const client = async (payload: Record<string, unknown>) =>
            (await app.json<{ data: { id: string } }>({ method: 'POST', url: '/clients', payload: { realmId: realm.id, name: `c-${randomUUID().slice(0, 8)}`, redirectUri: REDIRECT, firstParty: true, ...payload } }, 201)).data.id;
        fapiClient = await client({ tokenEndpointAuthMethod: 'private_key_jwt', jwks: { keys: [key.jwk] } });
        rsaClient = await client({ tokenEndpointAuthMethod: 'private_key_jwt', jwks: { keys: [rsaKey.jwk] } });
        secretClient = await client({ secret: 'a-client-secret-of-some-length' });
        await app.json({ method: 'POST', url: '/users', payload: { realmId: realm.id, ...user } }, 201);
    });

    it('advertises only what the profile allows', async () => {
        const document = (await app.request({ method: 'GET', url: `/realms/${realm.name}/.well-known/openid-configuration`, as: null })).json() as Record<string, unknown>;
        expect(document).toMatchObject({
            require_pushed_authorization_requests: true,
            token_endpoint_auth_methods_supported: ['private_key_jwt'],
            token_endpoint_auth_signing_alg_values_supported: ['PS256', 'ES256', 'EdDSA'],
            request_object_signing_alg_values_supported: ['PS256', 'ES256', 'EdDSA'],
            id_token_signing_alg_values_supported: ['ES256'],
            code_challenge_methods_supported: ['S256'],
            authorization_response_iss_parameter_supported: true,
        });
        expect(document.dpop_signing_alg_values_supported).not.toContain('RS256');
        // a realm without the profile keeps every method
        const master = (await app.request({ method: 'GET', url: '/realms/master/.well-known/openid-configuration', as: null })).json() as Record<string, unknown>;
        expect(master.token_endpoint_auth_methods_supported).toContain('client_secret_basic');
        expect(master.require_pushed_authorization_requests).toBe(false);
    });

    it('refuses a client secret, an RS256 assertion and a bare client_id at the token and pushed-authorization endpoints', async () => {
        const secret = `Basic ${Buffer.from(`${secretClient}:a-client-secret-of-some-length`).toString('base64')}`;
        const dpop = async () => ({ dpop: await proof('POST', '/token') });
        expectError(await post('/token', { grant_type: 'client_credentials' }, { authorization: secret, ...await dpop() }), 401, 'invalid_client');
        expectError(await post('/token', { grant_type: 'client_credentials', ...await assertion(rsaClient, rsaKey) }, await dpop()), 401, 'invalid_client');
        expectError(await post('/par', { response_type: 'code', client_id: secretClient, redirect_uri: REDIRECT }, { authorization: secret }), 401, 'invalid_client');
        expectError(await post('/par', { response_type: 'code', redirect_uri: REDIRECT, ...await assertion(rsaClient, rsaKey) }), 401, 'invalid_client');
        expectError(await post('/par', { response_type: 'code', client_id: fapiClient, redirect_uri: REDIRECT }), 401, 'invalid_client');
    });

    it('refuses a token request without a DPoP proof or with an RS256 one, and binds the token with an ES256 proof', async () => {
        expectError(await post('/token', { grant_type: 'client_credentials', ...await assertion(fapiClient) }), 400, 'invalid_dpop_proof');
        const rsaProof = await proof('POST', '/token', await dpopKey('RS256'));
        expectError(await post('/token', { grant_type: 'client_credentials', ...await assertion(fapiClient) }, { dpop: rsaProof }), 400, 'invalid_dpop_proof');
        const bound = await post('/token', { grant_type: 'client_credentials', ...await assertion(fapiClient) }, { dpop: await proof('POST', '/token') });
        expect(bound.statusCode, bound.body).toBe(200);
        expect(bound.json()).toMatchObject({ token_type: 'DPoP' });
    });

    it('takes only pushed requests with PKCE; the code lives 60 s; the ID token is ES256 and the tokens DPoP-bound', async () => {
        // a plain authorization request, even a correct one, is refused: only pushed requests count
        const plain = await browser(app).authorize({ response_type: 'code', client_id: fapiClient, redirect_uri: REDIRECT, scope: 'openid', code_challenge: pkce().challenge, code_challenge_method: 'S256' });
        expect(plain.statusCode).toBe(303);
        expect(locationParams(plain).params).toMatchObject({ error: 'invalid_request', iss: issuer });
        // a pushed request without PKCE is refused at the push (RFC 9126 §2.3)
        const { code_challenge: _challenge, code_challenge_method: _method, ...withoutPkce } = (await pushRequest()).params;
        expectError(await post('/par', { ...withoutPkce, ...await assertion(fapiClient) }), 400, 'invalid_request');

        const { answer, pair } = await pushRequest();
        expect(answer.statusCode, answer.body).toBe(201);
        const client = browser(app);
        const page = await client.authorize({ client_id: fapiClient, request_uri: (answer.json() as { request_uri: string }).request_uri });
        expect(page.statusCode, page.body).toBe(200);
        const done = await client.submit(page, { username: user.name, password: user.password });
        const { params: response } = locationParams(done);
        // RFC 9207: iss in the response
        expect(response.iss).toBe(issuer);
        const row = await codeRow(app, response.code!);
        expect(new Date(row!.expires_at).getTime() - Date.now()).toBeLessThanOrEqual(60_000);

        const redeemed = await post('/token', {
            grant_type: 'authorization_code', code: response.code!, redirect_uri: REDIRECT, code_verifier: pair.verifier, ...await assertion(fapiClient),
        }, { dpop: await proof('POST', '/token') });
        expect(redeemed.statusCode, redeemed.body).toBe(200);
        const tokens = redeemed.json() as { token_type: string; id_token: string; access_token: string; refresh_token: string };
        expect(tokens.token_type).toBe('DPoP');
        expect(decodeProtectedHeader(tokens.id_token).alg).toBe('ES256');
        // a refresh needs the client's assertion and a DPoP proof like every token request
        expectError(await post('/token', { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, ...await assertion(fapiClient) }), 400, 'invalid_dpop_proof');
        const refreshed = await post('/token', { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, ...await assertion(fapiClient) }, { dpop: await proof('POST', '/token') });
        expect(refreshed.statusCode, refreshed.body).toBe(200);
        expect(refreshed.json()).toMatchObject({ token_type: 'DPoP' });
        // the bound access token works with its key only
        const me = await app.request({ method: 'GET', url: '/users/@me', as: null, headers: { authorization: `DPoP ${tokens.access_token}`, dpop: await dpopProof(proofKey, { htm: 'GET', htu: `${PUBLIC_URL}/users/@me`, accessToken: tokens.access_token }) } });
        expect(me.statusCode, me.body).toBe(200);
        const stolen = await app.request({ method: 'GET', url: '/users/@me', as: null, headers: { authorization: `Bearer ${tokens.access_token}` } });
        expect(stolen.statusCode).toBe(401);
    });

    it('realm isolation: a client of another realm is refused at this realm\'s pushed-authorization endpoint', async () => {
        const other = (await app.json<{ data: { id: string } }>({ method: 'POST', url: '/realms', payload: { name: `plain-${randomUUID().slice(0, 8)}` } }, 201)).data;
        const foreign = (await app.json<{ data: { id: string } }>({ method: 'POST', url: '/clients', payload: { realmId: other.id, name: 'foreign', tokenEndpointAuthMethod: 'private_key_jwt', jwks: { keys: [key.jwk] }, redirectUri: REDIRECT } }, 201)).data.id;
        // its assertion names this realm's issuer; the client is not of this realm
        const answer = await post('/par', { response_type: 'code', client_id: foreign, redirect_uri: REDIRECT, ...assertionForm(await signAssertion(key, assertionClaims(foreign, issuer))) });
        expect(answer.statusCode).toBe(401);
    });
});
