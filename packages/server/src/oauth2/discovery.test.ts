import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from 'jose';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test/app.js';
import { describeEachDialect } from '../../test/databases.js';
import { freePort } from '../../test/network.js';

describeEachDialect('discovery: GET /realms/:realm/.well-known/openid-configuration', (dialect) => {
    let app: TestApp;
    let publicUrl: string;
    let realm: { id: string; name: string };
    let client: { id: string };
    beforeAll(async () => {
        const port = await freePort();
        publicUrl = `http://127.0.0.1:${port}`;
        app = await startTestApp(dialect, { publicUrl });
        await app.app.listen({ port, host: '127.0.0.1' });
        realm = (await app.json<{ data: { id: string; name: string } }>({ method: 'POST', url: '/realms', payload: { name: 'discovered' } }, 201)).data;
        await app.json({ method: 'POST', url: '/scopes', payload: { name: 'reports', realmId: realm.id } }, 201);
        client = (await app.json<{ data: { id: string } }>({ method: 'POST', url: '/clients', payload: { name: 'worker', secret: 'worker-secret', realmId: realm.id } }, 201)).data;
    });
    afterAll(async () => app?.dispose());

    it('advertises only what is implemented, by realm name or id, without authentication', async () => {
        const response = await app.request({ method: 'GET', url: `/realms/${realm.name}/.well-known/openid-configuration`, as: null });
        expect(response.statusCode, response.body).toBe(200);
        expect(response.headers['cache-control']).toBe('public, max-age=60');
        const document = response.json() as Record<string, unknown>;
        expect(document).toEqual({
            issuer: `${publicUrl}/realms/discovered`,
            authorization_endpoint: `${publicUrl}/authorize`,
            token_endpoint: `${publicUrl}/token`,
            userinfo_endpoint: `${publicUrl}/userinfo`,
            end_session_endpoint: `${publicUrl}/logout`,
            device_authorization_endpoint: `${publicUrl}/device_authorization`,
            jwks_uri: `${publicUrl}/realms/discovered/jwks`,
            revocation_endpoint: `${publicUrl}/token/revoke`,
            grant_types_supported: ['password', 'client_credentials', 'refresh_token', 'authorization_code', 'urn:ietf:params:oauth:grant-type:device_code',
                'urn:realmgate:params:oauth:grant-type:mfa-otp', 'urn:ietf:params:oauth:grant-type:token-exchange'],
            // RFC 8414 §2: the JWT methods (RFC 7523 §2.2) with their algorithms, never `none` nor an HMAC for private_key_jwt
            token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'client_secret_jwt', 'private_key_jwt', 'none'],
            token_endpoint_auth_signing_alg_values_supported: ['RS256', 'PS256', 'ES256', 'EdDSA', 'HS256', 'HS384', 'HS512'],
            revocation_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'client_secret_jwt', 'private_key_jwt'],
            revocation_endpoint_auth_signing_alg_values_supported: ['RS256', 'PS256', 'ES256', 'EdDSA', 'HS256', 'HS384', 'HS512'],
            introspection_endpoint: `${publicUrl}/token/introspect`,
            introspection_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'client_secret_jwt', 'private_key_jwt'],
            introspection_endpoint_auth_signing_alg_values_supported: ['RS256', 'PS256', 'ES256', 'EdDSA', 'HS256', 'HS384', 'HS512'],
            response_types_supported: ['code'],
            response_modes_supported: ['query', 'form_post'],
            code_challenge_methods_supported: ['S256'],
            subject_types_supported: ['public'],
            id_token_signing_alg_values_supported: ['RS256', 'ES256'],
            scopes_supported: expect.arrayContaining(['global', 'openid', 'profile', 'email', 'offline_access', 'roles', 'identity', 'reports']),
            claims_supported: [
                'iss', 'sub', 'sub_kind', 'kind', 'realm_id', 'realm_name', 'client_id', 'scope', 'session_id', 'jti', 'iat', 'exp',
                'aud', 'azp', 'sid', 'auth_time', 'nonce', 'at_hash', 'acr',
                'preferred_username', 'name', 'nickname', 'given_name', 'family_name', 'updated_at', 'email', 'email_verified',
            ],
            // the ID token's `acr` when acr_values is sent (OIDC Core §2): password, password and a second factor
            acr_values_supported: ['urn:realmgate:acr:pwd', 'urn:realmgate:acr:mfa'],
            // OIDC Discovery §3: the languages of the sign-in pages (ui_locales)
            ui_locales_supported: ['en', 'de'],
            backchannel_logout_supported: true,
            backchannel_logout_session_supported: true,
            authorization_response_iss_parameter_supported: true,
            // RFC 9126 §5: the pushed authorization request endpoint, and whether the realm requires it
            pushed_authorization_request_endpoint: `${publicUrl}/par`,
            require_pushed_authorization_requests: false,
            // OIDC Discovery §3: signed request objects by value (RFC 9101); a request_uri only as a PAR reference
            request_parameter_supported: true,
            request_object_signing_alg_values_supported: ['RS256', 'PS256', 'ES256', 'EdDSA'],
            request_uri_parameter_supported: false,
            dpop_signing_alg_values_supported: ['ES256', 'PS256', 'RS256', 'EdDSA', 'Ed25519'],
            // the realm's admin-console client, created with the realm (storage/console-clients.ts)
            realmgate_console_client_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
            // API.md §8 passkeysEnabled, on by default
            realmgate_passkeys_enabled: true,
        });
        // nothing advertised that does not exist: no implicit flow, no registration, no device endpoint
        expect(document.registration_endpoint).toBeUndefined();
        const byId = await app.request({ method: 'GET', url: `/realms/${realm.id.toUpperCase()}/.well-known/openid-configuration`, as: null });
        expect(byId.json()).toEqual(document);
    });

    it('states the realm\'s pushed-request requirement (RFC 9126 §5): the realm switch or its FAPI 2.0 profile', async () => {
        const required = (await app.json<{ data: { id: string } }>({ method: 'POST', url: '/realms', payload: { name: 'pushed-only', requirePushedAuthorizationRequests: true } }, 201)).data;
        const fapi = (await app.json<{ data: { id: string } }>({ method: 'POST', url: '/realms', payload: { name: 'fapi-realm', securityProfile: 'fapi2' } }, 201)).data;
        for (const id of [required.id, fapi.id]) {
            const document = await app.json<Record<string, unknown>>({ method: 'GET', url: `/realms/${id}/.well-known/openid-configuration`, as: null }, 200);
            expect(document).toMatchObject({ require_pushed_authorization_requests: true, pushed_authorization_request_endpoint: `${publicUrl}/par` });
        }
    });

    it('serves the master realm at the root; realm scopes stay in their realm; an unknown realm is 404', async () => {
        const root = await app.request({ method: 'GET', url: '/.well-known/openid-configuration', as: null });
        expect(root.statusCode, root.body).toBe(200);
        expect(root.headers['cache-control']).toBe('public, max-age=60');
        const master = root.json() as { issuer: string; jwks_uri: string; scopes_supported: string[] };
        expect(master.issuer).toBe(`${publicUrl}/realms/master`);
        expect(master.jwks_uri).toBe(`${publicUrl}/realms/master/jwks`);
        expect(master.scopes_supported).toContain('global');
        expect(master.scopes_supported).not.toContain('reports');
        const byName = await app.request({ method: 'GET', url: '/realms/master/.well-known/openid-configuration', as: null });
        expect(byName.json()).toEqual(master);
        for (const name of ['no-such-realm', '00000000-0000-4000-8000-000000000000']) {
            const missing = await app.request({ method: 'GET', url: `/realms/${name}/.well-known/openid-configuration`, as: null });
            expect(missing.statusCode).toBe(404);
            expect(missing.json()).toMatchObject({ code: 'entity_not_found' });
        }
    });

    it('lets a client discover the realm over HTTP, obtain a token and verify it against the advertised JWKS and issuer', async () => {
        const discovered = await fetch(`${publicUrl}/realms/${realm.name}/.well-known/openid-configuration`);
        expect(discovered.status).toBe(200);
        const metadata = await discovered.json() as { issuer: string; token_endpoint: string; jwks_uri: string };
        const issued = await fetch(metadata.token_endpoint, {
            method: 'POST',
            headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: app.basic(client.id, 'worker-secret') },
            body: new URLSearchParams({ grant_type: 'client_credentials', realm_name: realm.name }),
        });
        expect(issued.status).toBe(200);
        const { access_token: accessToken } = await issued.json() as { access_token: string };
        const jwks = await (await fetch(metadata.jwks_uri)).json() as JSONWebKeySet;
        // what jose's createRemoteJWKSet does, over the fetched set: iss must be the discovered issuer
        const { payload } = await jwtVerify(accessToken, createLocalJWKSet(jwks), { issuer: metadata.issuer });
        expect(payload).toMatchObject({ iss: metadata.issuer, sub: client.id, client_id: client.id, realm_id: realm.id });
    });
});
