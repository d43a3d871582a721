import { PermissionName } from '@realmgate/core';
import { beforeAll, expect, it } from 'vitest';
import { sha256Hex } from '../../../src/secrets/digests.js';
import { useTestApp } from '../../app.js';
import { describeEachDialect } from '../../databases.js';
import { assignRole, createRealm, globalId, insertUser } from '../../grant-fixtures.js';

type Token = { id: string; realmId: string; count: number; remaining: number; expiresAt: string; token?: string };

describeEachDialect('initial access tokens (RFC 7591 §1.2; API.md §8)', (dialect) => {
    const app = useTestApp(dialect);
    let realmA: string;
    let realmB: string;
    let adminOfB: string;
    beforeAll(async () => {
        realmA = await createRealm(app);
        realmB = await createRealm(app);
        // a realm administrator of B through the built-in realm_admin role (bootstrap grants it the new permissions)
        const user = await insertUser(app, realmB);
        await assignRole(app, user.id, await globalId(app, 'auth_roles', 'realm_admin'));
        adminOfB = user.auth;
    });

    it('creates a token shown once, stored as its digest only, and lists, reads and deletes it without the token', async () => {
        const created = (await app.json<{ data: Token }>({ method: 'POST', url: '/initial-access-tokens', payload: { realmId: realmA, count: 3, expiresIn: 600 } }, 201)).data;
        expect(created).toMatchObject({ realmId: realmA, count: 3, remaining: 3 });
        expect(created.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
        const lifetime = new Date(created.expiresAt).getTime() - new Date((created as unknown as { createdAt: string }).createdAt).getTime();
        expect(Math.round(lifetime / 1000)).toBe(600);
        const row = await app.deps.db.selectFrom('auth_initial_access_tokens').selectAll().where('id', '=', created.id).executeTakeFirstOrThrow();
        expect(row.token_digest).toBe(sha256Hex(created.token!));
        expect(JSON.stringify(row)).not.toContain(created.token!);

        const read = (await app.json<{ data: Token }>({ method: 'GET', url: `/initial-access-tokens/${created.id}` }, 200)).data;
        expect(read).not.toHaveProperty('token');
        expect(JSON.stringify(read)).not.toContain(row.token_digest);
        const listed = await app.json<{ data: Token[] }>({ method: 'GET', url: `/realms/${realmA}/initial-access-tokens` }, 200);
        expect(listed.data.map((token) => token.id)).toContain(created.id);
        expect(JSON.stringify(listed)).not.toContain(created.token!);
        // the event log keeps the record, never the token or its digest
        const events = await app.deps.db.selectFrom('auth_events').select('data').where('ref_id', '=', created.id).execute();
        expect(events.length).toBeGreaterThan(0);
        expect(JSON.stringify(events)).not.toContain(row.token_digest);

        await app.json({ method: 'DELETE', url: `/initial-access-tokens/${created.id}` }, 200);
        expect(await app.deps.db.selectFrom('auth_initial_access_tokens').select('id').where('id', '=', created.id).executeTakeFirst()).toBeUndefined();
    });

    it('defaults to one use for a day, under the mount realm', async () => {
        const created = (await app.json<{ data: Token }>({ method: 'POST', url: `/realms/${realmA}/initial-access-tokens`, payload: {} }, 201)).data;
        expect(created).toMatchObject({ realmId: realmA, count: 1, remaining: 1 });
    });

    it('refuses counts and lifetimes beyond the limits, unknown members and updates, writing nothing', async () => {
        const before = await app.deps.db.selectFrom('auth_initial_access_tokens').select('id').execute();
        for (const payload of [{ count: 0 }, { count: 101 }, { expiresIn: 59 }, { expiresIn: 30 * 86_400 + 1 }, { count: 'many' }, { token: 'chosen' }, { realmId: 'not-a-uuid' }]) {
            const response = await app.request({ method: 'POST', url: '/initial-access-tokens', payload: { realmId: realmA, ...payload } });
            expect(response.statusCode, JSON.stringify(payload)).toBe(400);
            expect(response.json()).toHaveProperty('issues');
        }
        const after = await app.deps.db.selectFrom('auth_initial_access_tokens').select('id').execute();
        expect(after.length).toBe(before.length);
        const some = (await app.json<{ data: Token }>({ method: 'POST', url: '/initial-access-tokens', payload: { realmId: realmA } }, 201)).data;
        expect((await app.request({ method: 'POST', url: `/initial-access-tokens/${some.id}`, payload: { count: 50 } })).statusCode).toBe(404);
    });

    it('lets a realm administrator of B create, read and delete in B only: realm A is out of reach', async () => {
        const own = await app.request({ method: 'POST', url: '/initial-access-tokens', as: adminOfB, payload: {} });
        expect(own.statusCode, own.body).toBe(201);
        expect((own.json() as { data: Token }).data.realmId).toBe(realmB);

        const before = await app.deps.db.selectFrom('auth_initial_access_tokens').select('id').where('realm_id', '=', realmA).execute();
        expect((await app.request({ method: 'POST', url: '/initial-access-tokens', as: adminOfB, payload: { realmId: realmA } })).statusCode).toBe(403);
        expect((await app.request({ method: 'POST', url: `/realms/${realmA}/initial-access-tokens`, as: adminOfB, payload: {} })).statusCode).toBe(403);
        const after = await app.deps.db.selectFrom('auth_initial_access_tokens').select('id').where('realm_id', '=', realmA).execute();
        expect(after.length).toBe(before.length);

        const ofA = (await app.json<{ data: Token }>({ method: 'POST', url: '/initial-access-tokens', payload: { realmId: realmA } }, 201)).data;
        expect([403, 404]).toContain((await app.request({ method: 'GET', url: `/initial-access-tokens/${ofA.id}`, as: adminOfB })).statusCode);
        expect([403, 404]).toContain((await app.request({ method: 'DELETE', url: `/initial-access-tokens/${ofA.id}`, as: adminOfB })).statusCode);
        const listed = await app.json<{ data: Token[] }>({ method: 'GET', url: '/initial-access-tokens', as: adminOfB }, 200);
        expect(listed.data.every((token) => token.realmId === realmB)).toBe(true);
        expect(await app.deps.db.selectFrom('auth_initial_access_tokens').select('id').where('id', '=', ofA.id).executeTakeFirst()).toBeDefined();
    });

    it('needs its permission: a user without initial_access_token_create is refused', async () => {
        const user = await insertUser(app, realmA);
        expect((await app.request({ method: 'POST', url: '/initial-access-tokens', as: user.auth, payload: {} })).statusCode).toBe(403);
        expect(PermissionName.INITIAL_ACCESS_TOKEN_CREATE).toBe('initial_access_token_create');
    });
});
