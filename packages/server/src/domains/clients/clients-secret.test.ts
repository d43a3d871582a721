import { hash } from '@node-rs/bcrypt';
import { beforeAll, expect, it } from 'vitest';
import { createRealm } from '../../../test/actors.js';
import { useTestApp } from '../../../test/app.js';
import { describeEachDialect } from '../../../test/databases.js';
import { countRows } from '../../../test/identities.js';

type Client = Record<string, unknown> & { id: string; name: string };

describeEachDialect('clients: secret modes and rotation', (dialect) => {
    const app = useTestApp(dialect);
    let realmA: string;
    beforeAll(async () => {
        realmA = await createRealm(app, 'secrets-a');
    });

    const stored = async (id: string) => app.deps.db.selectFrom('auth_clients').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    const createClient = async (payload: Record<string, unknown>) =>
        (await app.json<{ data: Client }>({ method: 'POST', url: '/clients', payload: { realmId: realmA, ...payload } }, 201)).data;
    /** Basic with the client's id: 200 on its own @me when the secret is right */
    const authenticates = async (id: string, secret: string) =>
        (await app.request({ method: 'GET', url: '/clients/@me', as: app.basic(id, secret) })).statusCode === 200;

    it('stores a plain secret as sent (the default mode) and authenticates with it', async () => {
        const client = await createClient({ name: 'plain', secret: 'plain-secret' });
        expect(client).toMatchObject({ secretHashed: false, secretEncrypted: false });
        expect((await stored(client.id)).secret).toBe('plain-secret');
        expect(await authenticates(client.id, 'plain-secret')).toBe(true);
        expect(await authenticates(client.id, 'other')).toBe(false);
    });

    it('hashes a hashed secret with bcrypt and hashes a hash-like value', async () => {
        const hashed = await createClient({ name: 'hashed', secret: 'hashed-secret', secretHashed: true });
        expect(hashed.secretHashed).toBe(true);
        const row = await stored(hashed.id);
        expect(row.secret).toMatch(/^\$2[aby]\$04\$.{53}$/);
        expect(await authenticates(hashed.id, 'hashed-secret')).toBe(true);

        // spec Errors: a hash-like input is hashed like any other value
        const hashLike = '$2b$10$not-really-a-bcrypt-hash';
        const sha = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
        for (const [name, secret] of [['hash-like', hashLike], ['sha-like', sha]] as const) {
            const client = await createClient({ name, secret, secretHashed: true });
            const value = (await stored(client.id)).secret as string;
            expect(value).not.toBe(secret);
            expect(value).toMatch(/^\$2[aby]\$04\$/);
            expect(await authenticates(client.id, secret)).toBe(true);
        }
    });

    it('hashes a bcrypt value sent through the API like any other value on create, update and rotation (spec Errors "client secret hash-like input")', async () => {
        // spec Errors "client secret hash-like input": only provisioning files keep a bcrypt value verbatim
        const bcrypt = await hash('imported-secret', { cost: 4 });
        const installs = (id: string) => async () => {
            expect((await stored(id)).secret).not.toBe(bcrypt);
            expect(await authenticates(id, bcrypt)).toBe(true);
            expect(await authenticates(id, 'imported-secret')).toBe(false);
        };
        const created = await createClient({ name: 'imported', secret: bcrypt, secretHashed: true });
        await installs(created.id)();

        const encrypted = await createClient({ name: 'imported-upd', secret: 'first-secret', secretEncrypted: true });
        await app.json({ method: 'POST', url: `/clients/${encrypted.id}`, payload: { secret: bcrypt } }, 200);
        await installs(encrypted.id)();

        const rotated = await createClient({ name: 'imported-rot', secret: 'first-secret', secretHashed: true });
        const answer = await app.json<{ meta: { secret: string } }>({ method: 'POST', url: `/clients/${rotated.id}/secret`, payload: { secret: bcrypt, mode: 'hashed' } }, 200);
        expect(answer.meta.secret).toBe(bcrypt);
        await installs(rotated.id)();
    });

    it('encrypts an encrypted secret under the realm key, authenticates with it and decrypts it for allowed readers', async () => {
        const client = await createClient({ name: 'encrypted', secret: 'encrypted-secret', secretEncrypted: true });
        expect(client.secretEncrypted).toBe(true);
        const value = (await stored(client.id)).secret as string;
        expect(value.startsWith('enc:v1:')).toBe(true);
        expect(value).not.toContain('encrypted-secret');
        expect(await authenticates(client.id, 'encrypted-secret')).toBe(true);
        const read = await app.json<{ data: Client }>({ method: 'GET', url: `/clients/${client.id}?fields=%2Bsecret` }, 200);
        expect(read.data.secret).toBe('encrypted-secret');
        const self = await app.json<{ data: Client }>({ method: 'GET', url: '/clients/@me?fields=%2Bsecret', as: app.basic(client.id, 'encrypted-secret') }, 200);
        expect(self.data.secret).toBe('encrypted-secret');
    });

    it('refuses both flags together with 400 and writes nothing', async () => {
        const before = await countRows(app, 'auth_clients');
        const response = await app.request({ method: 'POST', url: '/clients', payload: { name: 'both', realmId: realmA, secret: 'x-secret', secretHashed: true, secretEncrypted: true } });
        expect(response.statusCode).toBe(400);
        expect(response.json().issues.length).toBeGreaterThan(0);
        expect(await countRows(app, 'auth_clients')).toBe(before);
    });

    it('ignores the flags on update; a plain client takes a secret, an encrypted one re-encrypts, a hashed one answers 400 naming the rotation route', async () => {
        const plain = await createClient({ name: 'upd-plain', secret: 'first-secret' });
        const updated = await app.json<{ data: Client }>({ method: 'POST', url: `/clients/${plain.id}`, payload: { secret: 'second-secret', secretHashed: true, secretEncrypted: false } }, 200);
        expect(updated.data).toMatchObject({ secretHashed: false, secretEncrypted: false });
        expect((await stored(plain.id)).secret).toBe('second-secret');

        const encrypted = await createClient({ name: 'upd-encrypted', secret: 'first-secret', secretEncrypted: true });
        await app.json({ method: 'POST', url: `/clients/${encrypted.id}`, payload: { secret: 'second-secret', secretEncrypted: false } }, 200);
        const row = await stored(encrypted.id);
        expect((row.secret as string).startsWith('enc:v1:')).toBe(true);
        expect(await authenticates(encrypted.id, 'second-secret')).toBe(true);

        const hashed = await createClient({ name: 'upd-hashed', secret: 'first-secret', secretHashed: true });
        const before = await stored(hashed.id);
        const refused = await app.request({ method: 'POST', url: `/clients/${hashed.id}`, payload: { secret: 'second-secret' } });
        expect(refused.statusCode).toBe(400);
        expect(refused.json().message).toContain('POST /clients/:id/secret');
        expect((await app.request({ method: 'PUT', url: `/clients/${hashed.id}`, payload: { name: 'upd-hashed', secret: 'x-secret' } })).statusCode).toBe(400);
        expect(await stored(hashed.id)).toEqual(before);
        // other members of a hashed client still update
        await app.json({ method: 'POST', url: `/clients/${hashed.id}`, payload: { displayName: 'Hashed' } }, 200);
    });

    it('rotates: returns the plaintext once, the new secret authenticates, the old fails, and records the event', async () => {
        const client = await createClient({ name: 'rotating', secret: 'old-secret', secretHashed: true });
        const rotated = await app.json<{ data: Client; meta: { secret: string } }>({ method: 'POST', url: `/clients/${client.id}/secret` }, 200);
        expect(rotated.data.id).toBe(client.id);
        expect(rotated.data).not.toHaveProperty('secret');
        expect(rotated.data.secretHashed).toBe(true);
        expect(rotated.meta.secret.length).toBeGreaterThanOrEqual(43);
        expect(await authenticates(client.id, rotated.meta.secret)).toBe(true);
        expect(await authenticates(client.id, 'old-secret')).toBe(false);
        // once: a later read never shows the plaintext of a hashed secret
        const read = await app.json<{ data: Client }>({ method: 'GET', url: `/clients/${client.id}?fields=%2Bsecret` }, 200);
        expect(read.data.secret).not.toBe(rotated.meta.secret);

        const events = await app.deps.db.selectFrom('auth_events').selectAll().where('ref_id', '=', client.id).where('name', '=', 'clientSecretRotated').execute();
        expect(events).toHaveLength(1);
        expect(events[0]).toMatchObject({ ref_type: 'client', realm_id: realmA, actor_type: 'user' });
        expect(events[0]!.data).not.toContain(rotated.meta.secret);
        expect(JSON.parse(events[0]!.data!)).toEqual({ mode: 'hashed', previousMode: 'hashed' });
    });

    it('rotates into a requested mode or by the default rule (a plaintext moves to encrypted)', async () => {
        const client = await createClient({ name: 'modes', secret: 'legacy-plaintext' });
        const toEncrypted = await app.json<{ data: Client; meta: { secret: string } }>({ method: 'POST', url: `/clients/${client.id}/secret`, payload: {} }, 200);
        expect(toEncrypted.data).toMatchObject({ secretEncrypted: true, secretHashed: false });
        expect(((await stored(client.id)).secret as string).startsWith('enc:v1:')).toBe(true);
        const kept = await app.json<{ data: Client; meta: { secret: string } }>({ method: 'POST', url: `/clients/${client.id}/secret`, payload: { secret: 'chosen-secret' } }, 200);
        expect(kept.meta.secret).toBe('chosen-secret');
        expect(kept.data.secretEncrypted).toBe(true);
        expect(await authenticates(client.id, 'chosen-secret')).toBe(true);
        const toPlain = await app.json<{ data: Client }>({ method: 'POST', url: `/clients/${client.id}/secret`, payload: { mode: 'plain', secret: 'plain-again' } }, 200);
        expect(toPlain.data).toMatchObject({ secretEncrypted: false, secretHashed: false });
        expect((await stored(client.id)).secret).toBe('plain-again');
        const toHashed = await app.json<{ data: Client; meta: { secret: string } }>({ method: 'POST', url: `/clients/${client.id}/secret`, payload: { mode: 'hashed' } }, 200);
        expect(toHashed.data.secretHashed).toBe(true);
        expect(await authenticates(client.id, toHashed.meta.secret)).toBe(true);
        // a public client gets its first secret the same way
        const publicClient = await createClient({ name: 'public' });
        const first = await app.json<{ meta: { secret: string } }>({ method: 'POST', url: `/clients/${publicClient.id}/secret` }, 200);
        expect(await authenticates(publicClient.id, first.meta.secret)).toBe(true);
    });

    it('refuses a malformed rotation body with 400 and an unknown client with 404', async () => {
        const client = await createClient({ name: 'rot-bad', secret: 'keep-secret' });
        const before = await stored(client.id);
        for (const payload of [{ mode: 'rot13' }, { secret: '' }, { secret: 's'.repeat(257) }, { secret: 5 }, { other: true }]) {
            const response = await app.request({ method: 'POST', url: `/clients/${client.id}/secret`, payload });
            expect(response.statusCode, JSON.stringify(payload)).toBe(400);
            expect(response.json().issues.length).toBeGreaterThan(0);
        }
        expect(await stored(client.id)).toEqual(before);
        expect((await app.request({ method: 'POST', url: '/clients/00000000-0000-4000-8000-000000000000/secret' })).statusCode).toBe(404);
        // @me/secret for a user caller: no client is the caller
        expect((await app.request({ method: 'POST', url: '/clients/@me/secret' })).statusCode).toBe(404);
    });
});
