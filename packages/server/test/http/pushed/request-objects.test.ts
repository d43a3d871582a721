import type { LightMyRequestResponse } from 'fastify';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import { beforeAll, expect, it } from 'vitest';
import { useTestApp, type TestApp } from '../../app.js';
import { authorizeParams, browser, browserWorld, codeRow, createBrowserClient, hiddenFields, locationParams, type BrowserWorld } from '../../browser.js';
import { describeEachDialect } from '../../databases.js';

/*
 * Request objects by value (RFC 9101): `request` at /authorize and in a pushed request, verified
 * against the client's registered keys; `alg: none`, HS* and a key not the client's refused; `iss`,
 * `aud`, `exp` and the inner client_id checked; only the object's parameters count; the client's
 * requireSignedRequestObject.
 */
const SECRET = 'signing-client-secret';

interface SigningWorld extends BrowserWorld {
    signerId: string;
    privateKey: CryptoKey;
    issuer: string;
}

async function keyPair(): Promise<{ privateKey: CryptoKey; jwk: JWK }> {
    const { privateKey, publicKey } = await generateKeyPair('ES256');
    return { privateKey, jwk: { ...await exportJWK(publicKey), kid: `k-${Math.random().toString(36).slice(2)}`, alg: 'ES256', use: 'sig' } };
}

async function signingWorld(app: TestApp, client: Record<string, unknown> = {}): Promise<SigningWorld> {
    const world = await browserWorld(app, { firstParty: true });
    const { privateKey, jwk } = await keyPair();
    const signerId = await createBrowserClient(app, world.realmId, { redirectUri: world.redirectUri, secret: SECRET, firstParty: true, jwks: { keys: [jwk] }, ...client });
    return { ...world, signerId, privateKey, issuer: `${app.deps.config.publicUrl}/realms/${world.realmName}` };
}

function sign(claims: Record<string, unknown>, key: CryptoKey, header: Record<string, unknown> = {}): Promise<string> {
    return new SignJWT(claims).setProtectedHeader({ alg: 'ES256', typ: 'oauth-authz-req+jwt', ...header }).sign(key);
}

const segment = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

function expectErrorPage(answer: LightMyRequestResponse, error: string): void {
    expect(answer.statusCode, answer.body).toBe(400);
    expect(answer.headers.location).toBeUndefined();
    expect(answer.body).toContain(`<code>${error}</code>`);
}

