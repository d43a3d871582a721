import { beforeAll, expect, it } from 'vitest';
import { createActor, createRealm } from '../actors.js';
import { useTestApp } from '../app.js';
import { describeEachDialect } from '../databases.js';

type Client = { id: string; name: string; secret?: string | null };

describeEachDialect('relations on reads: fields[client]=+secret and the path relation', (dialect) => {
    const app = useTestApp(dialect);
    let realmA: string;
    let client: Client;
    beforeAll(async () => {
        realmA = await createRealm(app, 'realm-a');
        client = (await app.json<{ data: Client }>({ method: 'POST', url: '/clients', payload: { name: 'api', realmId: realmA, secret: 's3cret-value' } }, 201)).data;
        const permission = await app.deps.db.selectFrom('auth_permissions').select('id').where('name', '=', 'user_read').executeTakeFirstOrThrow();
        await app.json({ method: 'POST', url: '/client-permissions', payload: { clientId: client.id, permissionId: permission.id, realmScope: 'own' } }, 201);
    });

    it('projects the related client secret for a reader who may update the client, and only then', async () => {
        const url = `/client-permissions?filter[clientId]=${client.id}&include=client&fields[client]=+secret`;
        const admin = await app.json<{ data: { client: Client | null }[] }>({ method: 'GET', url }, 200);
        expect(admin.data[0]!.client?.secret).toBe('s3cret-value');
        const plain = await app.json<{ data: { client: Client | null }[] }>({ method: 'GET', url: `/client-permissions?filter[clientId]=${client.id}&include=client` }, 200);
        expect(plain.data[0]!.client).not.toHaveProperty('secret');
        const reader = await createActor(app, realmA, [
            { permission: 'client_permission_read', scope: 'own' },
            { permission: 'client_read', scope: 'own' },
        ]);
        const redacted = await app.json<{ data: { client: Client | null }[] }>({ method: 'GET', url, as: reader.header }, 200);
        expect(redacted.data[0]!.client?.id).toBe(client.id);
        expect(redacted.data[0]!.client).not.toHaveProperty('secret');
    });

    it('the path relation of a user is readable by whoever can read the user (spec: path routes)', async () => {
        const path = (await app.json<{ data: { id: string } }>({ method: 'POST', url: '/paths', payload: { name: 'staff', realmId: realmA } }, 201)).data;
        const user = (await app.json<{ data: { id: string } }>({ method: 'POST', url: '/users', payload: { name: 'filed', realmId: realmA, pathId: path.id } }, 201)).data;
        const reader = await createActor(app, realmA, [{ permission: 'user_read', scope: 'own' }]);
        const read = await app.json<{ data: { path: { id: string } | null } }>({ method: 'GET', url: `/users/${user.id}?include=path`, as: reader.header }, 200);
        expect(read.data.path?.id).toBe(path.id);
        expect((await app.request({ method: 'GET', url: `/paths/${path.id}`, as: reader.header })).statusCode).toBe(403);
    });

    it('a 255-character display name fits on every dialect; 256 is refused with 400', async () => {
        expect((await app.request({ method: 'POST', url: '/roles', payload: { name: 'long', realmId: realmA, displayName: 'd'.repeat(255) } })).statusCode).toBe(201);
        expect((await app.request({ method: 'POST', url: '/roles', payload: { name: 'longer', realmId: realmA, displayName: 'd'.repeat(256) } })).statusCode).toBe(400);
    });
});
