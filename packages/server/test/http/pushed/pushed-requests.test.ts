import type { LightMyRequestResponse } from 'fastify';
import { beforeAll, expect, it } from 'vitest';
import { useTestApp, type TestApp } from '../../app.js';
import { authorizeParams, browser, browserWorld, codeRow, createBrowserClient, hiddenFields, locationParams, type BrowserWorld } from '../../browser.js';
import { describeEachDialect } from '../../databases.js';
import { login } from '../../sessions.js';

/*
 * Pushed authorization requests (RFC 9126): the push at POST /par, the single-use reference at
 * /authorize (the browser pages and the API form), and the attacks of §7 — a replayed, expired or
 * another client's request_uri, a client of another realm —, wrong client credentials, and the
 * per-client and per-realm requirement.
 */
const SECRET = 'pushed-client-secret';
const PREFIX = 'urn:ietf:params:oauth:request_uri:';

interface PushedWorld extends BrowserWorld {
    /** a confidential first-party client of the realm, with SECRET */
    confidentialId: string;
}

async function pushedWorld(app: TestApp, client: Record<string, unknown> = {}): Promise<PushedWorld> {
    const world = await browserWorld(app, { firstParty: true });
    const confidentialId = await createBrowserClient(app, world.realmId, { redirectUri: world.redirectUri, secret: SECRET, firstParty: true, ...client });
    return { ...world, confidentialId };
}

