import { randomUUID } from 'node:crypto';
import { DEVICE_CODE_GRANT_TYPE } from '@realmgate/core';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { useTestApp } from '../app.js';
import { describeEachDialect } from '../databases.js';
import {
    assertionClaims, assertionForm, clientKeyPair, signAssertion, signWithSecret, startJwksServer, unsecuredAssertion, type ClientKeyPair,
} from '../client-assertions.js';

/**
 * private_key_jwt and client_secret_jwt (RFC 7523 §2.2, OIDC Core §9) at every endpoint that
 * authenticates clients, and the attacks of RFC 7523 §3: every refusal is a 401 invalid_client
 * counted as a failed authentication.
 */
describeEachDialect('client authentication by assertion (RFC 7523)', (dialect) => {
    let failures = 0;
    let now = Date.now();
    const app = useTestApp(dialect, { publicUrl: 'https://id.example.test' }, {
        limits: { onFailure: () => failures++ }, clientKeysClock: () => now,
    });
    const issuerOf = (realm: string) => `https://id.example.test/realms/${realm}`;
    let jwksServer: Awaited<ReturnType<typeof startJwksServer>>;
    let realm: { id: string; name: string };
    let key: ClientKeyPair;
    let pkj: { id: string };
    let csjSecret: string;

    const createClient = async (payload: Record<string, unknown>, realmId = realm.id) =>
        (await app.json<{ data: { id: string } }>({ method: 'POST', url: '/clients', payload: { realmId, name: `c-${randomUUID().slice(0, 8)}`, ...payload } }, 201)).data;
    const post = (url: string, form: Record<string, string>, authorization?: string) => app.request({
        method: 'POST', url, as: authorization ?? null, headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams(form).toString(),
    });
    const token = (form: Record<string, string>, authorization?: string) => post('/token', { grant_type: 'client_credentials', ...form }, authorization);
    /** a refusal: 401 invalid_client, one more failed authentication */
    const refused = async (response: Awaited<ReturnType<typeof token>>, description?: RegExp) => {
        const before = failures;
        expect(response.statusCode, response.body).toBe(401);
        expect(response.json()).toMatchObject({ error: 'invalid_client' });
        if (description) expect((response.json() as { error_description: string }).error_description).toMatch(description);
        return before;
    };
    const expectRefused = async (send: () => Promise<Awaited<ReturnType<typeof token>>>, description?: RegExp) => {
        const before = failures;
        await refused(await send(), description);
        expect(failures).toBe(before + 1);
    };

    beforeAll(async () => {
        jwksServer = await startJwksServer();
        realm = (await app.json<{ data: { id: string; name: string } }>({ method: 'POST', url: '/realms', payload: { name: `jwt-${randomUUID().slice(0, 8)}` } }, 201)).data;
        key = await clientKeyPair('ES256');
        pkj = await createClient({ tokenEndpointAuthMethod: 'private_key_jwt', jwks: { keys: [key.jwk] }, grantTypes: ['client_credentials', DEVICE_CODE_GRANT_TYPE] });
        csjSecret = `csj-${randomUUID()}`;
    });
    afterAll(() => jwksServer.close());
    beforeEach(() => {
        now = Date.now();
    });

    it('private_key_jwt: client_credentials with the issuer or the token endpoint as audience, client_id optional', async () => {
        const byIssuer = await token(assertionForm(await signAssertion(key, assertionClaims(pkj.id, issuerOf(realm.name)))));
        expect(byIssuer.statusCode, byIssuer.body).toBe(200);
        expect(byIssuer.json()).toMatchObject({ token_type: 'Bearer', access_token: expect.any(String) });
        const byEndpoint = await token({ client_id: pkj.id, ...assertionForm(await signAssertion(key, assertionClaims(pkj.id, 'https://id.example.test/token'))) });
        expect(byEndpoint.statusCode, byEndpoint.body).toBe(200);
        // every algorithm of the allowlist
        for (const alg of ['RS256', 'PS256', 'EdDSA'] as const) {
            const other = await clientKeyPair(alg);
            const client = await createClient({ tokenEndpointAuthMethod: 'private_key_jwt', jwks: { keys: [other.jwk] } });
            const answer = await token(assertionForm(await signAssertion(other, assertionClaims(client.id, issuerOf(realm.name)))));
            expect(answer.statusCode, `${alg}: ${answer.body}`).toBe(200);
        }
    });

    it('an assertion is single use (RFC 7523 §3 item 7)', async () => {
        const assertion = await signAssertion(key, assertionClaims(pkj.id, issuerOf(realm.name)));
        expect((await token(assertionForm(assertion))).statusCode).toBe(200);
        await expectRefused(() => token(assertionForm(assertion)), /used before/);
        // the same jti in a new assertion is a replay too
        const jti = randomUUID();
        expect((await token(assertionForm(await signAssertion(key, assertionClaims(pkj.id, issuerOf(realm.name), { jti }))))).statusCode).toBe(200);
        await expectRefused(async () => token(assertionForm(await signAssertion(key, assertionClaims(pkj.id, issuerOf(realm.name), { jti })))));
    });

    it('the attacks of RFC 7523 §3: audience, alg none, HS256 with a public key client, lifetime, iss and sub, jti', async () => {
        const aud = issuerOf(realm.name);
        const signed = (claims: Record<string, unknown>) => signAssertion(key, assertionClaims(pkj.id, aud, claims));
        await expectRefused(async () => token(assertionForm(await signed({ aud: 'https://elsewhere.example/token' }))), /aud/);
        await expectRefused(async () => token(assertionForm(await signed({ aud: issuerOf('master') }))), /aud/);
        await expectRefused(() => token(assertionForm(unsecuredAssertion(assertionClaims(pkj.id, aud)))), /alg/);
        // an HMAC with anything the attacker knows (the public key's members) for a private_key_jwt client
        await expectRefused(async () => token(assertionForm(await signWithSecret(JSON.stringify(key.jwk), assertionClaims(pkj.id, aud)))), /cannot authenticate/);
        const seconds = Math.floor(Date.now() / 1000);
        await expectRefused(async () => token(assertionForm(await signed({ iat: seconds - 600, exp: seconds - 120 }))), /exp/);
        await expectRefused(async () => token(assertionForm(await signed({ exp: seconds + 600 }))), /exp/);
        await expectRefused(async () => token(assertionForm(await signed({ exp: undefined }))), /exp/);
        await expectRefused(async () => token(assertionForm(await signed({ nbf: seconds + 600 }))), /nbf/);
        await expectRefused(async () => token(assertionForm(await signed({ jti: undefined }))), /jti/);
        await expectRefused(async () => token(assertionForm(await signed({ iss: 'someone-else' }))), /iss/);
        // sub names another client: that client's keys do not verify it
        const other = await createClient({ tokenEndpointAuthMethod: 'private_key_jwt', jwks: { keys: [(await clientKeyPair()).jwk] } });
        await expectRefused(async () => token(assertionForm(await signed({ iss: other.id, sub: other.id }))));
        // a key the client never registered
        await expectRefused(async () => token(assertionForm(await signAssertion(await clientKeyPair(), assertionClaims(pkj.id, aud)))));
        // client_id names another client than the assertion's sub
        await expectRefused(async () => token({ client_id: other.id, ...assertionForm(await signed({})) }), /client_id/);
        // not a JWT, another assertion type
        await expectRefused(() => token(assertionForm('not-a-jwt')));
        const wrongType = await token({ client_assertion_type: 'urn:example:saml', client_assertion: await signed({}) });
        expect(wrongType.statusCode).toBe(401);
        // an assertion beside a secret is two methods (RFC 6749 §2.3.1)
        const both = await token({ client_id: pkj.id, client_secret: 'x', ...assertionForm(await signed({})) });
        expect(both.statusCode).toBe(400);
        expect(both.json()).toMatchObject({ error: 'invalid_request' });
    });

    it('a private_key_jwt client is confidential: neither a secret nor its bare client_id authenticates it', async () => {
        const secret = `s-${randomUUID()}`;
        const withSecret = await createClient({ tokenEndpointAuthMethod: 'private_key_jwt', jwks: { keys: [key.jwk] }, secret });
        await expectRefused(() => token({}, app.basic(withSecret.id, secret)));
        await expectRefused(() => token({ client_id: withSecret.id, client_secret: secret }));
        await expectRefused(() => token({ client_id: pkj.id, client_secret: 'anything' }));
        // a bare client_id is no public client here: refused at the code grant, not "identified"
        await expectRefused(() => post('/token', { grant_type: 'authorization_code', code: 'x', redirect_uri: 'https://app.example/cb', client_id: pkj.id }));
        // and after the client authenticated (remembered), still refused
        expect((await token(assertionForm(await signAssertion(key, assertionClaims(pkj.id, issuerOf(realm.name)))))).statusCode).toBe(200);
        await expectRefused(() => post('/token', { grant_type: 'authorization_code', code: 'x', redirect_uri: 'https://app.example/cb', client_id: pkj.id }));
        // a secret-method client cannot switch to an assertion
        const basicClient = await createClient({ tokenEndpointAuthMethod: 'client_secret_basic', secret });
        await expectRefused(async () => token(assertionForm(await signWithSecret(secret, assertionClaims(basicClient.id, issuerOf(realm.name))))));
        await expectRefused(() => token({ client_id: basicClient.id, client_secret: secret }));
        expect((await token({}, app.basic(basicClient.id, secret))).statusCode).toBe(200);
    });

    it('client_secret_jwt: HS256 keyed with a plain or an encrypted secret; no RS256, no secret in the body', async () => {
        for (const mode of [{}, { secretEncrypted: true }]) {
            const client = await createClient({ tokenEndpointAuthMethod: 'client_secret_jwt', secret: csjSecret, ...mode });
            for (const alg of ['HS256', 'HS512'] as const) {
                const answer = await token(assertionForm(await signWithSecret(csjSecret, assertionClaims(client.id, issuerOf(realm.name)), alg)));
                expect(answer.statusCode, answer.body).toBe(200);
            }
            await expectRefused(async () => token(assertionForm(await signWithSecret('wrong-secret', assertionClaims(client.id, issuerOf(realm.name))))));
            await expectRefused(async () => token(assertionForm(await signAssertion(key, assertionClaims(client.id, issuerOf(realm.name))))));
            await expectRefused(() => token({ client_id: client.id, client_secret: csjSecret }));
        }
    });

    it('introspection, revocation and device authorization authenticate by assertion, each at its own URL', async () => {
        const access = (await token(assertionForm(await signAssertion(key, assertionClaims(pkj.id, issuerOf(realm.name)))))).json<{ access_token: string }>().access_token;
        const at = async (path: string) => assertionForm(await signAssertion(key, assertionClaims(pkj.id, `https://id.example.test${path}`)));
        const introspected = await post('/token/introspect', { token: access, ...await at('/token/introspect') });
        expect(introspected.statusCode, introspected.body).toBe(200);
        expect(introspected.json()).toMatchObject({ active: true, sub: pkj.id });
        // another endpoint's URL is not this one's audience
        await expectRefused(async () => post('/token/introspect', { token: access, ...await at('/token/revoke') }), /aud/);
        const device = await post('/device_authorization', await at('/device_authorization'));
        expect(device.statusCode, device.body).toBe(200);
        const revoked = await post('/token/revoke', { token: access, ...await at('/token/revoke') });
        expect(revoked.statusCode, revoked.body).toBe(200);
        const after = await post('/token/introspect', { token: access, ...await at('/token/introspect') });
        expect(after.json()).toMatchObject({ active: false });
        await expectRefused(async () => post('/token/revoke', { token: access, ...await at('/token/introspect') }));
    });

    it('realm isolation: an assertion of a client of another realm authenticates nothing in this one', async () => {
        const other = (await app.json<{ data: { id: string; name: string } }>({ method: 'POST', url: '/realms', payload: { name: `jwt-${randomUUID().slice(0, 8)}` } }, 201)).data;
        // signed for the other realm's issuer, presented with this realm named: the client is not there
        await expectRefused(async () => token({ realm_id: other.id, ...assertionForm(await signAssertion(key, assertionClaims(pkj.id, issuerOf(other.name)))) }));
        // and this realm's issuer is not the other realm's
        const foreign = await createClient({ tokenEndpointAuthMethod: 'private_key_jwt', jwks: { keys: [key.jwk] } }, other.id);
        await expectRefused(async () => token(assertionForm(await signAssertion(key, assertionClaims(foreign.id, issuerOf(realm.name))))), /aud/);
        const own = await token(assertionForm(await signAssertion(key, assertionClaims(foreign.id, issuerOf(other.name)))));
        expect(own.statusCode, own.body).toBe(200);
    });

    it('a key rotated at the jwksUri: the new key verifies once the interval passed, or at once after the client is saved', async () => {
        const first = await clientKeyPair('ES256');
        const second = await clientKeyPair('RS256');
        jwksServer.state.keys = [first.jwk];
        const client = await createClient({ tokenEndpointAuthMethod: 'private_key_jwt', jwksUri: jwksServer.url });
        const send = (pair: ClientKeyPair) => async () => token(assertionForm(await signAssertion(pair, assertionClaims(client.id, issuerOf(realm.name)))));
        expect((await (await send(first))()).statusCode).toBe(200);
        expect((await (await send(first))()).statusCode).toBe(200);
        const fetches = jwksServer.state.fetches;
        jwksServer.state.keys = [second.jwk];
        // within the interval an unknown kid fetches nothing
        await expectRefused(send(second));
        expect(jwksServer.state.fetches).toBe(fetches);
        now += 60_000;
        expect((await (await send(second))()).statusCode).toBe(200);
        expect(jwksServer.state.fetches).toBe(fetches + 1);
        // the withdrawn key no longer verifies
        await expectRefused(send(first));
        // rotated back: saving the client empties its remembered keys on every replica
        jwksServer.state.keys = [first.jwk];
        await app.json({ method: 'POST', url: `/clients/${client.id}`, payload: { displayName: 'rotated' } }, 200);
        expect((await (await send(first))()).statusCode).toBe(200);
    });

    it('a jwksUri that does not answer authenticates nothing (the outbound guard\'s refusals: oauth2/client-keys.test.ts)', async () => {
        const client = await createClient({ tokenEndpointAuthMethod: 'private_key_jwt', jwksUri: 'http://127.0.0.1:9/unreachable' });
        await expectRefused(async () => token(assertionForm(await signAssertion(key, assertionClaims(client.id, issuerOf(realm.name))))), /jwks_uri/);
    });
});
