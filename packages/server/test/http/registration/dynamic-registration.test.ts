import { exportJWK, generateKeyPair } from 'jose';
import { beforeAll, expect, it } from 'vitest';
import { sha256Hex } from '../../../src/secrets/digests.js';
import { toDbDate } from '../../../src/db/values.js';
import { useTestApp } from '../../app.js';
import { describeEachDialect } from '../../databases.js';
import { createRealm, uniqueName } from '../../grant-fixtures.js';

type Answer = Record<string, unknown> & { client_id: string; registration_access_token: string; registration_client_uri: string; client_secret?: string };

const REDIRECT = 'https://rp.example.com/cb';

describeEachDialect('dynamic client registration (RFC 7591) and its management (RFC 7592)', (dialect) => {
    const app = useTestApp(dialect);
    let realm: { id: string; name: string };
    let other: { id: string; name: string };
    beforeAll(async () => {
        const name = uniqueName('dcr');
        realm = { id: await createRealm(app, name), name };
        const otherName = uniqueName('dcr-other');
        other = { id: await createRealm(app, otherName), name: otherName };
        for (const id of [realm.id, other.id]) await app.json({ method: 'POST', url: `/realms/${id}`, payload: { dynamicRegistrationEnabled: true } }, 200);
    });

    const initialToken = async (realmId: string, payload: Record<string, unknown> = {}) =>
        (await app.json<{ data: { token: string; id: string } }>({ method: 'POST', url: '/initial-access-tokens', payload: { realmId, ...payload } }, 201)).data;
    const register = (realmName: string, token: string | null, metadata: Record<string, unknown>) => app.request({
        method: 'POST', url: `/realms/${realmName}/register-client`, payload: metadata, as: null,
        ...(token !== null ? { headers: { authorization: `Bearer ${token}` } } : {}),
    });
    const manage = (method: 'GET' | 'PUT' | 'DELETE', uri: string, token: string, payload?: Record<string, unknown>) => app.request({
        method, url: new URL(uri).pathname, as: null, headers: { authorization: `Bearer ${token}` }, ...(payload ? { payload } : {}),
    });
    const clientCount = async () => (await app.deps.db.selectFrom('auth_clients').select('id').where('realm_id', '=', realm.id).execute()).length;

    it('registers a confidential client through the clients\' service, answers its credentials, and the client obtains a token', async () => {
        const { token } = await initialToken(realm.id);
        const response = await register(realm.name, token, {
            redirect_uris: [REDIRECT], grant_types: ['authorization_code', 'refresh_token', 'client_credentials'], response_types: ['code'],
            client_name: 'Example RP', post_logout_redirect_uris: ['https://rp.example.com/bye'], id_token_signed_response_alg: 'ES256',
            software_id: 'ignored-member',
        });
        expect(response.statusCode, response.body).toBe(201);
        expect(response.headers['cache-control']).toBe('no-store');
        const answer = response.json() as Answer;
        expect(answer).toMatchObject({
            redirect_uris: [REDIRECT], grant_types: ['authorization_code', 'refresh_token', 'client_credentials'], response_types: ['code'],
            client_name: 'Example RP', token_endpoint_auth_method: 'client_secret_basic', client_secret_expires_at: 0,
            post_logout_redirect_uris: ['https://rp.example.com/bye'], id_token_signed_response_alg: 'ES256',
            require_pushed_authorization_requests: false, require_signed_request_object: false,
        });
        expect(answer).not.toHaveProperty('software_id');
        expect(typeof answer.client_secret).toBe('string');
        expect(answer.client_id_issued_at).toBeTypeOf('number');
        expect(answer.registration_client_uri).toBe(`${app.deps.config.publicUrl.replace(/\/+$/, '')}/realms/${realm.name}/register-client/${answer.client_id}`);

        const client = (await app.json<{ data: Record<string, unknown> }>({ method: 'GET', url: `/clients/${answer.client_id}` }, 200)).data;
        expect(client).toMatchObject({ realmId: realm.id, firstParty: false, displayName: 'Example RP', redirectUri: REDIRECT, secretEncrypted: true });
        const registration = await app.deps.db.selectFrom('auth_client_registrations').selectAll().where('client_id', '=', answer.client_id).executeTakeFirstOrThrow();
        expect(registration.token_digest).toBe(sha256Hex(answer.registration_access_token));

        const issued = await app.request({
            method: 'POST', url: '/token', as: null, headers: { authorization: app.basic(answer.client_id, answer.client_secret!) },
            payload: { grant_type: 'client_credentials' },
        });
        expect(issued.statusCode, issued.body).toBe(200);
    });

    it('registers a public client (none) without a secret and a private_key_jwt client from its public keys', async () => {
        const { token } = await initialToken(realm.id, { count: 2 });
        const pub = (await register(realm.name, token, { redirect_uris: ['http://127.0.0.1:8080/cb'], token_endpoint_auth_method: 'none' })).json() as Answer;
        expect(pub.token_endpoint_auth_method).toBe('none');
        expect(pub).not.toHaveProperty('client_secret');
        expect(pub).not.toHaveProperty('client_secret_expires_at');
        const pair = await generateKeyPair('ES256', { extractable: true });
        const jwk = { ...await exportJWK(pair.publicKey), kid: 'k1' };
        const response = await register(realm.name, token, { grant_types: ['client_credentials'], token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [jwk] } });
        expect(response.statusCode, response.body).toBe(201);
        const pkjwt = response.json() as Answer;
        expect(pkjwt).toMatchObject({ token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [jwk] }, response_types: [] });
        expect(pkjwt).not.toHaveProperty('client_secret');
    });

    it('answers 401 invalid_token for a missing, unknown, spent, expired or other realm\'s initial access token, writing nothing', async () => {
        const metadata = { redirect_uris: [REDIRECT] };
        const before = await clientCount();
        const cases: [string, string | null][] = [['missing', null], ['unknown', 'not-a-token-we-issued']];
        const spent = await initialToken(realm.id);
        expect((await register(realm.name, spent.token, metadata)).statusCode).toBe(201);
        cases.push(['spent', spent.token]);
        const expired = await initialToken(realm.id);
        // the clock moved past its expiry: the row says it expired a second ago
        await app.deps.db.updateTable('auth_initial_access_tokens').set({ expires_at: toDbDate(dialect, new Date(Date.now() - 1000)) }).where('id', '=', expired.id).execute();
        cases.push(['expired', expired.token]);
        const foreign = await initialToken(other.id);
        cases.push(['of another realm', foreign.token]);
        for (const [label, token] of cases) {
            const response = await register(realm.name, token, metadata);
            expect(response.statusCode, label).toBe(401);
            expect(response.json(), label).toMatchObject({ error: 'invalid_token', code: 'invalid_token' });
            expect(response.headers['www-authenticate'], label).toContain('Bearer');
        }
        expect(await clientCount()).toBe(before + 1);
        // the other realm's token was not spent by the refusal
        const row = await app.deps.db.selectFrom('auth_initial_access_tokens').select('uses_remaining').where('id', '=', foreign.id).executeTakeFirstOrThrow();
        expect(Number(row.uses_remaining)).toBe(1);
    });

    it('refuses bad metadata with the RFC 7591 §3.2.2 error, writes nothing and keeps the token\'s use', async () => {
        const { token, id } = await initialToken(realm.id);
        const pair = await generateKeyPair('ES256', { extractable: true });
        const privateJwk = { ...await exportJWK(pair.privateKey), kid: 'p' };
        const cases: [Record<string, unknown>, string, unknown[]][] = [
            [{ redirect_uris: ['javascript:alert(1)'] }, 'invalid_redirect_uri', ['redirect_uris', 0]],
            [{ redirect_uris: ['https://rp.example.com/cb#frag'] }, 'invalid_redirect_uri', ['redirect_uris', 0]],
            [{ redirect_uris: 'https://rp.example.com/cb' }, 'invalid_redirect_uri', ['redirect_uris']],
            [{ post_logout_redirect_uris: ['data:text/html,x'] }, 'invalid_redirect_uri', ['post_logout_redirect_uris', 0]],
            [{ redirect_uris: [REDIRECT], grant_types: ['authorization_code', 'implicit'] }, 'invalid_client_metadata', ['grant_types', 1]],
            [{ redirect_uris: [REDIRECT], response_types: ['token'] }, 'invalid_client_metadata', ['response_types']],
            [{ grant_types: ['client_credentials'], token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [privateJwk] } }, 'invalid_client_metadata', ['jwks', 'keys', 0]],
            [{ grant_types: ['client_credentials'], token_endpoint_auth_method: 'private_key_jwt' }, 'invalid_client_metadata', ['jwks']],
            [{ redirect_uris: [REDIRECT], token_endpoint_auth_method: 'tls_client_auth' }, 'invalid_client_metadata', ['token_endpoint_auth_method']],
            [{ redirect_uris: [REDIRECT], client_name: 42 }, 'invalid_client_metadata', ['client_name']],
            [{ backchannel_logout_uri: 'http://169.254.169.254/logout', redirect_uris: [REDIRECT] }, 'invalid_client_metadata', ['backchannel_logout_uri']],
        ];
        const before = await clientCount();
        for (const [metadata, error, path] of cases) {
            const response = await register(realm.name, token, metadata);
            expect(response.statusCode, JSON.stringify(metadata)).toBe(400);
            const body = response.json() as { error: string; issues: { path: unknown[] }[] };
            expect(body.error, JSON.stringify(metadata)).toBe(error);
            expect(body.issues.map((found) => found.path), JSON.stringify(metadata)).toContainEqual(path);
        }
        expect(await clientCount()).toBe(before);
        const row = await app.deps.db.selectFrom('auth_initial_access_tokens').select('uses_remaining').where('id', '=', id).executeTakeFirstOrThrow();
        expect(Number(row.uses_remaining)).toBe(1);
        expect((await register(realm.name, token, { body: 'not an object', redirect_uris: [REDIRECT] })).statusCode).toBe(201);
    });

    it('is off unless the realm enables it: 403 access_denied, no registration_endpoint in discovery; 404 for an unknown realm', async () => {
        const name = uniqueName('dcr-off');
        const closed = await createRealm(app, name);
        const { token } = await initialToken(closed);
        const refused = await register(name, token, { redirect_uris: [REDIRECT] });
        expect(refused.statusCode).toBe(403);
        expect(refused.json()).toMatchObject({ error: 'access_denied' });
        const discovery = await app.json<Record<string, unknown>>({ method: 'GET', url: `/realms/${name}/.well-known/openid-configuration`, as: null }, 200);
        expect(discovery).not.toHaveProperty('registration_endpoint');
        const open = await app.json<Record<string, unknown>>({ method: 'GET', url: `/realms/${realm.name}/.well-known/openid-configuration`, as: null }, 200);
        expect(open.registration_endpoint).toBe(`${app.deps.config.publicUrl.replace(/\/+$/, '')}/realms/${realm.name}/register-client`);
        expect((await register('no-such-realm', token, {})).statusCode).toBe(404);
        // the token was not spent by the refusal
        const row = await app.deps.db.selectFrom('auth_initial_access_tokens').select('uses_remaining').where('realm_id', '=', closed).executeTakeFirstOrThrow();
        expect(Number(row.uses_remaining)).toBe(1);
    });

    it('manages a registration with its registration access token: read, replace (token rotated), delete', async () => {
        const { token } = await initialToken(realm.id);
        const created = (await register(realm.name, token, { redirect_uris: [REDIRECT], client_name: 'Before' })).json() as Answer;
        const read = await manage('GET', created.registration_client_uri, created.registration_access_token);
        expect(read.statusCode, read.body).toBe(200);
        expect(read.json()).toMatchObject({ client_id: created.client_id, client_secret: created.client_secret, client_name: 'Before', redirect_uris: [REDIRECT] });
        expect(read.json()).not.toHaveProperty('registration_access_token');

        const replaced = await manage('PUT', created.registration_client_uri, created.registration_access_token, {
            client_id: created.client_id, client_secret: created.client_secret, redirect_uris: ['https://rp.example.com/other'], client_name: 'After',
        });
        expect(replaced.statusCode, replaced.body).toBe(200);
        const after = replaced.json() as Answer;
        expect(after).toMatchObject({ client_id: created.client_id, client_secret: created.client_secret, client_name: 'After', redirect_uris: ['https://rp.example.com/other'] });
        expect(after.registration_access_token).not.toBe(created.registration_access_token);
        expect((await manage('GET', created.registration_client_uri, created.registration_access_token)).statusCode).toBe(401);
        expect((await manage('GET', created.registration_client_uri, after.registration_access_token)).statusCode).toBe(200);

        // bad metadata on replace: 400 with the RFC error, nothing changed, the token not rotated
        const bad = await manage('PUT', created.registration_client_uri, after.registration_access_token, { client_id: created.client_id, redirect_uris: ['javascript:x'] });
        expect(bad.statusCode).toBe(400);
        expect(bad.json()).toMatchObject({ error: 'invalid_redirect_uri' });
        const wrongSecret = await manage('PUT', created.registration_client_uri, after.registration_access_token, { client_id: created.client_id, client_secret: 'guess', redirect_uris: [REDIRECT] });
        expect(wrongSecret.statusCode).toBe(400);
        expect((await manage('GET', created.registration_client_uri, after.registration_access_token)).json()).toMatchObject({ client_name: 'After' });

        const deleted = await manage('DELETE', created.registration_client_uri, after.registration_access_token);
        expect(deleted.statusCode).toBe(204);
        expect(await app.deps.db.selectFrom('auth_clients').select('id').where('id', '=', created.client_id).executeTakeFirst()).toBeUndefined();
        expect(await app.deps.db.selectFrom('auth_client_registrations').select('client_id').where('client_id', '=', created.client_id).executeTakeFirst()).toBeUndefined();
    });

    it('never lets a registration access token reach another client, another realm, or an administered client', async () => {
        const { token } = await initialToken(realm.id, { count: 2 });
        const first = (await register(realm.name, token, { redirect_uris: [REDIRECT] })).json() as Answer;
        const second = (await register(realm.name, token, { redirect_uris: [REDIRECT] })).json() as Answer;
        const foreignToken = await initialToken(other.id);
        const foreign = (await register(other.name, foreignToken.token, { redirect_uris: [REDIRECT] })).json() as Answer;
        const admin = (await app.json<{ data: { id: string } }>({ method: 'POST', url: '/clients', payload: { realmId: realm.id, name: uniqueName('admin-made') } }, 201)).data;
        const base = new URL(first.registration_client_uri).pathname.replace(/[^/]+$/, '');
        const attempts: [string, string][] = [
            [`${base}${second.client_id}`, first.registration_access_token],
            [`${base}${admin.id}`, first.registration_access_token],
            [`${base}${foreign.client_id}`, first.registration_access_token],
            [`/realms/${other.name}/register-client/${first.client_id}`, first.registration_access_token],
            [`/realms/${realm.name}/register-client/${first.client_id}`, foreign.registration_access_token],
            [`${base}${first.client_id}`, 'forged-token'],
            [`${base}not-a-uuid`, first.registration_access_token],
        ];
        for (const [path, bearer] of attempts) {
            for (const method of ['GET', 'PUT', 'DELETE'] as const) {
                const response = await app.request({
                    method, url: path, as: null, headers: { authorization: `Bearer ${bearer}` },
                    ...(method === 'PUT' ? { payload: { client_id: path.split('/').pop(), redirect_uris: [REDIRECT] } } : {}),
                });
                expect(response.statusCode, `${method} ${path}`).toBe(401);
                expect(response.json(), `${method} ${path}`).toMatchObject({ error: 'invalid_token' });
            }
        }
        for (const id of [first.client_id, second.client_id, foreign.client_id, admin.id]) {
            expect(await app.deps.db.selectFrom('auth_clients').select('id').where('id', '=', id).executeTakeFirst(), id).toBeDefined();
        }
        // nor is an initial access token a registration access token
        expect((await manage('GET', first.registration_client_uri, token)).statusCode).toBe(401);
    });
});
