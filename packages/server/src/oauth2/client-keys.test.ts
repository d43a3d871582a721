import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, jwtVerify, SignJWT, type JWK } from 'jose';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createCacheRegistry } from '../cache/registry.js';
import { createOutboundPolicy } from '../outbound/address-policy.js';
import { createOutboundFetch } from '../outbound/guarded-fetch.js';
import { ClientKeysUnavailableError, createClientKeys, type ClientKeySetEntry } from './client-keys.js';

/** A signing pair and its public JWK under a kid. */
async function signingKey(kid: string, alg: 'RS256' | 'ES256' = 'ES256') {
    const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
    const jwk: JWK = { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' };
    return { kid, alg, privateKey, jwk };
}

type Key = Awaited<ReturnType<typeof signingKey>>;

const sign = (key: Key, claims: Record<string, unknown> = { sub: 'c' }) =>
    new SignJWT(claims).setProtectedHeader({ alg: key.alg, kid: key.kid }).sign(key.privateKey);

/** A JWKS server on loopback whose document the test changes, counting its fetches. */
function jwksServer() {
    const state = { keys: [] as JWK[], fetches: 0, status: 200, body: null as string | null };
    const server: Server = createServer((_request, response) => {
        state.fetches++;
        response.writeHead(state.status, { 'content-type': 'application/json' });
        response.end(state.body ?? JSON.stringify({ keys: state.keys }));
    });
    return { state, server };
}

describe('client key resolution (inline jwks, jwksUri through the outbound guard)', () => {
    const { state, server } = jwksServer();
    let base = '';
    let now = 1_000_000;
    const clock = () => now;
    let first: Key;
    let second: Key;

    beforeAll(async () => {
        await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
        base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
        [first, second] = await Promise.all([signingKey('k1'), signingKey('k2', 'RS256')]);
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
    beforeEach(() => {
        state.keys = [first.jwk];
        state.fetches = 0;
        state.status = 200;
        state.body = null;
        now = 1_000_000;
    });

    const keysWith = (allowed: string[]) => {
        const registry = createCacheRegistry(() => false);
        const cache = registry.create<ClientKeySetEntry>('client_keys', 10, { independentOfBus: true, ttlMs: Infinity, clock });
        return { registry, cache, keys: createClientKeys({ fetch: createOutboundFetch(createOutboundPolicy(allowed)), cache, clock }) };
    };

    it('an inline JWK Set verifies a JWS signed by its key and refuses another key', async () => {
        const { keys } = keysWith([]);
        const client = { id: 'inline', jwks: JSON.stringify({ keys: [first.jwk] }), jwksUri: null };
        await expect(jwtVerify(await sign(first), keys.verificationKeys(client))).resolves.toMatchObject({ payload: { sub: 'c' } });
        await expect(jwtVerify(await sign(second), keys.verificationKeys(client))).rejects.toThrow(/no applicable key|matching/i);
    });

    it('a client without keys has none to verify with', async () => {
        const { keys } = keysWith([]);
        await expect(jwtVerify(await sign(first), keys.verificationKeys({ id: 'none', jwks: null, jwksUri: null })))
            .rejects.toBeInstanceOf(ClientKeysUnavailableError);
    });

    it('a jwksUri is fetched once, served from the cache (counted in the registry), and emptied with it', async () => {
        const { keys, registry } = keysWith(['127.0.0.0/8']);
        const client = { id: 'remote', jwks: null, jwksUri: `${base}/jwks` };
        for (let i = 0; i < 3; i++) await jwtVerify(await sign(first), keys.verificationKeys(client));
        expect(state.fetches).toBe(1);
        expect(registry.stats()).toEqual([expect.objectContaining({ name: 'client_keys', size: 1, hits: 2 })]);
        registry.invalidateAll();
        await jwtVerify(await sign(first), keys.verificationKeys(client));
        expect(state.fetches).toBe(2);
    });

    it('a changed jwksUri (or inline jwks) is not answered from the entry of the old one', async () => {
        const { keys } = keysWith(['127.0.0.0/8']);
        await jwtVerify(await sign(first), keys.verificationKeys({ id: 'moved', jwks: null, jwksUri: `${base}/jwks` }));
        await jwtVerify(await sign(first), keys.verificationKeys({ id: 'moved', jwks: null, jwksUri: `${base}/other` }));
        expect(state.fetches).toBe(2);
        await expect(jwtVerify(await sign(first), keys.verificationKeys({ id: 'moved', jwks: JSON.stringify({ keys: [second.jwk] }), jwksUri: null })))
            .rejects.toThrow();
    });

    it('the native path (keyObjects) picks the keys jose would, made once, and re-fetches a rotated jwksUri as the getter does', async () => {
        const { keys } = keysWith(['127.0.0.0/8']);
        const client = { id: 'native', jwks: null, jwksUri: `${base}/jwks` };
        const [key] = await keys.keyObjects(client, { alg: 'ES256', kid: 'k1' });
        expect(key?.asymmetricKeyType).toBe('ec');
        // made once: the same KeyObject for the next JWS, without a fetch
        expect(await keys.keyObjects(client, { alg: 'ES256', kid: 'k1' })).toEqual([key]);
        expect(await keys.keyObjects(client, { alg: 'ES256' })).toEqual([key]);
        expect(state.fetches).toBe(1);
        // another alg than the key's, or an HMAC, picks nothing
        await expect(keys.keyObjects(client, { alg: 'PS256', kid: 'k1' })).rejects.toThrow(/no applicable key|matching/i);
        await expect(keys.keyObjects(client, { alg: 'HS256', kid: 'k1' })).rejects.toThrow(/no applicable key|matching/i);
        state.keys = [second.jwk];
        now += 1_000;
        await expect(keys.keyObjects(client, { alg: 'RS256', kid: 'k2' })).rejects.toThrow(/no applicable key|matching/i);
        expect(state.fetches).toBe(1);
        now += 60_000;
        const [rotated] = await keys.keyObjects(client, { alg: 'RS256', kid: 'k2' });
        expect(rotated?.asymmetricKeyType).toBe('rsa');
        expect(state.fetches).toBe(2);
        // a private key in a set never verifies
        const leaked = { id: 'leaked', jwks: JSON.stringify({ keys: [{ ...first.jwk, d: 'AAAA' }] }), jwksUri: null };
        await expect(keys.keyObjects(leaked, { alg: 'ES256', kid: 'k1' })).rejects.toThrow(/no applicable key|matching/i);
    });

    it('a key rotated at the jwksUri: an unknown kid re-fetches, at most once per interval', async () => {
        const { keys } = keysWith(['127.0.0.0/8']);
        const client = { id: 'rotating', jwks: null, jwksUri: `${base}/jwks` };
        await jwtVerify(await sign(first), keys.verificationKeys(client));
        // the client rotates to k2; the server still has k1 only within the interval
        state.keys = [second.jwk];
        now += 1_000;
        await expect(jwtVerify(await sign(second), keys.verificationKeys(client))).rejects.toThrow();
        expect(state.fetches).toBe(1);
        // a stream of unknown kids within the interval fetches nothing more
        await expect(jwtVerify(await sign(second), keys.verificationKeys(client))).rejects.toThrow();
        expect(state.fetches).toBe(1);
        now += 60_000;
        await expect(jwtVerify(await sign(second), keys.verificationKeys(client))).resolves.toBeDefined();
        expect(state.fetches).toBe(2);
        // the old key is gone from the set
        await expect(jwtVerify(await sign(first), keys.verificationKeys(client))).rejects.toThrow();
    });

    it('an entry older than its lifetime is fetched again', async () => {
        const { keys } = keysWith(['127.0.0.0/8']);
        const client = { id: 'aging', jwks: null, jwksUri: `${base}/jwks` };
        await jwtVerify(await sign(first), keys.verificationKeys(client));
        now += 10 * 60_000;
        await jwtVerify(await sign(first), keys.verificationKeys(client));
        expect(state.fetches).toBe(2);
    });

    it('concurrent verifications of one client share one fetch', async () => {
        const { keys } = keysWith(['127.0.0.0/8']);
        const client = { id: 'concurrent', jwks: null, jwksUri: `${base}/jwks` };
        const token = await sign(first);
        await Promise.all(Array.from({ length: 5 }, () => jwtVerify(token, keys.verificationKeys(client))));
        expect(state.fetches).toBe(1);
    });

    it('a loopback jwksUri is refused unless OUTBOUND_ALLOWED_HOSTS allows it, and nothing is fetched', async () => {
        const { keys } = keysWith([]);
        const refused = jwtVerify(await sign(first), keys.verificationKeys({ id: 'guarded', jwks: null, jwksUri: `${base}/jwks` }));
        await expect(refused).rejects.toBeInstanceOf(ClientKeysUnavailableError);
        await expect(refused).rejects.toThrow(/loopback/);
        expect(state.fetches).toBe(0);
    });

    it('a jwksUri answering an error, a document that is no JWK Set or one too large verifies nothing', async () => {
        const { keys } = keysWith(['127.0.0.0/8']);
        state.status = 500;
        await expect(jwtVerify(await sign(first), keys.verificationKeys({ id: 'e1', jwks: null, jwksUri: `${base}/jwks` })))
            .rejects.toThrow(/500/);
        state.status = 200;
        state.body = '{"not":"a set"}';
        await expect(jwtVerify(await sign(first), keys.verificationKeys({ id: 'e2', jwks: null, jwksUri: `${base}/jwks` })))
            .rejects.toBeInstanceOf(ClientKeysUnavailableError);
        state.body = JSON.stringify({ keys: [first.jwk], padding: 'x'.repeat(200_000) });
        await expect(jwtVerify(await sign(first), keys.verificationKeys({ id: 'e3', jwks: null, jwksUri: `${base}/jwks` })))
            .rejects.toThrow(/large/);
    });
});
