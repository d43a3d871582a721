import { exportJWK, generateKeyPair } from 'jose';
import { beforeAll, expect, it } from 'vitest';
import { createRealm } from '../../../test/actors.js';
import { useTestApp } from '../../../test/app.js';
import { describeEachDialect } from '../../../test/databases.js';

type Client = Record<string, unknown> & { id: string };

describeEachDialect('clients: token endpoint authentication fields (API.md §8)', (dialect) => {
    const app = useTestApp(dialect);
    let realmId: string;
    let publicJwk: Record<string, unknown>;
    let privateJwk: Record<string, unknown>;
    beforeAll(async () => {
        realmId = await createRealm(app, 'client-auth-fields');
        const pair = await generateKeyPair('ES256', { extractable: true });
        publicJwk = { ...await exportJWK(pair.publicKey), kid: 'k1', alg: 'ES256' };
        privateJwk = { ...await exportJWK(pair.privateKey), kid: 'k1' };
    });
    const create = (payload: Record<string, unknown>) => app.request({ method: 'POST', url: '/clients', payload: { realmId, ...payload } });
    const issuesOf = (response: Awaited<ReturnType<typeof create>>) => (response.json() as { issues: { path: unknown[]; code: string }[] }).issues;

    it('creates a private_key_jwt client from its public keys, without a secret, and reads the fields back', async () => {
        const response = await create({ name: 'pkjwt', tokenEndpointAuthMethod: 'private_key_jwt', jwks: { keys: [publicJwk] }, requirePushedAuthorizationRequests: true, requireSignedRequestObject: true, audience: 'https://api.example.com' });
        expect(response.statusCode, response.body).toBe(201);
        const client = (response.json() as { data: Client }).data;
        expect(client).toMatchObject({ tokenEndpointAuthMethod: 'private_key_jwt', jwks: { keys: [publicJwk] }, jwksUri: null, requirePushedAuthorizationRequests: true, requireSignedRequestObject: true, audience: 'https://api.example.com' });
        const row = await app.deps.db.selectFrom('auth_clients').select(['secret', 'jwks']).where('id', '=', client.id).executeTakeFirstOrThrow();
        expect(row.secret).toBeNull();
        expect(JSON.parse(row.jwks!)).toEqual({ keys: [publicJwk] });
        // the defaults: derived method, no keys, nothing required
        const plain = (await app.json<{ data: Client }>({ method: 'POST', url: '/clients', payload: { realmId, name: 'plain' } }, 201)).data;
        expect(plain).toMatchObject({ tokenEndpointAuthMethod: null, jwks: null, jwksUri: null, requirePushedAuthorizationRequests: false, requireSignedRequestObject: false, audience: null });
    });

    it('refuses private keys, unknown key types, a set without keys, and both jwks and jwksUri, with the member named', async () => {
        const cases: [Record<string, unknown>, unknown[]][] = [
            [{ jwks: { keys: [privateJwk] } }, ['jwks', 'keys', 0]],
            [{ jwks: { keys: [{ kty: 'oct', k: 'c2VjcmV0' }] } }, ['jwks', 'keys', 0]],
            [{ jwks: { keys: [] } }, ['jwks', 'keys']],
            [{ jwks: [publicJwk] }, ['jwks']],
            [{ jwks: { keys: [publicJwk, publicJwk] } }, ['jwks', 'keys']],
            [{ jwks: { keys: [publicJwk] }, jwksUri: 'https://rp.example.com/jwks' }, ['jwksUri']],
            [{ jwksUri: 'https://rp.example.com/jwks#x' }, ['jwksUri']],
            [{ jwksUri: 'http://169.254.169.254/jwks' }, ['jwksUri']],
            [{ audience: 'not a uri' }, ['audience']],
            [{ tokenEndpointAuthMethod: 'private_key_jwt' }, ['jwks']],
            [{ tokenEndpointAuthMethod: 'client_secret_jwt' }, ['secret']],
            [{ tokenEndpointAuthMethod: 'client_secret_jwt', secret: 'a-secret-of-enough-length', secretHashed: true }, ['secretHashed']],
            [{ tokenEndpointAuthMethod: 'client_secret_basic' }, ['secret']],
            [{ tokenEndpointAuthMethod: 'none', secret: 'a-secret-of-enough-length' }, ['secret']],
        ];
        for (const [index, [body, path]] of cases.entries()) {
            const response = await create({ name: `bad-${index}`, ...body });
            expect(response.statusCode, JSON.stringify(body)).toBe(400);
            expect(issuesOf(response).map((entry) => entry.path), JSON.stringify(body)).toContainEqual(path);
        }
        expect((await create({ name: 'bad-method', tokenEndpointAuthMethod: 'tls_client_auth' })).statusCode).toBe(400);
        const written = await app.deps.db.selectFrom('auth_clients').select('id').where('name', 'like', 'bad-%').execute();
        expect(written).toEqual([]);
    });

    it('checks an update against the row as it will be: removing the keys of a private_key_jwt client is refused', async () => {
        const client = (await app.json<{ data: Client }>({ method: 'POST', url: '/clients', payload: { realmId, name: 'rotating', tokenEndpointAuthMethod: 'private_key_jwt', jwks: { keys: [publicJwk] } } }, 201)).data;
        const removed = await app.request({ method: 'POST', url: `/clients/${client.id}`, payload: { jwks: null } });
        expect(removed.statusCode).toBe(400);
        expect(issuesOf(removed).map((entry) => entry.path)).toContainEqual(['jwks']);
        // moving the keys to a URL in one update is fine
        const moved = await app.json<{ data: Client }>({ method: 'POST', url: `/clients/${client.id}`, payload: { jwks: null, jwksUri: 'https://rp.example.com/jwks.json' } }, 200);
        expect(moved.data).toMatchObject({ jwks: null, jwksUri: 'https://rp.example.com/jwks.json' });
        const secretJwt = (await app.json<{ data: Client }>({ method: 'POST', url: '/clients', payload: { realmId, name: 'hmac', tokenEndpointAuthMethod: 'client_secret_jwt', secret: 'a-secret-of-enough-length', secretEncrypted: true } }, 201)).data;
        expect((await app.request({ method: 'POST', url: `/clients/${secretJwt.id}`, payload: { secret: null } })).statusCode).toBe(400);
    });

    it('realm fields: securityProfile, requirePushedAuthorizationRequests and dynamicRegistrationEnabled', async () => {
        const realm = (await app.json<{ data: Record<string, unknown> & { id: string } }>({ method: 'GET', url: `/realms/${realmId}` }, 200)).data;
        expect(realm).toMatchObject({ securityProfile: null, requirePushedAuthorizationRequests: false, dynamicRegistrationEnabled: false });
        const updated = await app.json<{ data: Record<string, unknown> }>({ method: 'POST', url: `/realms/${realmId}`, payload: { securityProfile: 'fapi2', requirePushedAuthorizationRequests: true, dynamicRegistrationEnabled: true } }, 200);
        expect(updated.data).toMatchObject({ securityProfile: 'fapi2', requirePushedAuthorizationRequests: true, dynamicRegistrationEnabled: true });
        expect((await app.request({ method: 'POST', url: `/realms/${realmId}`, payload: { securityProfile: 'fapi1' } })).statusCode).toBe(400);
        await app.json({ method: 'POST', url: `/realms/${realmId}`, payload: { securityProfile: null } }, 200);
    });
});
