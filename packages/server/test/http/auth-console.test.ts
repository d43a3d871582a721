import { afterAll, beforeAll, expect, it } from 'vitest';
import { startAppBeside, useTestApp, type TestApp } from '../app.js';
import { authorizeParams, browser, browserWorld, locationParams, type BrowserWorld } from '../browser.js';
import { describeEachDialect } from '../databases.js';

/*
 * `start console auth` (spec v1.0.0-beta.64 item 5: "one console service … on its own port"): the
 * auth console serves the sign-in, consent, logout and device pages and what they need (their
 * assets, the health probes) from the API's database, and nothing of the API itself. The suite runs
 * it beside an API app on one database, as a split deployment does behind one PUBLIC_URL.
 */
describeEachDialect('the auth console alone', (dialect) => {
    const api = useTestApp(dialect);
    let auth: TestApp;
    let world: BrowserWorld;
    beforeAll(async () => {
        auth = await startAppBeside(api, { surface: 'auth-console' });
        world = await browserWorld(api, { firstParty: true });
    });
    afterAll(async () => auth?.dispose());

    it('serves nothing of the API: resources, tokens, discovery, the document, the consoles answer 404', async () => {
        for (const [method, url] of [
            ['GET', '/users'], ['GET', '/realms'], ['POST', '/roles'], ['GET', `/realms/${world.realmName}/users`],
            ['POST', '/token'], ['POST', '/token/introspect'], ['GET', '/userinfo'], ['GET', `/realms/${world.realmName}/jwks`],
            ['POST', '/device_authorization'], ['POST', '/authorization/check'], ['GET', '/authorization'],
            ['GET', `/realms/${world.realmName}/.well-known/openid-configuration`], ['GET', '/openapi.json'],
            ['GET', '/console/admin/'], ['GET', '/'], ['GET', '/docs'],
        ] as const) {
            const answer = await auth.request({ method, url });
            expect(answer.statusCode, `${method} ${url}: ${answer.body}`).toBe(404);
        }
    });

    it('serves the auth pages, their assets and the health probes', async () => {
        const page = await browser(auth).authorize(authorizeParams(world).params);
        expect(page.statusCode, page.body).toBe(200);
        expect(page.body).toContain('<button type="submit">Sign in</button>');
        expect((await auth.request({ method: 'GET', url: '/device', as: null })).statusCode).toBe(200);
        expect((await auth.request({ method: 'GET', url: '/assets/auth.css', as: null })).statusCode).toBe(200);
        expect((await auth.request({ method: 'GET', url: '/health', as: null })).statusCode).toBe(200);
        expect((await auth.request({ method: 'GET', url: '/health/ready', as: null })).statusCode).toBe(200);
    });

    it('a sign-in at the auth console mints a code that the API redeems', async () => {
        const client = browser(auth);
        const { params, pair } = authorizeParams(world);
        const page = await client.authorize(params);
        const answer = await client.submit(page, { username: world.user.name, password: world.user.password });
        expect(answer.statusCode, answer.body).toBe(303);
        const { params: response } = locationParams(answer);
        const token = await api.request({
            method: 'POST', url: '/token', as: null, headers: { 'content-type': 'application/x-www-form-urlencoded' },
            payload: new URLSearchParams({
                grant_type: 'authorization_code', code: response.code!, redirect_uri: world.redirectUri, client_id: world.clientId, code_verifier: pair.verifier,
            }).toString(),
        });
        expect(token.statusCode, token.body).toBe(200);
        expect(token.json()).toHaveProperty('id_token');
    });
});
