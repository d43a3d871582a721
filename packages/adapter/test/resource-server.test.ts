import { randomUUID } from 'node:crypto';
import { basicAuth, createClient, passwordGrant, type RealmgateClient } from '@realmgate/client';
import { RealmScope } from '@realmgate/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ORDER_READ, OrderStore } from '../../../examples/resource-server/orders.js';
import { ADMIN } from '../../server/test/app.js';
import { describeEachDialect } from '../../server/test/databases.js';
import type { ServerProcess } from '../../server/test/server-process.js';
import { createVerifier, type VerificationMode, type Verifier } from '../src/index.js';
import { EXAMPLE_FRAMEWORKS, startRealmgate, type ListeningExample } from './example-servers.js';

/*
 * The example resource server (examples/resource-server) end to end: a real Realmgate process, the
 * example's orders API in this process on Fastify and on Express, the adapter in local and remote
 * mode. Spec Authentication 4, consumer rules 12–14 and "Upgrade order for catalog consumers".
 */

const TIMEOUT = 180_000;

describeEachDialect('example resource server through the adapter against a real server process', (dialect) => {
    let server: ServerProcess;
    let stop: (() => Promise<void>) | undefined;
    let admin: RealmgateClient;
    let realm: { id: string; name: string };
    let foreign: { id: string; name: string };
    let resourceServer: { id: string; secret: string };
    let orderRead: string;
    const store = new OrderStore();

    const createUser = async (realmId: string, grant: boolean) => {
        const name = `user-${randomUUID().slice(0, 8)}`;
        const id = (await admin.postUsers({ body: { name, realmId, password: `${name}-password` } })).data.id as string;
        const binding = grant ? (await admin.postUserPermissions({ body: { userId: id, permissionId: orderRead, realmScope: RealmScope.OWN } })).data.id as string : null;
        const token = async () => `Bearer ${(await passwordGrant(admin.withAuth(undefined), { username: name, password: `${name}-password`, realmId })).access_token}`;
        return { id, binding, token };
    };

    beforeAll(async () => {
        ({ server, stop } = await startRealmgate(dialect));
        admin = createClient({ baseUrl: server.url, auth: basicAuth(ADMIN.name, ADMIN.password) });
        const realmOf = async (name: string) => ({ id: (await admin.postRealms({ body: { name } })).data.id as string, name });
        realm = await realmOf(`acme-${randomUUID().slice(0, 6)}`);
        foreign = await realmOf(`globex-${randomUUID().slice(0, 6)}`);
        // spec "Upgrade order" step 3: the resource server's own client, permission_read at a reach covering global rows
        const secret = `rs-${randomUUID()}`;
        const client = (await admin.postClients({ body: { name: 'orders-api', realmId: realm.id, secret } })).data.id as string;
        resourceServer = { id: client, secret };
        const permissionRead = (await admin.getPermissions({ query: { filter: { name: 'permission_read', realmId: null } } })).data[0]!.id as string;
        await admin.postClientPermissions({ body: { clientId: client, permissionId: permissionRead, realmScope: RealmScope.ANY } });
        orderRead = (await admin.postPermissions({ body: { name: ORDER_READ, realmId: null } })).data.id as string;
        store.add({ id: 'acme-1', realmId: realm.id, item: 'a book' });
        store.add({ id: 'globex-1', realmId: foreign.id, item: 'a lamp' });
    }, TIMEOUT);
    afterAll(async () => stop?.(), TIMEOUT);

    for (const framework of ['fastify', 'express'] as const) {
        for (const mode of ['local', 'remote'] as const satisfies readonly VerificationMode[]) {
            describe(`${framework}, ${mode} mode`, () => {
                let verifier: Verifier;
                let api: ListeningExample;
                beforeAll(async () => {
                    verifier = createVerifier({ baseUrl: server.url, mode, credentials: { clientId: resourceServer.id, clientSecret: resourceServer.secret }, realms: [realm.name] });
                    api = await EXAMPLE_FRAMEWORKS[framework](store, verifier);
                });
                afterAll(async () => api?.close());
                const get = (path: string, authorization?: string) => fetch(`${api.url}${path}`, authorization ? { headers: { authorization } } : {});

                it('allows a granted user on a row of its realm and denies a row of another realm (own reach)', async () => {
                    const alice = await createUser(realm.id, true);
                    const bearer = await alice.token();
                    const allowed = await get('/orders/acme-1', bearer);
                    expect(allowed.status, await allowed.clone().text()).toBe(200);
                    expect(await allowed.json()).toMatchObject({ id: 'acme-1' });
                    expect((await get('/orders/globex-1', bearer)).status).toBe(403);
                    expect(await (await get('/profile', bearer)).json()).toEqual({ id: alice.id, realmName: realm.name });
                });

                it('denies a user without the grant, and a request without a valid token (fail closed)', async () => {
                    const bob = await createUser(realm.id, false);
                    const denied = await get('/orders/acme-1', await bob.token());
                    expect(denied.status).toBe(403);
                    expect(await denied.json()).toMatchObject({ code: 'permission_denied' });
                    const missing = await get('/orders/acme-1');
                    expect(missing.status).toBe(401);
                    expect(missing.headers.get('www-authenticate')).toContain('Bearer');
                    expect((await get('/orders/acme-1', 'Bearer not.a-token.at-all')).status).toBe(401);
                    expect((await get('/health')).status).toBe(200);
                });

                it('sees a revoked grant on the next introspection', async () => {
                    const carol = await createUser(realm.id, true);
                    const bearer = await carol.token();
                    expect((await get('/orders/acme-1', bearer)).status).toBe(200);
                    await admin.deleteUserPermissionsById({ params: { id: carol.binding! } });
                    expect((await get('/orders/acme-1', bearer)).status).toBe(403);
                });

                it('refetches a stale catalog: a grant naming a definition the cached copy lacks', async () => {
                    const dave = await createUser(realm.id, true);
                    const bearer = await dave.token();
                    expect((await get('/orders/acme-1', bearer)).status).toBe(200);
                    const newer = `newer_${randomUUID().slice(0, 8)}`;
                    expect((await verifier.catalog()).permissions.some((entry) => entry.name === newer)).toBe(false);
                    const permission = (await admin.postPermissions({ body: { name: newer, realmId: null } })).data.id as string;
                    await admin.postUserPermissions({ body: { userId: dave.id, permissionId: permission, realmScope: RealmScope.OWN } });
                    // the cached copy lacks `newer`: the evaluator throws the stale error, the adapter refetches and decides
                    expect((await get('/orders/acme-1', bearer)).status).toBe(200);
                    expect((await verifier.catalog()).permissions.some((entry) => entry.name === newer)).toBe(true);
                });

                it('refuses a token of a realm the resource server does not serve', async () => {
                    const stranger = await createUser(foreign.id, true);
                    const refused = await get('/orders/globex-1', await stranger.token());
                    expect(refused.status).toBe(401);
                    expect(await refused.json()).toMatchObject({ code: 'invalid_token' });
                });
            });
        }
    }
}, ['sqlite', 'postgres', 'mysql']);
