import { createRemoteJWKSet, jwtVerify } from 'jose';
import * as oidc from 'openid-client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../app.js';
import { describeEachDialect } from '../databases.js';
import { freePort } from '../network.js';

/**
 * End to end with a certified relying-party library over real HTTP: openid-client discovers a
 * realm from its issuer alone, obtains tokens, introspects, refreshes and revokes them, and
 * jose's remote JWKS verifies what was issued. No realm parameter is sent anywhere: a standard
 * client knows only what discovery told it.
 */
describeEachDialect('end to end: openid-client and jose against a realm', (dialect) => {
    let app: TestApp;
    let issuer: URL;
    let realm: { id: string; name: string };
    let service: { id: string };
    let web: { id: string };
    let alice: { id: string };
    beforeAll(async () => {
        const port = await freePort();
        const publicUrl = `http://127.0.0.1:${port}`;
        app = await startTestApp(dialect, { publicUrl });
        await app.app.listen({ port, host: '127.0.0.1' });
        realm = (await app.json<{ data: { id: string; name: string } }>({ method: 'POST', url: '/realms', payload: { name: 'e2e-rp' } }, 201)).data;
        issuer = new URL(`${publicUrl}/realms/${realm.name}`);
        const client = async (payload: Record<string, unknown>) =>
            (await app.json<{ data: { id: string } }>({ method: 'POST', url: '/clients', payload: { realmId: realm.id, ...payload } }, 201)).data;
        service = await client({ name: 'service', secret: 'service-secret' });
        web = await client({ name: 'web', secret: 'web-secret' });
        alice = (await app.json<{ data: { id: string } }>({
            method: 'POST', url: '/users', payload: { name: 'alice', password: 'alice-password', realmId: realm.id },
        }, 201)).data;
    });
    afterAll(async () => app?.dispose());

    const configFor = (clientId: string, secret: string) =>
        oidc.discovery(issuer, clientId, secret, oidc.ClientSecretBasic(), { execute: [oidc.allowInsecureRequests] });

    it('discovers, obtains a client_credentials token, verifies it remotely, introspects and revokes it', async () => {
        const config = await configFor(service.id, 'service-secret');
        const metadata = config.serverMetadata();
        expect(metadata.issuer).toBe(issuer.href);
        const tokens = await oidc.clientCredentialsGrant(config);
        expect(tokens.token_type.toLowerCase()).toBe('bearer');
        expect(tokens.expires_in).toBe(900);

        const jwks = createRemoteJWKSet(new URL(metadata.jwks_uri!));
        const { payload, protectedHeader } = await jwtVerify(tokens.access_token, jwks, { issuer: metadata.issuer });
        expect(protectedHeader.alg).toBe('ES256');
        expect(payload).toMatchObject({ sub: service.id, sub_kind: 'client', client_id: service.id, realm_id: realm.id, realm_name: realm.name });

        const active = await oidc.tokenIntrospection(config, tokens.access_token);
        expect(active).toMatchObject({ active: true, sub: service.id, sub_kind: 'client', realm_id: realm.id });
        expect(Array.isArray(active.permissions)).toBe(true);

        const me = await fetch(new URL('/clients/@me', issuer), { headers: { authorization: `Bearer ${tokens.access_token}` } });
        expect(me.status).toBe(200);

        await oidc.tokenRevocation(config, tokens.access_token);
        expect(await oidc.tokenIntrospection(config, tokens.access_token)).toMatchObject({ active: false, sub: service.id });
        const after = await fetch(new URL('/clients/@me', issuer), { headers: { authorization: `Bearer ${tokens.access_token}` } });
        expect(after.status).toBe(401);
    });

    it('obtains a user token through the password grant, refreshes it with rotation, and sees the replayed token refused', async () => {
        const config = await configFor(web.id, 'web-secret');
        const first = await oidc.genericGrantRequest(config, 'password', { username: 'alice', password: 'alice-password' });
        expect(first.refresh_token).toBeTypeOf('string');
        const jwks = createRemoteJWKSet(new URL(config.serverMetadata().jwks_uri!));
        const { payload } = await jwtVerify(first.access_token, jwks, { issuer: issuer.href });
        expect(payload).toMatchObject({ sub: alice.id, sub_kind: 'user', client_id: web.id });

        const second = await oidc.refreshTokenGrant(config, first.refresh_token!);
        expect(second.refresh_token).not.toBe(first.refresh_token);
        expect(await oidc.tokenIntrospection(config, second.access_token)).toMatchObject({ active: true, sub: alice.id, preferred_username: 'alice' });

        // spec "refresh-token replay reaction": the replay fails and ends the session
        await expect(oidc.refreshTokenGrant(config, first.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
        expect(await oidc.tokenIntrospection(config, second.access_token)).toMatchObject({ active: false, sub: alice.id });
    });

    it('issues an RS256 ID token for scope openid, keeps access tokens ES256, and refuses the ID token as a bearer', async () => {
        await app.deps.db.updateTable('auth_users').set({ email: 'alice@example.test', first_name: 'Alice' }).where('id', '=', alice.id).execute();
        const config = await configFor(web.id, 'web-secret');
        const metadata = config.serverMetadata();
        expect(metadata.id_token_signing_alg_values_supported).toEqual(['RS256', 'ES256']);
        const login = await oidc.genericGrantRequest(config, 'password', { username: 'alice', password: 'alice-password', scope: 'openid global identity email' });
        expect(login.id_token).toBeTypeOf('string');
        const jwks = createRemoteJWKSet(new URL(metadata.jwks_uri!));
        const { payload, protectedHeader } = await jwtVerify(login.id_token!, jwks, { issuer: issuer.href, audience: web.id });
        expect(protectedHeader.alg).toBe('RS256');
        expect(payload).toMatchObject({
            sub: alice.id, aud: web.id, azp: web.id, kind: 'id_token', realm_id: realm.id,
            preferred_username: 'alice', given_name: 'Alice', email: 'alice@example.test', email_verified: false,
        });
        expect(payload).not.toHaveProperty('family_name');
        expect(payload.auth_time).toBeTypeOf('number');
        expect((await jwtVerify(login.access_token, jwks)).protectedHeader.alg).toBe('ES256');
        // what openid-client itself read from the ID token
        expect(login.claims()).toMatchObject({ sub: alice.id, aud: web.id });

        const refreshed = await oidc.refreshTokenGrant(config, login.refresh_token!);
        const again = (await jwtVerify(refreshed.id_token!, jwks, { issuer: issuer.href, audience: web.id })).payload;
        expect(again.auth_time).toBe(payload.auth_time);
        expect((await jwtVerify(refreshed.access_token, jwks)).protectedHeader.alg).toBe('ES256');

        // spec: introspection of an id_token answers a bare inactive object; it is no bearer either
        expect(await oidc.tokenIntrospection(config, login.id_token!)).toEqual({ active: false });
        const asBearer = await fetch(new URL('/users/@me', issuer), { headers: { authorization: `Bearer ${login.id_token!}` } });
        expect(asBearer.status).toBe(401);

        // only the scopes granted release claims; without openid there is no ID token
        const bare = await oidc.genericGrantRequest(config, 'password', { username: 'alice', password: 'alice-password', scope: 'openid global' });
        const minimal = (await jwtVerify(bare.id_token!, jwks, { audience: web.id })).payload;
        expect(minimal).not.toHaveProperty('email');
        expect(minimal).not.toHaveProperty('preferred_username');
        const none = await oidc.genericGrantRequest(config, 'password', { username: 'alice', password: 'alice-password', scope: 'global' });
        expect(none.id_token).toBeUndefined();
    });

    it('refuses a wrong secret with 401 and a Basic challenge (RFC 6749 §5.2)', async () => {
        const config = await configFor(service.id, 'not-the-secret');
        const failure = await oidc.clientCredentialsGrant(config).then(() => null, (error: unknown) => error);
        expect(failure).toBeInstanceOf(oidc.WWWAuthenticateChallengeError);
        const challenge = failure as oidc.WWWAuthenticateChallengeError;
        expect(challenge.status).toBe(401);
        expect(challenge.cause[0]).toMatchObject({ scheme: 'basic' });
        expect(await challenge.response.json()).toMatchObject({ error: 'invalid_client' });
    });
});
