import { randomUUID } from 'node:crypto';
import { beforeAll, expect, it } from 'vitest';
import { createRealm } from '../../../test/actors.js';
import { useTestApp } from '../../../test/app.js';
import { describeEachDialect } from '../../../test/databases.js';
import { countRows, createClient, createUser } from '../../../test/identities.js';

type User = Record<string, unknown> & { id: string; name: string };

describeEachDialect('users', (dialect) => {
    const app = useTestApp(dialect);
    let realmA: string;
    let realmB: string;
    beforeAll(async () => {
        realmA = await createRealm(app, 'users-a');
        realmB = await createRealm(app, 'users-b');
    });

    const stored = async (id: string) => app.deps.db.selectFrom('auth_users').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

    it('creates a user with a bcrypt password that authenticates via Basic and never leaves the server', async () => {
        const created = await app.json<{ data: User }>({
            method: 'POST', url: '/users', payload: { name: 'alice', realmId: realmA, password: 'alice-pw', email: 'alice@example.com', firstName: 'Alice' },
        }, 201);
        expect(created.data).toMatchObject({ name: 'alice', realmId: realmA, nameLocked: true, emailVerified: false, active: true, firstName: 'Alice', pathId: null });
        for (const hidden of ['password', 'email', 'resetHash', 'activateHash']) expect(created.data).not.toHaveProperty(hidden);
        const row = await stored(created.data.id);
        expect(row.password).toMatch(/^\$2[aby]\$04\$/);
        expect((await app.request({ method: 'GET', url: '/users/@me', as: app.basic(created.data.id, 'alice-pw') })).statusCode).toBe(200);
        expect((await app.request({ method: 'GET', url: '/users/@me', as: app.basic(created.data.id, 'wrong-pw') })).statusCode).toBe(401);

        const read = await app.json<{ data: User }>({ method: 'GET', url: `/users/${created.data.id}` }, 200);
        const list = await app.json<{ data: User[] }>({ method: 'GET', url: `/users?filter[realmId]=${realmA}&fields=%2Bemail` }, 200);
        const events = await app.deps.db.selectFrom('auth_events').select('data').where('ref_id', '=', created.data.id).execute();
        for (const text of [JSON.stringify(read), JSON.stringify(list), ...events.map((event) => event.data ?? '')]) {
            expect(text).not.toContain(row.password as string);
        }
        // spec Events 5: no withheld column (email) in any event
        for (const event of events) expect(event.data).not.toContain('alice@example.com');
    });

    it('withholds email from default reads and projects it with fields=+email for the admin', async () => {
        const user = await createUser(app, realmA, 'bob', { email: 'bob@example.com' });
        const plain = await app.json<{ data: User }>({ method: 'GET', url: `/users/${user.id}` }, 200);
        expect(plain.data).not.toHaveProperty('email');
        const withEmail = await app.json<{ data: User }>({ method: 'GET', url: `/users/${user.id}?fields=%2Bemail` }, 200);
        expect(withEmail.data.email).toBe('bob@example.com');
        const byName = await app.json<{ data: User }>({ method: 'GET', url: '/realms/users-a/users/bob' }, 200);
        expect(byName.data.id).toBe(user.id);
        const included = await app.json<{ data: User & { realm: { name: string } } }>({ method: 'GET', url: `/users/${user.id}?include=realm` }, 200);
        expect(included.data.realm.name).toBe('users-a');
    });

    it('clears emailVerified when the email changes, unless the same update sets it', async () => {
        const user = await createUser(app, realmA, 'carol', { email: 'carol@example.com', emailVerified: true });
        expect((await app.json<{ data: User }>({ method: 'GET', url: `/users/${user.id}` }, 200)).data.emailVerified).toBe(true);
        const unchanged = await app.json<{ data: User }>({ method: 'POST', url: `/users/${user.id}`, payload: { email: 'carol@example.com' } }, 200);
        expect(unchanged.data.emailVerified).toBe(true);
        const changed = await app.json<{ data: User }>({ method: 'POST', url: `/users/${user.id}`, payload: { email: 'carol@new.example.com' } }, 200);
        expect(changed.data.emailVerified).toBe(false);
        const explicit = await app.json<{ data: User }>({ method: 'POST', url: `/users/${user.id}`, payload: { email: 'carol@third.example.com', emailVerified: true } }, 200);
        expect(explicit.data.emailVerified).toBe(true);
        const admin = await app.json<{ data: User }>({ method: 'POST', url: `/users/${user.id}`, payload: { emailVerified: false } }, 200);
        expect(admin.data.emailVerified).toBe(false);
    });

    it('refuses a rename while nameLocked is true and allows it when unlocked', async () => {
        const user = await createUser(app, realmA, 'dave');
        const locked = await app.request({ method: 'POST', url: `/users/${user.id}`, payload: { name: 'david' } });
        expect(locked.statusCode).toBe(400);
        expect(locked.json().issues[0].path).toEqual(['name']);
        expect((await stored(user.id)).name).toBe('dave');
        const renamed = await app.json<{ data: User }>({ method: 'POST', url: `/users/${user.id}`, payload: { name: 'david', nameLocked: false } }, 200);
        expect(renamed.data).toMatchObject({ name: 'david', nameLocked: false });
        await app.json({ method: 'POST', url: `/users/${user.id}`, payload: { name: 'dave' } }, 200);
    });

    it('changes the password through an update: the new one authenticates, the old one fails', async () => {
        const user = await createUser(app, realmA, 'erin');
        await app.json({ method: 'POST', url: `/users/${user.id}`, payload: { password: 'erin-new-pw' } }, 200);
        expect((await app.request({ method: 'GET', url: '/users/@me', as: app.basic(user.id, 'erin-new-pw') })).statusCode).toBe(200);
        expect((await app.request({ method: 'GET', url: '/users/@me', as: user.header })).statusCode).toBe(401);
    });

    it('accepts pathId only for a folder of the user\'s realm', async () => {
        const folderA = await app.json<{ data: { id: string } }>({ method: 'POST', url: '/paths', payload: { name: 'staff', realmId: realmA } }, 201);
        const folderB = await app.json<{ data: { id: string } }>({ method: 'POST', url: '/paths', payload: { name: 'staff', realmId: realmB } }, 201);
        const filed = await app.json<{ data: User }>({ method: 'POST', url: '/users', payload: { name: 'frank', realmId: realmA, pathId: folderA.data.id } }, 201);
        expect(filed.data.pathId).toBe(folderA.data.id);
        const before = await countRows(app, 'auth_users');
        const foreign = await app.request({ method: 'POST', url: '/users', payload: { name: 'grace', realmId: realmA, pathId: folderB.data.id } });
        expect(foreign.statusCode).toBe(400);
        expect(foreign.json().issues[0].path).toEqual(['pathId']);
        const missing = await app.request({ method: 'POST', url: '/users', payload: { name: 'grace', realmId: realmA, pathId: randomUUID() } });
        expect(missing.statusCode).toBe(400);
        expect(await countRows(app, 'auth_users')).toBe(before);
        expect((await app.request({ method: 'POST', url: `/users/${filed.data.id}`, payload: { pathId: folderB.data.id } })).statusCode).toBe(400);
        expect((await stored(filed.data.id)).path_id).toBe(folderA.data.id);
        const unfiled = await app.json<{ data: User }>({ method: 'POST', url: `/users/${filed.data.id}`, payload: { pathId: null } }, 200);
        expect(unfiled.data.pathId).toBeNull();
    });

    it('keeps a user in its realm and its name unique per realm', async () => {
        const user = await createUser(app, realmA, 'heidi');
        expect((await app.request({ method: 'POST', url: `/users/${user.id}`, payload: { realmId: realmB } })).statusCode).toBe(400);
        expect((await stored(user.id)).realm_id).toBe(realmA);
        expect((await app.request({ method: 'POST', url: '/users', payload: { name: 'heidi', realmId: realmA } })).statusCode).toBe(409);
        await app.json({ method: 'POST', url: '/users', payload: { name: 'heidi', realmId: realmB } }, 201);
    });

    it('answers GET /users/@me with the caller, and 404 for a client caller', async () => {
        const user = await createUser(app, realmA, 'ivan', { email: 'ivan@example.com' });
        const me = await app.json<{ data: User }>({ method: 'GET', url: '/users/@me?fields=%2Bemail', as: user.header }, 200);
        expect(me.data).toMatchObject({ id: user.id, name: 'ivan', email: 'ivan@example.com' });
        const client = await createClient(app, realmA);
        const asClient = await app.request({ method: 'GET', url: '/users/@me', as: client.header });
        expect(asClient.statusCode).toBe(404);
        expect(asClient.json().code).toBe('entity_not_found');
        expect((await app.request({ method: 'GET', url: '/users/@me', as: null })).statusCode).toBe(401);
    });

    it('deletes a user with its attributes (database cascade)', async () => {
        const user = await createUser(app, realmA);
        await app.json({ method: 'POST', url: '/user-attributes', payload: { userId: user.id, name: 'team', value: 'blue' } }, 201);
        const deleted = await app.json<{ data: User }>({ method: 'DELETE', url: `/users/${user.id}` }, 200);
        expect(deleted.data.id).toBe(user.id);
        expect(deleted.data).not.toHaveProperty('password');
        const attributes = await app.deps.db.selectFrom('auth_user_attributes').select('id').where('user_id', '=', user.id).execute();
        expect(attributes).toEqual([]);
        expect((await app.request({ method: 'GET', url: `/users/${user.id}` })).statusCode).toBe(404);
    });

    it('answers 400 with issues for missing, wrong-typed, oversized and unknown members, writing nothing', async () => {
        const before = await countRows(app, 'auth_users');
        // entries written beside earlier requests (sign-ins) land first: only this test's writes count below
        await app.deps.events.settled();
        const events = await countRows(app, 'auth_events');
        const bodies: Record<string, unknown>[] = [
            {},
            { realmId: realmA },
            { name: 42, realmId: realmA },
            { name: 'x'.repeat(129), realmId: realmA },
            { name: 'ok-name', realmId: realmA, bogus: 1 },
            { name: 'ok-name', realmId: realmA, password: 'abc' },
            { name: 'ok-name', realmId: realmA, password: 'p'.repeat(513) },
            { name: 'ok-name', realmId: realmA, email: 'not-an-address' },
            { name: 'ok-name', realmId: realmA, active: 'yes' },
            { name: 'ok-name', realmId: realmA, emailVerified: 1 },
            { name: 'has:colon', realmId: realmA },
            { name: '@reserved', realmId: realmA },
            { name: randomUUID(), realmId: realmA },
            { name: 'ok-name', realmId: 'not-a-uuid' },
            { name: 'ok-name', realmId: realmA, statusMessage: 's'.repeat(256) },
        ];
        for (const payload of bodies) {
            const response = await app.request({ method: 'POST', url: '/users', payload });
            expect(response.statusCode, JSON.stringify(payload).slice(0, 80)).toBe(400);
            expect(response.json().issues?.length, JSON.stringify(payload).slice(0, 80)).toBeGreaterThan(0);
        }
        expect(await countRows(app, 'auth_users')).toBe(before);

        const user = await createUser(app, realmA, 'judy');
        const snapshot = await stored(user.id);
        for (const payload of [{ name: 7 }, { firstName: 'f'.repeat(256) }, { unknown: true }, { password: 'abc' }, { active: null }, { nameLocked: 'no' }]) {
            const response = await app.request({ method: 'POST', url: `/users/${user.id}`, payload });
            expect(response.statusCode, JSON.stringify(payload)).toBe(400);
            expect(response.json().issues?.length).toBeGreaterThan(0);
        }
        expect(await stored(user.id)).toEqual(snapshot);
        await app.deps.events.settled();
        expect(await countRows(app, 'auth_events')).toBe(events + 1);
    });
});