describeEachDialect('request objects (RFC 9101)', (dialect) => {
    const clock = { now: Date.now() };
    const app = useTestApp(dialect, {}, { authorizationClock: () => clock.now });
    let world: SigningWorld;
    beforeAll(async () => {
        world = await signingWorld(app);
    });

    const inner = (extra: Record<string, unknown> = {}) => {
        const { params } = authorizeParams({ ...world, clientId: world.signerId });
        return { params, claims: { ...params, iss: world.signerId, aud: world.issuer, exp: Math.floor(clock.now / 1000) + 60, ...extra } };
    };

    it('takes the signed object\'s parameters only: the outer ones besides client_id are ignored (RFC 9101 §5, §6.3)', async () => {
        const { params, claims } = inner({ max_age: 600 });
        const request = await sign(claims, world.privateKey);
        const client = browser(app);
        const page = await client.authorize({ client_id: world.signerId, request, state: 'outer-state', code_challenge: 'x'.repeat(43), redirect_uri: 'https://evil.example/cb' });
        expect(page.statusCode, page.body).toBe(200);
        expect(hiddenFields(page.body).state).toBeUndefined();
        const { base, params: response } = locationParams(await client.submit(page, { username: world.user.name, password: world.user.password }));
        expect(base).toBe(world.redirectUri);
        expect(response.state).toBe(params.state);
        expect(await codeRow(app, response.code!)).toMatchObject({ code_challenge: params.code_challenge, nonce: params.nonce });
    });

    it('refuses an unsigned object, an HMAC, a key not the client\'s, and wrong iss, aud, exp or client_id with invalid_request_object', async () => {
        const { claims } = inner();
        const other = await keyPair();
        const hmac = await new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode(SECRET.padEnd(32, '!')));
        const cases: [string, string][] = [
            ['alg none', `${segment({ alg: 'none' })}.${segment(claims)}.`],
            ['HS256', hmac],
            ['another key', await sign(claims, other.privateKey, { kid: other.jwk.kid })],
            ['iss', await sign({ ...claims, iss: world.clientId }, world.privateKey)],
            ['aud', await sign({ ...claims, aud: `${app.deps.config.publicUrl}/realms/master` }, world.privateKey)],
            ['expired', await sign({ ...claims, exp: Math.floor(clock.now / 1000) - 1 }, world.privateKey)],
            ['inner client_id', await sign({ ...claims, client_id: world.clientId }, world.privateKey)],
            ['nested request_uri', await sign({ ...claims, request_uri: 'urn:ietf:params:oauth:request_uri:abc' }, world.privateKey)],
            ['not a JWT', 'not-a-jwt'],
        ];
        for (const [name, request] of cases) {
            const answer = await browser(app).authorize({ client_id: world.signerId, request });
            expect(answer.statusCode, name).toBe(400);
            expect(answer.body, name).toContain('<code>invalid_request_object</code>');
        }
    });

    it('checks exp against the clock: an object past its exp is refused (moved clock)', async () => {
        const { claims } = inner();
        const request = await sign(claims, world.privateKey);
        clock.now += 120_000;
        try {
            expectErrorPage(await browser(app).authorize({ client_id: world.signerId, request }), 'invalid_request_object');
        } finally {
            clock.now = Date.now();
        }
    });

    it('refuses a realm B client\'s object for a realm A client, and a realm B client naming realm A\'s issuer', async () => {
        const otherRealm = await signingWorld(app);
        const { claims } = inner();
        // signed by realm B's client for realm A's client: not A's key
        expectErrorPage(await browser(app).authorize({ client_id: world.signerId, request: await sign(claims, otherRealm.privateKey) }), 'invalid_request_object');
        // realm B's client with its own key but realm A's issuer as audience
        const forB = { ...claims, client_id: otherRealm.signerId, iss: otherRealm.signerId };
        expectErrorPage(await browser(app).authorize({ client_id: otherRealm.signerId, request: await sign(forB, otherRealm.privateKey) }), 'invalid_request_object');
    });

    it('accepts a signed object in a pushed request, and refuses an unsigned one there (RFC 9126 §3)', async () => {
        const { params, claims } = inner();
        const basic = `Basic ${Buffer.from(`${world.signerId}:${SECRET}`).toString('base64')}`;
        const push = (form: Record<string, string>) => app.request({
            method: 'POST', url: '/par', as: basic, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams(form).toString(),
        });
        const pushed = await push({ request: await sign(claims, world.privateKey), state: 'outer' });
        expect(pushed.statusCode, pushed.body).toBe(201);
        const requestUri = (pushed.json() as { request_uri: string }).request_uri;
        const client = browser(app);
        const page = await client.authorize({ client_id: world.signerId, request_uri: requestUri });
        expect(page.statusCode, page.body).toBe(200);
        expect(locationParams(await client.submit(page, { username: world.user.name, password: world.user.password })).params.state).toBe(params.state);
        const unsigned = await push({ request: `${segment({ alg: 'none' })}.${segment(claims)}.` });
        expect(unsigned.statusCode).toBe(400);
        expect(unsigned.json()).toMatchObject({ error: 'invalid_request_object' });
    });

    it('refuses a request without a signed object for a client that requires one (RFC 9101 §10.5), pushed or not', async () => {
        const strict = await signingWorld(app, { requireSignedRequestObject: true });
        const plain = authorizeParams({ ...strict, clientId: strict.signerId }).params;
        expect(locationParams(await browser(app).authorize(plain)).params).toMatchObject({ error: 'invalid_request', state: plain.state });
        const basic = `Basic ${Buffer.from(`${strict.signerId}:${SECRET}`).toString('base64')}`;
        const pushedPlain = await app.request({ method: 'POST', url: '/par', as: basic, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams(plain).toString() });
        expect(pushedPlain.statusCode).toBe(400);
        const claims = { ...plain, iss: strict.signerId, aud: strict.issuer };
        expect((await browser(app).authorize({ client_id: strict.signerId, request: await sign(claims, strict.privateKey) })).statusCode).toBe(200);
    });
});
