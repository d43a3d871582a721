import { expect, it } from 'vitest';
import { assertionClaims, assertionForm, clientKeyPair, signAssertion } from '../client-assertions.js';
import { describeEachDialect } from '../databases.js';
import { useReplicas } from '../replicas.js';

/**
 * RFC 7523 §3 item 7 across replicas: an assertion accepted by one replica is a replay on the
 * other, whether the single-use identifiers live in Redis or in the database they share.
 */
const PUBLIC_URL = 'https://id.replicas.example';
const STORES = process.env.TEST_REDIS_URL ? [true, false] : [false];

for (const redis of STORES) describeEachDialect(`a client assertion is single use across two replicas (${redis ? 'Redis' : 'the database'})`, (dialect) => {
    const replicas = useReplicas(dialect, { redis, env: { PUBLIC_URL } });

    it('accepted on one replica, refused on the other; a fresh one is accepted anywhere', async () => {
        const key = await clientKeyPair('ES256');
        const realm = (await replicas.json<{ data: { id: string; name: string } }>(replicas.a, 'POST', '/realms', { name: `replay-${redis ? 'r' : 'd'}` }, 201)).data;
        const client = (await replicas.json<{ data: { id: string } }>(replicas.a, 'POST', '/clients', {
            realmId: realm.id, name: 'signer', tokenEndpointAuthMethod: 'private_key_jwt', jwks: { keys: [key.jwk] },
        }, 201)).data;
        const audience = `${PUBLIC_URL}/realms/${realm.name}`;
        const assertion = await signAssertion(key, assertionClaims(client.id, audience));
        const grant = (replica: typeof replicas.a, jwt: string) =>
            replicas.post(replica, '/token', { grant_type: 'client_credentials', ...assertionForm(jwt) });

        const first = await grant(replicas.a, assertion);
        expect(first.status, await first.clone().text()).toBe(200);
        const replayed = await grant(replicas.b, assertion);
        expect(replayed.status).toBe(401);
        expect(await replayed.json()).toMatchObject({ error: 'invalid_client' });
        expect((await grant(replicas.a, assertion)).status).toBe(401);
        // concurrent presentations of one new assertion on both replicas: exactly one passes
        const raced = await signAssertion(key, assertionClaims(client.id, audience));
        const statuses = (await Promise.all([grant(replicas.a, raced), grant(replicas.b, raced), grant(replicas.a, raced), grant(replicas.b, raced)]))
            .map((response) => response.status);
        expect(statuses.filter((status) => status === 200)).toHaveLength(1);
        expect((await grant(replicas.b, await signAssertion(key, assertionClaims(client.id, audience)))).status).toBe(200);
    });
}, ['postgres']);
