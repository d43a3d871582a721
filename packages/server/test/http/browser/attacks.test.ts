import type { LightMyRequestResponse } from 'fastify';
import { beforeAll, expect, it } from 'vitest';
import { useTestApp } from '../../app.js';
import { authorizeParams, browser, browserWorld, createBrowserClient, hiddenFields, locationParams, type BrowserWorld } from '../../browser.js';
import { describeEachDialect } from '../../databases.js';

/*
 * The attacks of RFC 9700 §4 that apply to the authorization endpoint: no
 * redirect to an unregistered or altered redirect URI, PKCE required of a public client and
 * `plain` refused, CSRF on the sign-in form, framing of the pages, realm isolation, the client's
 * access policy.
 */
describeEachDialect('browser sign-in: attacks of RFC 9700 §4', (dialect) => {
    const app = useTestApp(dialect);
    let world: BrowserWorld;
    beforeAll(async () => {
        world = await browserWorld(app, { firstParty: true });
    });

    const expectErrorPage = (answer: LightMyRequestResponse, status = 400) => {
        expect(answer.statusCode, answer.body).toBe(status);
        expect(answer.headers.location).toBeUndefined();
        expect(answer.headers['content-type']).toContain('text/html');
        expect(answer.body).toContain('Something went wrong');
    };

    it('shows an error page, never a redirect, for a missing, unregistered or altered redirect URI or an unknown client', async () => {
        const client = browser(app);
        const { params } = authorizeParams(world);
        for (const redirect of ['https://evil.example/callback', `${world.redirectUri}/more`, `${world.redirectUri}?x=1`, 'https://app.example/callback#f', 'not a uri', 'HTTPS://app.example/callback']) {
            expectErrorPage(await client.authorize({ ...params, redirect_uri: redirect }));
        }
        const { redirect_uri: _dropped, ...withoutRedirect } = params;
        expectErrorPage(await client.authorize(withoutRedirect));
        expectErrorPage(await client.authorize({ ...params, client_id: '00000000-0000-4000-8000-000000000000' }));
        expectErrorPage(await client.authorize({ ...params, client_id: 'not-a-uuid' }));
        // a repeated redirect_uri is not trusted either
        expectErrorPage(await client.get(`/authorize?${new URLSearchParams(params).toString()}&redirect_uri=https%3A%2F%2Fevil.example%2F`));
        // an inactive client
        const inactive = await createBrowserClient(app, world.realmId, { redirectUri: world.redirectUri, active: false });
        expectErrorPage(await client.authorize({ ...params, client_id: inactive }));
    });

    it('answers errors after the redirect URI is trusted at it, with state and iss', async () => {
        const client = browser(app);
        const cases: [Record<string, string | undefined>, string][] = [
            [{ code_challenge: undefined, code_challenge_method: undefined }, 'invalid_request'],
            [{ code_challenge_method: 'plain' }, 'invalid_request'],
            [{ code_challenge_method: undefined }, 'invalid_request'],
            [{ code_challenge: 'short' }, 'invalid_request'],
            [{ response_type: 'token' }, 'unsupported_response_type'],
            [{ response_type: undefined }, 'invalid_request'],
            [{ response_mode: 'fragment' }, 'invalid_request'],
            [{ prompt: 'none login' }, 'invalid_request'],
            [{ max_age: '-1' }, 'invalid_request'],
            [{ scope: 'openid no-such-scope' }, 'invalid_scope'],
        ];
        for (const [change, error] of cases) {
            const { params } = authorizeParams(world);
            const sent = Object.fromEntries(Object.entries({ ...params, ...change }).filter((entry): entry is [string, string] => entry[1] !== undefined));
            const { base, params: response } = locationParams(await client.authorize(sent));
            expect(base, JSON.stringify(change)).toBe(world.redirectUri);
            expect(response, JSON.stringify(change)).toMatchObject({ error, state: params.state, iss: `${app.deps.config.publicUrl}/realms/${world.realmName}` });
            expect(response.error_description).toBeTruthy();
        }
    });

    it('answers a request object or a request_uri it cannot use on the error page, never at the query\'s redirect URI (RFC 9101 §6.3, RFC 9126 §4)', async () => {
        const client = browser(app);
        const { params } = authorizeParams(world);
        const segment = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
        // an unsigned request object (RFC 9101 §2.1, `alg: none`) whose own state and nonce would be lost if ignored
        const requestObject = `${segment({ alg: 'none' })}.${segment({ ...params, state: 'inner-state', nonce: 'inner-nonce', iss: world.clientId, aud: `${app.deps.config.publicUrl}/realms/${world.realmName}` })}.`;
        // the outer parameters are not the request's (RFC 9101 §5, RFC 9126 §4), so its redirect URI is not trusted with the answer
        const cases: [Record<string, string | undefined>, string][] = [
            // RFC 9101 §6.3: an unsigned object proves nothing
            [{ request: requestObject }, 'invalid_request_object'],
            [{ request: requestObject, response_type: undefined, code_challenge: undefined, code_challenge_method: undefined }, 'invalid_request_object'],
            [{ request: `${requestObject}${'x'.repeat(5000)}` }, 'invalid_request_object'],
            // OIDC Core §6.2: a request_uri the server would have to fetch is never fetched
            [{ request_uri: 'https://app.example/request.jwt' }, 'request_uri_not_supported'],
            // RFC 9126 §7.3: a reference this server never handed out
            [{ request_uri: 'urn:ietf:params:oauth:request_uri:abc' }, 'invalid_request_uri'],
        ];
        for (const [change, error] of cases) {
            const sent = Object.fromEntries(Object.entries({ ...params, ...change }).filter((entry): entry is [string, string] => entry[1] !== undefined));
            const answer = await client.authorize(sent);
            expectErrorPage(answer);
            expect(answer.body, JSON.stringify(change).slice(0, 80)).toContain(`<code>${error}</code>`);
        }
        const { redirect_uri: _inner, ...withoutRedirect } = params;
        expectErrorPage(await client.authorize({ ...withoutRedirect, request: requestObject }));
        expectErrorPage(await client.authorize({ ...withoutRedirect, request_uri: 'https://app.example/request.jwt' }));
    });

    it('lets a confidential client omit PKCE, and refuses a client without the authorization_code grant', async () => {
        const confidential = await createBrowserClient(app, world.realmId, { redirectUri: world.redirectUri, secret: 'confidential-secret', firstParty: true });
        const client = browser(app);
        const { params } = authorizeParams(world, { client_id: confidential });
        const { code_challenge: _c, code_challenge_method: _m, ...withoutPkce } = params;
        const page = await client.authorize(withoutPkce);
        expect(page.statusCode).toBe(200);
        const answer = await client.submit(page, { username: world.user.name, password: world.user.password });
        expect(locationParams(answer).params.code).toBeDefined();
        const limited = await createBrowserClient(app, world.realmId, { redirectUri: world.redirectUri, grantTypes: ['client_credentials'] });
        expect(locationParams(await client.authorize({ ...params, client_id: limited })).params.error).toBe('unauthorized_client');
    });

    it('refuses a sign-in form without the CSRF token, with a wrong one, or from a foreign origin, and creates no session', async () => {
        const client = browser(app);
        const page = await client.authorize(authorizeParams(world).params);
        const fields: Record<string, string> = { ...hiddenFields(page.body), username: world.user.name, password: world.user.password };
        const before = await app.deps.db.selectFrom('auth_sessions').select('id').where('sub', '=', world.user.id).execute();
        const { csrf: _csrf, ...withoutToken } = fields;
        for (const [form, headers] of [
            [withoutToken, {}],
            [{ ...fields, csrf: 'B'.repeat(43) }, {}],
            [fields, { origin: 'https://evil.example' }],
            [fields, { origin: 'null' }],
        ] as const) {
            const answer = await client.post('/authorize/sign-in', form, headers);
            expectErrorPage(answer, 403);
            expect(answer.headers['set-cookie'] ?? '').not.toContain('realmgate_session');
        }
        // a form whose cookie is missing (another browser) is refused too
        const stranger = browser(app);
        expectErrorPage(await stranger.post('/authorize/sign-in', fields), 403);
        expect(await app.deps.db.selectFrom('auth_sessions').select('id').where('sub', '=', world.user.id).execute()).toEqual(before);
    });

    it('re-validates the authorization request carried by the sign-in form', async () => {
        const client = browser(app);
        const page = await client.authorize(authorizeParams(world).params);
        const answer = await client.submit(page, { username: world.user.name, password: world.user.password, redirect_uri: 'https://evil.example/callback' });
        expectErrorPage(answer);
    });

    it('sends the framing and content-security headers with every page', async () => {
        const client = browser(app);
        const thirdParty = await createBrowserClient(app, world.realmId, { redirectUri: world.redirectUri });
        const signInPage = await client.authorize(authorizeParams(world, { client_id: thirdParty }).params);
        const consentPage = await client.submit(signInPage, { username: world.user.name, password: world.user.password });
        expect(consentPage.body).toContain('name="decision"');
        const formPost = await client.authorize(authorizeParams(world, { response_mode: 'form_post' }).params);
        expect(formPost.body).toContain('id="form-post"');
        const confirmation = await client.get('/logout');
        const pages = [
            signInPage, consentPage, formPost, confirmation,
            await client.authorize({ client_id: 'unknown' }),
            await client.submit(confirmation),
        ];
        expect(pages[5]!.body).toContain('You are signed out.');
        for (const page of pages) {
            const policy = String(page.headers['content-security-policy']);
            expect(policy).toContain("default-src 'none'");
            expect(policy).toContain("frame-ancestors 'none'");
            expect(policy).toContain("script-src 'self'");
            expect(policy).toContain("style-src 'self'");
            expect(policy).toContain('form-action ');
            expect(page.headers['x-frame-options']).toBe('DENY');
            expect(page.headers['cache-control']).toBe('no-store');
        }
    });

    it('keeps realms apart: a user of realm B cannot sign in to a client of realm A, and a realm A session is not used for realm B', async () => {
        const other = await browserWorld(app, { firstParty: true });
        const client = browser(app);
        const page = await client.authorize(authorizeParams(world).params);
        const refused = await client.submit(page, { username: other.user.name, password: other.user.password });
        expect(refused.statusCode).toBe(401);
        expect(refused.body).toContain('The username or password is incorrect.');
        // signed in to realm A, a realm B client asks for a sign-in again (prompt=none: login_required)
        const signedIn = await client.submit(await client.authorize(authorizeParams(world).params), { username: world.user.name, password: world.user.password });
        expect(locationParams(signedIn).params.code).toBeDefined();
        const elsewhere = await client.authorize(authorizeParams(other).params);
        expect(elsewhere.statusCode).toBe(200);
        expect(elsewhere.body).toContain('Username or email');
        expect(locationParams(await client.authorize(authorizeParams(other, { prompt: 'none' }).params)).params.error).toBe('login_required');
    });

    it("applies the client's access policy at sign-in and on a live session: access_denied at the redirect URI", async () => {
        const denyAll = (await app.json<{ data: { id: string } }>({ method: 'POST', url: '/policies', payload: { type: 'identity', name: `deny-${world.realmName}`, realmId: world.realmId, invert: true } }, 201)).data.id;
        const policed = await createBrowserClient(app, world.realmId, { redirectUri: world.redirectUri, firstParty: true, accessPolicyId: denyAll });
        const client = browser(app);
        const { params } = authorizeParams(world, { client_id: policed });
        const answer = await client.submit(await client.authorize(params), { username: world.user.name, password: world.user.password });
        expect(locationParams(answer).params).toMatchObject({ error: 'access_denied', state: params.state });
        // no session was created for the denied sign-in
        expect(answer.headers['set-cookie'] ?? '').not.toContain('realmgate_session');
        // a session signed in through another client is refused for the policed one too
        await client.submit(await client.authorize(authorizeParams(world).params), { username: world.user.name, password: world.user.password });
        expect(locationParams(await client.authorize(authorizeParams(world, { client_id: policed }).params)).params.error).toBe('access_denied');
    });

    it('gives an unknown user and a wrong password the same answer', async () => {
        const client = browser(app);
        const page = await client.authorize(authorizeParams(world).params);
        const wrong = await client.submit(page, { username: world.user.name, password: 'wrong-password' });
        const unknown = await client.submit(page, { username: 'nobody-at-all', password: 'wrong-password' });
        expect(wrong.statusCode).toBe(401);
        expect(unknown.statusCode).toBe(401);
        const message = (body: string) => /<p class="error" role="alert">([^<]*)<\/p>/.exec(body)?.[1];
        expect(message(wrong.body)).toBe(message(unknown.body));
        // the form comes back with the username typed
        expect(wrong.body).toContain(`value="${world.user.name}"`);
    });
});
