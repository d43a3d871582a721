import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { useTestApp } from '../../app.js';
import { browserWorld, type BrowserWorld } from '../../browser.js';
import { describeEachDialect } from '../../databases.js';
import { federatedSignIn as signInThroughPages, startOidcUpstream, type OidcUpstream } from '../../oidc-upstream.js';

/*
 * How Realmgate authenticates as a client at an upstream's token endpoint (RFC 6749 §2.3, OIDC Core
 * §9): without a choice, the method the upstream's discovery names (`token_endpoint_auth_methods_
 * supported`, RFC 8414 §2), client_secret_basic first (the one RFC 6749 §2.3.1 makes every server
 * support), then client_secret_post; a provider's `tokenEndpointAuthMethod` chooses, private_key_jwt
 * included (RFC 7523 §2.2), signed with the realm's signing key whose JWKS the upstream registered.
 * The upstreams are real oidc-provider instances on loopback, each client held to its method.
 */
describeEachDialect('identity providers: client authentication at the upstream token endpoint', (dialect) => {
    const app = useTestApp(dialect);
    let world: BrowserWorld;
    let upstream: OidcUpstream;
    /** an upstream whose discovery names client_secret_post only */
    let postOnly: OidcUpstream;
    const secret = 'second-client-secret-0123456789abcdefgh';

    beforeAll(async () => {
        world = await browserWorld(app);
        const callback = `${app.deps.config.publicUrl}/authorize/federated/callback`;
        // the realm's public keys, as its JWKS document serves them, registered at the upstream
        const jwks = await app.json<{ keys: Record<string, unknown>[] }>({ method: 'GET', url: `/realms/${world.realmId}/jwks`, as: null }, 200);
        expect(jwks.keys.length).toBeGreaterThan(0);
        upstream = await startOidcUpstream(callback, {
            clients: [
                { client_id: 'rg-post', client_secret: secret, token_endpoint_auth_method: 'client_secret_post' },
                { client_id: 'rg-jwt', token_endpoint_auth_method: 'private_key_jwt', jwks },
            ],
        });
        postOnly = await startOidcUpstream(callback, { clientAuthMethods: ['client_secret_post', 'none'], defaultClientAuthMethod: 'client_secret_post' });
    });
    afterAll(async () => {
        await upstream?.close();
        await postOnly?.close();
    });

    async function createProvider(at: OidcUpstream, extra: Record<string, unknown>): Promise<string> {
        return (await app.json<{ data: { id: string } }>({
            method: 'POST', url: '/identity-providers', payload: {
                realmId: world.realmId, name: `upstream-${randomBytes(4).toString('hex')}`, protocol: 'oidc', issuer: at.issuer, ...extra,
            },
        }, 201)).data.id;
    }

    const federatedSignIn = (providerId: string, login: string) => signInThroughPages(app, world, providerId, login);

    const linked = async (providerId: string) => (await app.deps.db.selectFrom('auth_user_identities').select('subject').where('provider_id', '=', providerId).execute()).map((row) => row.subject);

    it('without a choice, authenticates as the upstream\'s discovery prefers: client_secret_basic first', async () => {
        const providerId = await createProvider(upstream, { clientId: upstream.clientId, clientSecret: upstream.clientSecret });
        const answer = await federatedSignIn(providerId, 'basic-user');
        expect(answer.statusCode, answer.body).toBeLessThan(400);
        expect(upstream.tokenAuth.at(-1)).toEqual({ method: 'client_secret_basic', clientId: upstream.clientId });
        expect(await linked(providerId)).toEqual(['basic-user']);
    });

    it('without a choice, uses client_secret_post where the upstream\'s discovery names only that', async () => {
        const providerId = await createProvider(postOnly, { clientId: postOnly.clientId, clientSecret: postOnly.clientSecret });
        const answer = await federatedSignIn(providerId, 'post-user');
        expect(answer.statusCode, answer.body).toBeLessThan(400);
        expect(postOnly.tokenAuth.at(-1)).toEqual({ method: 'client_secret_post', clientId: postOnly.clientId });
        expect(await linked(providerId)).toEqual(['post-user']);
    });

    it('tokenEndpointAuthMethod client_secret_post is used where discovery prefers client_secret_basic', async () => {
        const providerId = await createProvider(upstream, { clientId: 'rg-post', clientSecret: secret, tokenEndpointAuthMethod: 'client_secret_post' });
        const read = await app.json<{ data: Record<string, unknown> }>({ method: 'GET', url: `/identity-providers/${providerId}` }, 200);
        expect(read.data.tokenEndpointAuthMethod).toBe('client_secret_post');
        const answer = await federatedSignIn(providerId, 'chosen-post-user');
        expect(answer.statusCode, answer.body).toBeLessThan(400);
        expect(upstream.tokenAuth.at(-1)).toEqual({ method: 'client_secret_post', clientId: 'rg-post' });
        expect(await linked(providerId)).toEqual(['chosen-post-user']);
    });

    it('tokenEndpointAuthMethod private_key_jwt signs the client assertion with the realm\'s signing key, which the upstream verifies against the realm\'s JWKS', async () => {
        const providerId = await createProvider(upstream, { clientId: 'rg-jwt', tokenEndpointAuthMethod: 'private_key_jwt' });
        const answer = await federatedSignIn(providerId, 'jwt-user');
        expect(answer.statusCode, answer.body).toBeLessThan(400);
        expect(upstream.tokenAuth.at(-1)).toEqual({ method: 'private_key_jwt', clientId: 'rg-jwt' });
        expect(await linked(providerId)).toEqual(['jwt-user']);
    });

    it('an OAuth 2.0 provider (configured endpoints, no discovery) posts its secret, or uses the method it chooses', async () => {
        const endpoints = { protocol: 'oauth2', authorizationUrl: `${upstream.issuer}/auth`, tokenUrl: `${upstream.issuer}/token`, userinfoUrl: `${upstream.issuer}/me`, scope: 'openid email' };
        const posting = await createProvider(upstream, { ...endpoints, issuer: undefined, clientId: 'rg-post', clientSecret: secret });
        expect((await federatedSignIn(posting, 'oauth-post-user')).statusCode).toBeLessThan(400);
        expect(upstream.tokenAuth.at(-1)).toEqual({ method: 'client_secret_post', clientId: 'rg-post' });
        const basic = await createProvider(upstream, { ...endpoints, issuer: undefined, clientId: upstream.clientId, clientSecret: upstream.clientSecret, tokenEndpointAuthMethod: 'client_secret_basic' });
        expect((await federatedSignIn(basic, 'oauth-basic-user')).statusCode).toBeLessThan(400);
        expect(upstream.tokenAuth.at(-1)).toEqual({ method: 'client_secret_basic', clientId: upstream.clientId });
        expect(await linked(basic)).toEqual(['oauth-basic-user']);
    });

    it('refuses an unknown method and a secret method without a secret with 400 and issues; null goes back to discovery', async () => {
        const unknown = await app.request({
            method: 'POST', url: '/identity-providers', payload: {
                realmId: world.realmId, name: 'bad-method', protocol: 'oidc', issuer: upstream.issuer, clientId: 'x', clientSecret: 'y', tokenEndpointAuthMethod: 'client_secret_jwt',
            },
        });
        expect(unknown.statusCode, unknown.body).toBe(400);
        expect(JSON.stringify(unknown.json().issues)).toContain('tokenEndpointAuthMethod');
        const secretless = await app.request({
            method: 'POST', url: '/identity-providers', payload: {
                realmId: world.realmId, name: 'no-secret', protocol: 'oidc', issuer: upstream.issuer, clientId: 'x', tokenEndpointAuthMethod: 'client_secret_basic',
            },
        });
        expect(secretless.statusCode, secretless.body).toBe(400);
        expect(secretless.json().issues).toEqual([expect.objectContaining({ path: ['clientSecret'] })]);
        const providerId = await createProvider(upstream, { clientId: 'rg-post', clientSecret: secret, tokenEndpointAuthMethod: 'client_secret_post' });
        await app.json({ method: 'POST', url: `/identity-providers/${providerId}`, payload: { tokenEndpointAuthMethod: null } }, 200);
        const read = await app.json<{ data: Record<string, unknown> }>({ method: 'GET', url: `/identity-providers/${providerId}` }, 200);
        expect(read.data.tokenEndpointAuthMethod).toBeNull();
    });
});
