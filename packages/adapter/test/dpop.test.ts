import { randomUUID } from 'node:crypto';
import { basicAuth, createClient, type RealmgateClient } from '@realmgate/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OrderStore } from '../../../examples/resource-server/orders.js';
import { ADMIN } from '../../server/test/app.js';
import { describeEachDialect } from '../../server/test/databases.js';
import { dpopKey, dpopProof, type DpopKey } from '../../server/test/dpop-proofs.js';
import type { ServerProcess } from '../../server/test/server-process.js';
import { createVerifier } from '../src/index.js';
import { EXAMPLE_FRAMEWORKS, startRealmgate, type ListeningExample } from './example-servers.js';

/*
 * The adapter's side of RFC 9449 §7 against a real server process: a client_credentials token bound
 * to a DPoP key, presented to the example resource server on Fastify and on Express, in local and
 * remote mode — accepted with a proof of its key over the request; refused as a bearer, with another
 * key's proof, with a wrong ath, another URL, or a replayed proof.
 */

const TIMEOUT = 180_000;

describeEachDialect('DPoP-bound tokens through the adapter', (dialect) => {
    let server: ServerProcess;
    let stop: (() => Promise<void>) | undefined;
    let admin: RealmgateClient;
    let realm: { id: string; name: string };
    let caller: { id: string; secret: string };
    let resourceServer: { id: string; secret: string };
    let key: DpopKey;
    let otherKey: DpopKey;

    beforeAll(async () => {
        ({ server, stop } = await startRealmgate(dialect));
        admin = createClient({ baseUrl: server.url, auth: basicAuth(ADMIN.name, ADMIN.password) });
        const name = `acme-${randomUUID().slice(0, 6)}`;
        realm = { id: (await admin.postRealms({ body: { name } })).data.id as string, name };
        const clientOf = async (clientName: string) => {
            const secret = `s-${randomUUID()}`;
            return { id: (await admin.postClients({ body: { name: clientName, realmId: realm.id, secret } })).data.id as string, secret };
        };
        [caller, resourceServer] = await Promise.all([clientOf('caller'), clientOf('orders-api')]);
        [key, otherKey] = await Promise.all([dpopKey('ES256'), dpopKey('RS256')]);
    }, TIMEOUT);
    afterAll(async () => stop?.(), TIMEOUT);

    /** a client_credentials token bound to `key` (RFC 9449 §5) */
    const boundToken = async (): Promise<string> => {
        const response = await fetch(`${server.url}/token`, {
            method: 'POST',
            headers: {
                'content-type': 'application/x-www-form-urlencoded',
                authorization: `Basic ${Buffer.from(`${caller.id}:${caller.secret}`).toString('base64')}`,
                dpop: await dpopProof(key, { htm: 'POST', htu: `${server.url}/token` }),
            },
            body: new URLSearchParams({ grant_type: 'client_credentials' }),
        });
        const body = await response.json() as { access_token: string; token_type: string };
        expect(body.token_type).toBe('DPoP');
        return body.access_token;
    };

    for (const framework of ['fastify', 'express'] as const) {
        for (const mode of ['local', 'remote'] as const) {
            describe(`${framework}, ${mode} mode`, () => {
                // the resource server's public URL, as behind a proxy: proofs name it, not the listener's address
                const publicUrl = 'https://orders.example.test';
                let api: ListeningExample;
                beforeAll(async () => {
                    const verifier = createVerifier({ baseUrl: server.url, mode, credentials: { clientId: resourceServer.id, clientSecret: resourceServer.secret } });
                    api = await EXAMPLE_FRAMEWORKS[framework](new OrderStore(), verifier, { publicUrl });
                });
                afterAll(async () => api?.close());
                const profile = (authorization: string, proof?: string) => fetch(`${api.url}/profile`, {
                    headers: { authorization, ...(proof === undefined ? {} : { dpop: proof }) },
                });

                it('accepts a bound token with a proof of its key over the request', async () => {
                    const token = await boundToken();
                    const response = await profile(`DPoP ${token}`, await dpopProof(key, { htm: 'GET', htu: `${publicUrl}/profile`, accessToken: token }));
                    expect(response.status, await response.clone().text()).toBe(200);
                    expect(await response.json()).toEqual({ id: caller.id, realmName: realm.name });
                });

                it('refuses it as a bearer, without a proof, with another key, a wrong ath or URL, and a replayed proof', async () => {
                    const token = await boundToken();
                    const asBearer = await profile(`Bearer ${token}`);
                    expect(asBearer.status).toBe(401);
                    expect(await asBearer.json()).toMatchObject({ code: 'invalid_token' });
                    const refusals = [
                        undefined,
                        await dpopProof(otherKey, { htm: 'GET', htu: `${publicUrl}/profile`, accessToken: token }),
                        await dpopProof(key, { htm: 'GET', htu: `${publicUrl}/profile`, accessToken: 'another token' }),
                        await dpopProof(key, { htm: 'GET', htu: `${publicUrl}/orders/1`, accessToken: token }),
                    ];
                    for (const proof of refusals) {
                        const response = await profile(`DPoP ${token}`, proof);
                        expect(response.status).toBe(401);
                        expect(response.headers.get('www-authenticate')).toMatch(/^DPoP algs=".*", error="invalid_dpop_proof"/);
                    }
                    const proof = await dpopProof(key, { htm: 'GET', htu: `${publicUrl}/profile`, accessToken: token });
                    expect((await profile(`DPoP ${token}`, proof)).status).toBe(200);
                    const replay = await profile(`DPoP ${token}`, proof);
                    expect(replay.status).toBe(401);
                    expect(await replay.json()).toMatchObject({ code: 'invalid_dpop_proof', message: 'the DPoP proof was used before' });
                });
            });
        }
    }
}, ['sqlite', 'postgres', 'mysql']);