function basic(id: string, secret = SECRET): string {
    return `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;
}

function push(app: TestApp, form: Record<string, string>, authorization?: string): Promise<LightMyRequestResponse> {
    return app.request({
        method: 'POST', url: '/par', as: null, payload: new URLSearchParams(form).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...(authorization ? { authorization } : {}) },
    });
}

/** Pushes the world's confidential client's request; answers the request_uri and the pushed parameters. */
async function pushed(app: TestApp, world: PushedWorld, extra: Record<string, string> = {}): Promise<{ requestUri: string; params: Record<string, string> }> {
    const { params } = authorizeParams({ ...world, clientId: world.confidentialId }, extra);
    const answer = await push(app, params, basic(world.confidentialId));
    expect(answer.statusCode, answer.body).toBe(201);
    return { requestUri: (answer.json() as { request_uri: string }).request_uri, params };
}

function expectErrorPage(answer: LightMyRequestResponse, error: string): void {
    expect(answer.statusCode, answer.body).toBe(400);
    expect(answer.headers.location).toBeUndefined();
    expect(answer.body).toContain(`<code>${error}</code>`);
}

describeEachDialect('pushed authorization requests (RFC 9126)', (dialect) => {
    const clock = { now: Date.now() };
    const app = useTestApp(dialect, {}, { authorizationClock: () => clock.now });
    let world: PushedWorld;
    beforeAll(async () => {
        world = await pushedWorld(app);
    });

    it('answers 201 with a single-use URN reference; the browser signs in and the pushed parameters alone count', async () => {
        const { params } = authorizeParams({ ...world, clientId: world.confidentialId });
        const answer = await push(app, params, basic(world.confidentialId));
        expect(answer.statusCode, answer.body).toBe(201);
        expect(answer.headers['cache-control']).toBe('no-store');
        const body = answer.json() as { request_uri: string; expires_in: number };
        expect(body.expires_in).toBe(60);
        expect(body.request_uri.startsWith(PREFIX)).toBe(true);
        expect(body.request_uri.length).toBeGreaterThan(PREFIX.length + 40);
        // only the reference's digest is stored
        const rows = await app.deps.db.selectFrom('auth_pushed_requests').selectAll().where('client_id', '=', world.confidentialId).execute();
        expect(JSON.stringify(rows)).not.toContain(body.request_uri.slice(PREFIX.length));

        const client = browser(app);
        // RFC 9126 §4: outer parameters besides client_id and request_uri are not the request
        const page = await client.authorize({ client_id: world.confidentialId, request_uri: body.request_uri, state: 'outer-state', redirect_uri: 'https://evil.example/cb' });
        expect(page.statusCode, page.body).toBe(200);
        // the forms carry the redeemed request sealed, not as fields a browser could change
        const fields = hiddenFields(page.body);
        expect(fields).toMatchObject({ client_id: world.confidentialId, sealed_request: expect.stringMatching(/^enc:v1:/) });
        expect(fields.state).toBeUndefined();
        expect(fields.request_uri).toBeUndefined();
        const done = await client.submit(page, { username: world.user.name, password: world.user.password });
        const { base, params: response } = locationParams(done);
        expect(base).toBe(world.redirectUri);
        expect(response.state).toBe(params.state);
        expect(await codeRow(app, response.code!)).toMatchObject({ client_id: world.confidentialId, code_challenge: params.code_challenge, nonce: params.nonce });
        // a form whose sealed request was altered, or given to another client, is refused
        const tampered = await client.submit(page, { sealed_request: `${fields.sealed_request!.slice(0, -4)}AAAA`, username: world.user.name, password: world.user.password });
        expectErrorPage(tampered, 'invalid_request');
        const otherClient = await client.submit(page, { client_id: world.clientId, username: world.user.name, password: world.user.password });
        expectErrorPage(otherClient, 'invalid_request');
    });

    it('refuses a replayed request_uri (RFC 9126 §4: single use)', async () => {
        const { requestUri } = await pushed(app, world);
        const client = browser(app);
        expect((await client.authorize({ client_id: world.confidentialId, request_uri: requestUri })).statusCode).toBe(200);
        expectErrorPage(await client.authorize({ client_id: world.confidentialId, request_uri: requestUri }), 'invalid_request_uri');
        expectErrorPage(await browser(app).authorize({ client_id: world.confidentialId, request_uri: requestUri }), 'invalid_request_uri');
    });

    it('refuses a request_uri once its 60 seconds have passed (moved clock)', async () => {
        const { requestUri } = await pushed(app, world);
        const { requestUri: lastSecond } = await pushed(app, world);
        clock.now += 59_000;
        expect((await browser(app).authorize({ client_id: world.confidentialId, request_uri: lastSecond })).statusCode).toBe(200);
        clock.now += 1_000;
        try {
            expectErrorPage(await browser(app).authorize({ client_id: world.confidentialId, request_uri: requestUri }), 'invalid_request_uri');
        } finally {
            clock.now = Date.now();
        }
    });

    it('refuses another client\'s request_uri (RFC 9126 §7.3) and leaves it to its owner; a client of another realm likewise', async () => {
        const { requestUri } = await pushed(app, world);
        expectErrorPage(await browser(app).authorize({ client_id: world.clientId, request_uri: requestUri }), 'invalid_request_uri');
        const otherRealm = await pushedWorld(app);
        expectErrorPage(await browser(app).authorize({ client_id: otherRealm.confidentialId, request_uri: requestUri }), 'invalid_request_uri');
        // the realm B client cannot push as realm A's client either
        expect((await push(app, authorizeParams({ ...world, clientId: world.confidentialId }).params, basic(otherRealm.confidentialId))).statusCode).toBe(400);
        expect((await browser(app).authorize({ client_id: world.confidentialId, request_uri: requestUri })).statusCode).toBe(200);
    });

    it('refuses a request_uri that is not a pushed reference with request_uri_not_supported, an unknown one with invalid_request_uri', async () => {
        expectErrorPage(await browser(app).authorize({ client_id: world.confidentialId, request_uri: 'https://app.example/request.jwt' }), 'request_uri_not_supported');
        expectErrorPage(await browser(app).authorize({ client_id: world.confidentialId, request_uri: `${PREFIX}unknown` }), 'invalid_request_uri');
    });

    it('authenticates the client at push time: wrong or missing credentials answer 401 invalid_client', async () => {
        const { params } = authorizeParams({ ...world, clientId: world.confidentialId });
        const wrong = await push(app, params, basic(world.confidentialId, 'wrong-secret'));
        expect(wrong.statusCode).toBe(401);
        expect(wrong.json()).toMatchObject({ error: 'invalid_client' });
        const posted = await push(app, { ...params, client_secret: 'wrong-secret' });
        expect(posted.statusCode).toBe(401);
        const missing = await push(app, { ...params, client_id: world.confidentialId });
        expect(missing.statusCode).toBe(401);
        expect(missing.json()).toMatchObject({ error: 'invalid_client' });
        const none = await push(app, {});
        expect(none.statusCode).toBe(401);
        // the body's credentials authenticate as well as Basic
        expect((await push(app, { ...params, client_secret: SECRET })).statusCode).toBe(201);
    });

    it('validates the pushed parameters as /authorize does (RFC 9126 §2.3) and refuses a request_uri in the push (§2.1)', async () => {
        const { params } = authorizeParams({ ...world, clientId: world.confidentialId });
        const cases: [Record<string, string | undefined>, string][] = [
            [{ request_uri: `${PREFIX}abc` }, 'invalid_request'],
            [{ redirect_uri: 'https://evil.example/cb' }, 'invalid_request'],
            [{ response_type: 'token' }, 'unsupported_response_type'],
            [{ code_challenge_method: 'plain' }, 'invalid_request'],
            [{ scope: 'openid no-such-scope' }, 'invalid_scope'],
            [{ prompt: 'none login' }, 'invalid_request'],
        ];
        for (const [change, error] of cases) {
            const sent = Object.fromEntries(Object.entries({ ...params, ...change }).filter((entry): entry is [string, string] => entry[1] !== undefined));
            const answer = await push(app, sent, basic(world.confidentialId));
            expect(answer.statusCode, JSON.stringify(change)).toBe(400);
            expect(answer.json(), JSON.stringify(change)).toMatchObject({ error });
        }
        // a repeated parameter and a malformed body are 400, never 500
        const repeated = await app.request({
            method: 'POST', url: '/par', as: basic(world.confidentialId), headers: { 'content-type': 'application/x-www-form-urlencoded' },
            payload: `${new URLSearchParams(params).toString()}&state=again`,
        });
        expect(repeated.statusCode).toBe(400);
        expect(repeated.json()).toMatchObject({ error: 'invalid_request' });
        const notJson = await app.request({ method: 'POST', url: '/par', as: basic(world.confidentialId), headers: { 'content-type': 'application/json' }, payload: '[1' });
        expect(notJson.statusCode).toBe(400);
        expect(await app.deps.db.selectFrom('auth_pushed_requests').select('id').where('client_id', '=', world.confidentialId).where('parameters', 'like', '%evil.example%').execute()).toEqual([]);
    });

    it('redeems a request_uri through the API form of POST /authorize', async () => {
        const { requestUri, params } = await pushed(app, world);
        const user = await login(app, world.realmId, world.user.name, world.user.password);
        const answer = await app.request({ method: 'POST', url: '/authorize', as: user.bearer, payload: { client_id: world.confidentialId, request_uri: requestUri, state: 'outer' } });
        expect(answer.statusCode, answer.body).toBe(200);
        expect(answer.json()).toMatchObject({ state: params.state });
        const again = await app.request({ method: 'POST', url: '/authorize', as: user.bearer, payload: { client_id: world.confidentialId, request_uri: requestUri } });
        expect(again.statusCode).toBe(400);
        expect(again.json()).toMatchObject({ error: 'invalid_request_uri' });
    });

    it('refuses /authorize without a pushed request for a client or realm that requires one (RFC 9126 §6)', async () => {
        const required = await pushedWorld(app, { requirePushedAuthorizationRequests: true });
        const plain = authorizeParams({ ...required, clientId: required.confidentialId }).params;
        const refused = locationParams(await browser(app).authorize(plain)).params;
        expect(refused).toMatchObject({ error: 'invalid_request', state: plain.state });
        const { requestUri } = await pushed(app, required);
        const page = await browser(app).authorize({ client_id: required.confidentialId, request_uri: requestUri });
        expect(page.statusCode, page.body).toBe(200);
        // the other client of that realm does not require it, until the realm does
        expect((await browser(app).authorize(authorizeParams(required).params)).statusCode).toBe(200);
        await app.json({ method: 'POST', url: `/realms/${required.realmId}`, payload: { requirePushedAuthorizationRequests: true } }, 200);
        expect(locationParams(await browser(app).authorize(authorizeParams(required).params)).params).toMatchObject({ error: 'invalid_request' });
        // a carried form of a plain request cannot pass as pushed
        const { params: forged } = authorizeParams(required);
        expect(locationParams(await browser(app).post('/authorize/sign-in', { ...forged, username: required.user.name, password: required.user.password })).params)
            .toMatchObject({ error: 'invalid_request' });
    });
});
