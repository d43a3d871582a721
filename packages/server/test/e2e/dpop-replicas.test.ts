import { expect, it } from 'vitest';
import { basicHeader } from '../app.js';
import { describeEachDialect } from '../databases.js';
import { dpopKey, dpopProof } from '../dpop-proofs.js';
import { useReplicas } from '../replicas.js';

/**
 * RFC 9449 §11.1 across replicas: a proof used at one replica is a replay at the other — the jti is
 * claimed in the store they share (Redis when set, else the database) — and a nonce one replica
 * hands out is accepted by the other, which derives the same nonces from the same secret (§8).
 * Both replicas serve one PUBLIC_URL, as behind a load balancer, so a proof's htu fits either.
 */
const PUBLIC_URL = 'https://auth.example.test';

for (const redis of process.env.TEST_REDIS_URL ? [true, false] : [false]) describeEachDialect(`DPoP across two replicas ${redis ? 'with Redis' : 'on the database alone'}`, (dialect) => {
    const replicas = useReplicas(dialect, { redis, env: { PUBLIC_URL, DPOP_NONCE_REQUIRED: 'true', DPOP_NONCE_SECRET: 'one secret for every replica' } });
    const { admin, call, post } = replicas;

    it('refuses at one replica a proof the other accepted, and shares nonces', async () => {
        const created = await call(replicas.a, '/clients', {
            method: 'POST', headers: { authorization: admin, 'content-type': 'application/json' },
            body: JSON.stringify({ name: `dpop-${redis ? 'redis' : 'db'}`, secret: 'replicated-secret' }),
        });
        expect(created.status).toBe(201);
        const credentials = basicHeader((await created.json() as { data: { id: string } }).data.id, 'replicated-secret');
        const key = await dpopKey('ES256');
        const obtain = async (replica: typeof replicas.a, proof: string) => post(replica, '/token', { grant_type: 'client_credentials' }, credentials, { dpop: proof });

        // replica a hands out the nonce; replica b accepts it
        const asked = await obtain(replicas.a, await dpopProof(key, { htm: 'POST', htu: `${PUBLIC_URL}/token` }));
        expect(asked.status).toBe(400);
        const nonce = asked.headers.get('dpop-nonce')!;
        expect(nonce).toBeTruthy();
        const proof = await dpopProof(key, { htm: 'POST', htu: `${PUBLIC_URL}/token`, nonce });
        const issued = await obtain(replicas.b, proof);
        expect(issued.status, await issued.clone().text()).toBe(200);
        expect((await issued.json() as { token_type: string }).token_type).toBe('DPoP');

        // the same proof at the other replica: a replay
        const replayed = await obtain(replicas.a, proof);
        expect(replayed.status).toBe(400);
        expect(await replayed.json()).toMatchObject({ error: 'invalid_dpop_proof', error_description: 'The DPoP proof was used before.' });
    });
}, ['postgres', 'mysql']);
