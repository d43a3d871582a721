import { createPublicKey, generateKeyPairSync, sign, verify } from 'node:crypto';
import { PermissionName, RealmScope } from '@realmgate/core';
import type { InjectOptions } from 'fastify';
import { beforeAll, expect, it } from 'vitest';
import { createActor } from '../../../test/actors.js';
import { useTestApp } from '../../../test/app.js';
import { describeEachDialect } from '../../../test/databases.js';
import { countRows } from '../../../test/identities.js';
import { createKeyStore } from '../../keys/store.js';

type Key = { id: string; use: string; algorithm: string; status: string; type: string; priority: number; realmId: string; publicKey: Record<string, unknown> | null };

/** private material in an answer: a member carrying it, a PEM armour, a JWK private parameter (RFC 7518 §6.2.2.1) */
const PRIVATE_MATERIAL = /"private_?key"\s*:|-----BEGIN|"d"\s*:/i;

describeEachDialect('keys: the /keys resource', (dialect) => {
    const app = useTestApp(dialect);
    let realmA: string;
    let realmB: string;
    /** every answer body of this suite, checked for private material at the end */
    const bodies: string[] = [];
    const call = async (options: InjectOptions & { as?: string | null }) => {
        const response = await app.request(options);
        bodies.push(response.body);
        return response;
    };
    const expectStatus = async <T = Record<string, unknown>>(options: InjectOptions & { as?: string | null }, status: number): Promise<T> => {
        const response = await call(options);
        expect(response.statusCode, response.body).toBe(status);
        return response.json() as T;
    };
    const create = async (payload: Record<string, unknown>) => (await expectStatus<{ data: Key }>({ method: 'POST', url: '/keys', payload }, 201)).data;
    const keysOf = async (realm: string, use = 'sig') => (await expectStatus<{ data: Key[] }>({ method: 'GET', url: `/keys?filter[realmId]=${realm}&filter[use]=${use}` }, 200)).data;

    beforeAll(async () => {
        realmA = (await app.json<{ data: { id: string } }>({ method: 'POST', url: '/realms', payload: { name: 'keys-a' } }, 201)).data.id;
        realmB = (await app.json<{ data: { id: string } }>({ method: 'POST', url: '/realms', payload: { name: 'keys-b' } }, 201)).data.id;
    });

    it('generates signing (ES256, RS256) and encryption keys; updates status and priority only', async () => {
        const es = await create({ realmId: realmA });
        expect(es).toMatchObject({ use: 'sig', algorithm: 'ES256', type: 'EC', status: 'active', priority: 0, realmId: realmA });
        expect(es.publicKey).toMatchObject({ kty: 'EC', crv: 'P-256', kid: es.id });
        const rs = await create({ realmId: realmA, use: 'sig', algorithm: 'RS256', status: 'passive', priority: 5 });
        expect(rs).toMatchObject({ type: 'RSA', algorithm: 'RS256', status: 'passive', priority: 5 });
        const enc = await create({ realmId: realmA, use: 'enc' });
        expect(enc).toMatchObject({ use: 'enc', type: 'oct', algorithm: 'A256GCM', publicKey: null });
        // a nested mount decides the realm
        expect((await expectStatus<{ data: Key }>({ method: 'POST', url: '/realms/keys-b/keys', payload: {} }, 201)).data.realmId).toBe(realmB);

        const read = await expectStatus<{ data: Key }>({ method: 'GET', url: `/keys/${rs.id}` }, 200);
        expect(read.data).toEqual(rs);
        const updated = await expectStatus<{ data: Key }>({ method: 'POST', url: `/keys/${rs.id}`, payload: { status: 'active', priority: 7 } }, 200);
        expect(updated.data).toMatchObject({ status: 'active', priority: 7, publicKey: rs.publicKey });

        const before = await app.deps.db.selectFrom('auth_keys').selectAll().orderBy('id').execute();
        for (const payload of [{ algorithm: 'ES256' }, { use: 'enc' }, { realmId: realmB }, { type: 'RSA' }, { status: 'retired' }, { priority: -1 },
            { privateKey: generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'pem', type: 'pkcs8' }) }]) {
            const response = await expectStatus<{ issues: unknown[] }>({ method: 'POST', url: `/keys/${rs.id}`, payload }, 400);
            expect(response.issues.length, JSON.stringify(payload)).toBeGreaterThan(0);
        }
        // an upsert of an existing key takes the create body, yet moves nothing
        expect((await call({ method: 'PUT', url: `/keys/${rs.id}`, payload: { realmId: realmB } })).statusCode).toBe(400);
        expect(await app.deps.db.selectFrom('auth_keys').selectAll().orderBy('id').execute()).toEqual(before);
        const upserted = await expectStatus<{ data: Key }>({ method: 'PUT', url: `/keys/${rs.id}`, payload: { realmId: realmA, priority: 2 } }, 200);
        expect(upserted.data).toMatchObject({ id: rs.id, priority: 2, realmId: realmA });
    });

    it('imports PEM and JWK material for an admin with any reach; a realm administrator generates but cannot import (403)', async () => {
        const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
        const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
        const pem = await create({ realmId: realmA, privateKey: ec.privateKey.export({ format: 'pem', type: 'sec1' }) });
        expect(pem).toMatchObject({ algorithm: 'ES256', type: 'EC', publicKey: { x: ec.publicKey.export({ format: 'jwk' }).x } });
        const jwk = await create({ realmId: realmA, algorithm: 'RS256', privateKey: rsa.privateKey.export({ format: 'jwk' }) });
        expect(jwk.publicKey).toMatchObject({ n: rsa.publicKey.export({ format: 'jwk' }).n, kid: jwk.id });
        // the stored private half is the imported one
        const stored = await createKeyStore(dialect, app.deps.secrets).privateKeyFor(app.deps.db, realmA, jwk.id);
        const signature = sign('sha256', Buffer.from('x'), stored!);
        expect(verify('sha256', Buffer.from('x'), rsa.publicKey, signature)).toBe(true);

        const realmAdmin = await createActor(app, realmA, [
            { permission: PermissionName.KEY_CREATE, scope: RealmScope.OWN },
            { permission: PermissionName.KEY_READ, scope: RealmScope.OWN_OR_NULL },
        ]);
        const before = await countRows(app, 'auth_keys');
        const importing = await call({ method: 'POST', url: '/keys', as: realmAdmin.header, payload: { privateKey: ec.privateKey.export({ format: 'jwk' }) } });
        expect(importing.statusCode).toBe(403);
        expect(importing.json()).toMatchObject({ code: 'permission_denied' });
        expect((await call({ method: 'POST', url: '/keys', as: realmAdmin.header, payload: { realmId: realmB } })).statusCode).toBe(403);
        expect(await countRows(app, 'auth_keys')).toBe(before);
        const generated = (await expectStatus<{ data: Key }>({ method: 'POST', url: '/keys', as: realmAdmin.header, payload: {} }, 201)).data;
        expect(generated).toMatchObject({ realmId: realmA, algorithm: 'ES256' });
    });

    it('imports only with a key_create grant reaching beyond the caller\'s realm: own and ownOrNull are refused, any (not only the admin role) passes (spec Authentication 3)', async () => {
        const material = () => generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'pem', type: 'pkcs8' });
        for (const scope of [RealmScope.OWN, RealmScope.OWN_OR_NULL, RealmScope.ANY]) {
            // a user of realm A, not the bootstrap admin, importing into its own realm A
            const actor = await createActor(app, realmA, [{ permission: PermissionName.KEY_CREATE, scope }, { permission: PermissionName.KEY_READ, scope }]);
            const before = await countRows(app, 'auth_keys');
            const importing = await call({ method: 'POST', url: '/keys', as: actor.header, payload: { realmId: realmA, privateKey: material() } });
            if (scope !== RealmScope.ANY) {
                expect(importing.statusCode, scope).toBe(403);
                expect(importing.json(), scope).toMatchObject({ code: 'permission_denied' });
                expect(await countRows(app, 'auth_keys')).toBe(before);
                // the same grant generates a key in its realm
                expect((await call({ method: 'POST', url: '/keys', as: actor.header, payload: { realmId: realmA } })).statusCode, scope).toBe(201);
            } else {
                expect(importing.statusCode, importing.body).toBe(201);
                expect(importing.json()).toMatchObject({ data: { realmId: realmA, algorithm: 'ES256' } });
                expect(await countRows(app, 'auth_keys')).toBe(before + 1);
            }
        }
    });

    it('answers 400 with issues for unusable input and writes nothing', async () => {
        const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
        const payloads: Record<string, unknown>[] = [
            { privateKey: 'garbage' },
            { privateKey: '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----' },
            { privateKey: generateKeyPairSync('ec', { namedCurve: 'P-384' }).privateKey.export({ format: 'pem', type: 'pkcs8' }) },
            { privateKey: ec.export({ format: 'pem', type: 'pkcs8' }), algorithm: 'RS256' },
            { privateKey: createPublicKey(ec).export({ format: 'jwk' }) },
            { privateKey: 42 },
            { use: 'enc', privateKey: ec.export({ format: 'pem', type: 'pkcs8' }) },
            { use: 'enc', algorithm: 'ES256' },
            { use: 'sig', algorithm: 'A256GCM' },
            { algorithm: 'HS256' },
            { use: 'both' },
            { status: 'revoked' },
            { realmId: 'not-a-uuid' },
            { unknown: true },
        ];
        const before = await countRows(app, 'auth_keys');
        for (const payload of payloads) {
            const response = await call({ method: 'POST', url: '/keys', payload: { realmId: realmA, ...payload } });
            expect(response.statusCode, JSON.stringify(payload)).toBe(400);
            expect(response.json().issues.length).toBeGreaterThan(0);
        }
        expect(await countRows(app, 'auth_keys')).toBe(before);
    });

    it('keeps realm administrators to their realm: own and ownOrNull never reach realm B keys, any does', async () => {
        const keyB = await create({ realmId: realmB });
        const countA = (await keysOf(realmA)).length + (await keysOf(realmA, 'enc')).length;
        for (const scope of [RealmScope.OWN, RealmScope.OWN_OR_NULL, RealmScope.ANY]) {
            const actor = await createActor(app, realmA, [PermissionName.KEY_READ, PermissionName.KEY_UPDATE, PermissionName.KEY_DELETE]
                .map((permission) => ({ permission, scope })));
            const reaches = scope === RealmScope.ANY;
            const list = await expectStatus<{ data: Key[]; meta: { total: number } }>({ method: 'GET', url: '/keys', as: actor.header }, 200);
            if (!reaches) {
                expect(list.data.every((key) => key.realmId === realmA)).toBe(true);
                expect(list.meta.total).toBe(countA);
                expect((await expectStatus<{ meta: { total: number } }>({ method: 'GET', url: '/realms/keys-b/keys', as: actor.header }, 200)).meta.total).toBe(0);
            } else {
                expect(list.data.some((key) => key.realmId === realmB)).toBe(true);
            }
            const expected = reaches ? 200 : 403;
            expect((await call({ method: 'GET', url: `/keys/${keyB.id}`, as: actor.header })).statusCode).toBe(expected);
            expect((await call({ method: 'POST', url: `/keys/${keyB.id}`, as: actor.header, payload: { priority: 3 } })).statusCode).toBe(expected);
            if (!reaches) expect((await call({ method: 'DELETE', url: `/keys/${keyB.id}`, as: actor.header })).statusCode).toBe(403);
            else await expectStatus({ method: 'DELETE', url: `/keys/${keyB.id}`, as: actor.header }, 200);
        }
        expect(await app.deps.db.selectFrom('auth_keys').select('id').where('id', '=', keyB.id).executeTakeFirst()).toBeUndefined();
    });

    it('refuses to delete an encryption key client secrets depend on (409) unless forced, which destroys those secrets', async () => {
        const client = (await expectStatus<{ data: { id: string } }>({
            method: 'POST', url: '/clients', payload: { name: 'enc-client', realmId: realmB, secret: 'enc-secret', secretEncrypted: true },
        }, 201)).data;
        const secretOf = async () => (await app.deps.db.selectFrom('auth_clients').select('secret').where('id', '=', client.id).executeTakeFirstOrThrow()).secret;
        const keyId = (await secretOf())!.split(':')[2]!;
        const authenticates = async () => (await call({ method: 'GET', url: '/clients/@me', as: app.basic(client.id, 'enc-secret') })).statusCode === 200;
        expect(await authenticates()).toBe(true);

        const refused = await call({ method: 'DELETE', url: `/keys/${keyId}` });
        expect(refused.statusCode).toBe(409);
        expect(refused.json()).toMatchObject({ code: 'entity_conflict' });
        expect((await call({ method: 'DELETE', url: `/keys/${keyId}?force=maybe` })).statusCode).toBe(400);
        expect(await secretOf()).toMatch(/^enc:v1:/);
        expect(await app.deps.db.selectFrom('auth_keys').select('id').where('id', '=', keyId).executeTakeFirst()).toBeDefined();

        // spec States: disabling the encryption key is reversible
        await expectStatus({ method: 'POST', url: `/keys/${keyId}`, payload: { status: 'disabled' } }, 200);
        expect(await authenticates()).toBe(false);
        await expectStatus({ method: 'POST', url: `/keys/${keyId}`, payload: { status: 'active' } }, 200);
        expect(await authenticates()).toBe(true);

        const deleted = await expectStatus<{ data: Key }>({ method: 'DELETE', url: `/keys/${keyId}?force=true` }, 200);
        expect(deleted.data).toMatchObject({ id: keyId, use: 'enc' });
        expect(await secretOf()).toBeNull();
        expect(await authenticates()).toBe(false);
        // a signing key has no dependents: deleted without force
        const [signing] = await keysOf(realmB);
        await expectStatus({ method: 'DELETE', url: `/keys/${signing!.id}` }, 200);
    });

    it('never answers private material, nor records it in events', async () => {
        const all = await expectStatus<{ data: Key[] }>({ method: 'GET', url: '/keys?page[limit]=100' }, 200);
        expect(all.data.length).toBeGreaterThan(5);
        for (const body of bodies) expect(body).not.toMatch(PRIVATE_MATERIAL);
        const events = await app.deps.db.selectFrom('auth_events').select('data').where('ref_type', '=', 'key').execute();
        expect(events.length).toBeGreaterThan(5);
        for (const event of events) expect(String(event.data)).not.toMatch(PRIVATE_MATERIAL);
    });
});
