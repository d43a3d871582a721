import { afterAll, beforeAll, expect, it } from 'vitest';
import { useTestApp } from '../../app.js';
import { authorizeParams, browser, browserWorld, hiddenFields, type BrowserWorld } from '../../browser.js';
import { describeEachDialect } from '../../databases.js';
import { startOidcUpstream, upstreamBrowser, type OidcUpstream } from '../../oidc-upstream.js';

/*
 * The relying party of an upstream OpenID provider without a browser: every request Realmgate makes
 * upstream — discovery, the code redemption with the client secret, the JWKS, userinfo — goes
 * through the outbound fetch (outbound/guarded-fetch.ts), here allowed to loopback by the test
 * harness. The browser's side at the upstream (oidc-provider's development pages) is plain fetch.
 */

describeEachDialect('identity providers: OpenID Connect round trip through the outbound fetch', (dialect) => {
    const app = useTestApp(dialect);
    let upstream: OidcUpstream;
    let world: BrowserWorld;
    let providerId: string;

    beforeAll(async () => {
        upstream = await startOidcUpstream(`${app.deps.config.publicUrl}/authorize/federated/callback`);
        world = await browserWorld(app, { firstParty: true });
        providerId = (await app.json<{ data: { id: string } }>({
            method: 'POST', url: '/identity-providers', payload: {
                name: 'upstream', realmId: world.realmId, protocol: 'oidc', issuer: upstream.issuer, clientId: upstream.clientId, clientSecret: upstream.clientSecret,
                scope: 'openid profile email',
            },
        }, 201)).data.id;
    });
    afterAll(async () => upstream?.close());

    it('signs a user in: discovery, code redemption, ID token against the JWKS, userinfo, then the authorization response', async () => {
        const agent = browser(app);
        const page = await agent.authorize(authorizeParams(world).params);
        expect(page.statusCode, page.body).toBe(200);
        const started = await agent.post('/authorize/federated', { ...hiddenFields(page.body), provider_id: providerId });
        expect(started.statusCode, started.body).toBe(303);
        const send = upstreamBrowser();
        let location = String(started.headers.location);
        expect(location.startsWith(`${upstream.issuer}/`)).toBe(true);
        // the upstream's login, then its consent, each a page posted back to itself
        for (let step = 0; step < 10 && location.startsWith(upstream.issuer); step += 1) {
            const answer = await send(location);
            if (answer.status === 200) {
                const body = await answer.text();
                const prompt = /name="prompt" value="(\w+)"/.exec(body)?.[1];
                const posted = await send(location, prompt === 'login' ? { prompt, login: 'grace', password: 'any' } : { prompt: prompt ?? 'consent' });
                location = new URL(posted.headers.get('location')!, location).href;
            } else {
                location = new URL(answer.headers.get('location')!, location).href;
            }
        }
        const callback = new URL(location);
        expect(callback.pathname).toBe('/authorize/federated/callback');
        const back = await agent.get(`${callback.pathname}${callback.search}`);
        expect(back.statusCode, back.body).toBe(303);
        expect(String(back.headers.location)).toMatch(new RegExp(`^${world.redirectUri}\\?code=`));
        const linked = await app.deps.db.selectFrom('auth_user_identities').selectAll().where('provider_id', '=', providerId).where('subject', '=', 'grace').execute();
        expect(linked).toHaveLength(1);
    });
});
