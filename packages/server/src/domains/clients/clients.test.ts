import { randomUUID } from 'node:crypto';
import { beforeAll, expect, it } from 'vitest';
import { createRealm } from '../../../test/actors.js';
import { useTestApp } from '../../../test/app.js';
import { describeEachDialect } from '../../../test/databases.js';
import { countRows, createClient } from '../../../test/identities.js';
import { DEVICE_CODE_GRANT_TYPE as DEVICE_CODE_GRANT } from '@realmgate/core';

type Client = Record<string, unknown> & { id: string; name: string };

describeEachDialect('clients: fields', (dialect) => {
    const app = useTestApp(dialect);
    let realmA: string;
    let realmB: string;
    beforeAll(async () => {
        realmA = await createRealm(app, 'clients-a');
        realmB = await createRealm(app, 'clients-b');
    });

    const stored = async (id: string) => app.deps.db.selectFrom('auth_clients').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    const create = (payload: Record<string, unknown>) => app.request({ method: 'POST', url: '/clients', payload: { realmId: realmA, ...payload } });

    it('creates, reads by name, updates and deletes a client; a create without secret is a public client', async () => {
        const created = await app.json<{ data: Client; meta: Record<string, unknown> }>({
            method: 'POST', url: '/clients', payload: { name: 'spa', realmId: realmA, displayName: 'SPA', redirectUri: 'https://app.example.com/cb http://localhost:3000/cb' },
        }, 201);
        expect(created.data).toMatchObject({ name: 'spa', active: true, builtIn: false, secretHashed: false, secretEncrypted: false, grantTypes: null });
        expect(created.data).not.toHaveProperty('secret');
        expect(created.meta).toEqual({});
        expect((await stored(created.data.id)).secret).toBeNull();
        const byName = await app.json<{ data: Client }>({ method: 'GET', url: '/realms/clients-a/clients/spa' }, 200);
        expect(byName.data.id).toBe(created.data.id);
        const updated = await app.json<{ data: Client }>({ method: 'POST', url: `/clients/${created.data.id}`, payload: { description: 'single page' } }, 200);
        expect(updated.data.description).toBe('single page');
        await app.json({ method: 'DELETE', url: `/clients/${created.data.id}` }, 200);
        expect((await app.request({ method: 'GET', url: `/clients/${created.data.id}` })).statusCode).toBe(404);
    });

    it('keeps grantTypes null (every grant but the device code) and accepts only known grant names', async () => {
        const device = await app.json<{ data: Client }>({ method: 'POST', url: '/clients', payload: { name: 'tv', realmId: realmA, grantTypes: [DEVICE_CODE_GRANT, 'refresh_token'] } }, 201);
        expect(device.data.grantTypes).toEqual([DEVICE_CODE_GRANT, 'refresh_token']);
        const cleared = await app.json<{ data: Client }>({ method: 'POST', url: `/clients/${device.data.id}`, payload: { grantTypes: null } }, 200);
        expect(cleared.data.grantTypes).toBeNull();
        const unknown = await create({ name: 'bad-grants', grantTypes: ['client_credentials', 'implicit'] });
        expect(unknown.statusCode).toBe(400);
        expect(unknown.json().issues[0].path).toEqual(['grantTypes', 1]);
        expect((await create({ name: 'bad-grants', grantTypes: 'password' })).statusCode).toBe(400);
    });

    it('takes one absolute http(s) backchannelLogoutUri: no wildcard, no list', async () => {
        const ok = await app.json<{ data: Client }>({ method: 'POST', url: '/clients', payload: { name: 'rp', realmId: realmA, backchannelLogoutUri: 'https://rp.example.com/logout?x=1' } }, 201);
        expect(ok.data.backchannelLogoutUri).toBe('https://rp.example.com/logout?x=1');
        for (const value of ['https://*.example.com/logout', 'https://a.example.com/l https://b.example.com/l', '/relative', 'ftp://rp.example.com/l', 'custom:logout', 'https://rp.example.com/l#frag']) {
            const response = await app.request({ method: 'POST', url: `/clients/${ok.data.id}`, payload: { backchannelLogoutUri: value } });
            expect(response.statusCode, value).toBe(400);
            expect(response.json().issues[0].path).toEqual(['backchannelLogoutUri']);
        }
        expect((await stored(ok.data.id)).backchannel_logout_uri).toBe('https://rp.example.com/logout?x=1');
    });

    // RFC 8252 §7.1 (private-use schemes hold a period), §7.3 / §8.3 (plain http only to loopback);
    // RFC 9700 §4.1: a redirect target that runs script in the browser is never a redirect URI
    it('takes https, http on loopback and private-use reverse-domain schemes; refuses script, data, file and other schemes', async () => {
        const good = await app.json<{ data: Client }>({
            method: 'POST', url: '/clients', payload: {
                name: 'schemes-ok', realmId: realmA, baseUrl: 'https://app.example.com',
                redirectUri: 'https://app.example.com/cb http://127.0.0.1:8080/cb http://[::1]:8080/cb http://localhost/cb com.example.app:/oauth2redirect',
                postLogoutRedirectUri: 'https://app.example.com/bye com.example.app:/bye',
            },
        }, 201);
        const bad = [
            'javascript:alert(1)', 'JavaScript://example.com/%0aalert(1)', 'data:text/html,<script>alert(1)</script>', 'vbscript:msgbox(1)',
            'file:///etc/passwd', 'http://app.example.com/cb', 'myapp://cb', 'ftp://app.example.com/cb', 'blob:https://app.example.com/x',
        ];
        for (const field of ['redirectUri', 'postLogoutRedirectUri', 'baseUrl'] as const) {
            for (const value of bad) {
                const created = await create({ name: `schemes-${randomUUID().slice(0, 8)}`, [field]: value });
                expect(created.statusCode, `${field} ${value}`).toBe(400);
                expect(created.json().issues.map((item: { path: unknown[] }) => item.path[0]), `${field} ${value}`).toContain(field);
                const updated = await app.request({ method: 'POST', url: `/clients/${good.data.id}`, payload: { [field]: value } });
                expect(updated.statusCode, `${field} ${value}`).toBe(400);
            }
        }
        const row = await stored(good.data.id);
        expect(row.base_url).toBe('https://app.example.com');
        expect(row.redirect_uri).toContain('com.example.app:/oauth2redirect');
    });

    it('takes redirect URIs as a space-separated list of exact absolute URIs', async () => {
        const native = await app.json<{ data: Client }>({ method: 'POST', url: '/clients', payload: { name: 'native', realmId: realmA, redirectUri: 'com.example.app:/cb', postLogoutRedirectUri: 'https://app.example.com/bye' } }, 201);
        expect(native.data.redirectUri).toBe('com.example.app:/cb');
        for (const redirectUri of ['https://app.example.com/*', 'relative/cb', 'https://a.example.com/cb#x', '   ']) {
            const response = await create({ name: 'bad-redirect', redirectUri });
            expect(response.statusCode, redirectUri).toBe(400);
        }
        expect((await create({ name: 'bad-redirect', postLogoutRedirectUri: 'https://ok.example.com/ *' })).statusCode).toBe(400);
    });

    it('strips scope and rootUrl silently on create and update', async () => {
        const created = await app.json<{ data: Client }>({ method: 'POST', url: '/clients', payload: { name: 'legacy', realmId: realmA, scope: 'openid email', rootUrl: 'https://legacy.example.com' } }, 201);
        expect(created.data).not.toHaveProperty('scope');
        expect(created.data).not.toHaveProperty('rootUrl');
        await app.json({ method: 'POST', url: `/clients/${created.data.id}`, payload: { scope: 'x', rootUrl: 'y', displayName: 'Legacy' } }, 200);
    });

    it('accepts accessPolicyId naming a global policy or one of the client\'s realm only', async () => {
        const global = await app.deps.db.selectFrom('auth_policies').select('id').where('name', '=', 'system.default').executeTakeFirstOrThrow();
        const client = await app.json<{ data: Client }>({ method: 'POST', url: '/clients', payload: { name: 'guarded', realmId: realmA, accessPolicyId: global.id } }, 201);
        expect(client.data.accessPolicyId).toBe(global.id);
        const [inA, inB] = await Promise.all([realmA, realmB].map(async (realmId) => {
            const id = randomUUID();
            const now = new Date();
            const at = dialect === 'sqlite' ? now.toISOString() : now;
            await app.deps.db.insertInto('auth_policies').values({
                id, type: 'identity', name: `policy-${id.slice(0, 8)}`, display_name: null, description: null, invert: dialect === 'postgres' ? false : 0,
                config: '{}', parent_id: null, realm_id: realmId, built_in: dialect === 'postgres' ? false : 0, created_at: at, updated_at: at,
            }).execute();
            return id;
        }));
        await app.json({ method: 'POST', url: `/clients/${client.data.id}`, payload: { accessPolicyId: inA } }, 200);
        const foreign = await app.request({ method: 'POST', url: `/clients/${client.data.id}`, payload: { accessPolicyId: inB } });
        expect(foreign.statusCode).toBe(400);
        expect(foreign.json().issues[0].path).toEqual(['accessPolicyId']);
        expect((await create({ name: 'guarded-b', accessPolicyId: inB })).statusCode).toBe(400);
        expect((await create({ name: 'guarded-b', accessPolicyId: randomUUID() })).statusCode).toBe(400);
        expect((await stored(client.data.id)).access_policy_id).toBe(inA);
    });

    it('files a client into a folder of its realm only and keeps it in its realm', async () => {
        const folderB = await app.json<{ data: { id: string } }>({ method: 'POST', url: '/paths', payload: { name: 'apps', realmId: realmB } }, 201);
        expect((await create({ name: 'filed', pathId: folderB.data.id })).statusCode).toBe(400);
        const client = await createClient(app, realmA, 'stays');
        expect((await app.request({ method: 'POST', url: `/clients/${client.id}`, payload: { realmId: realmB } })).statusCode).toBe(400);
        expect((await stored(client.id)).realm_id).toBe(realmA);
    });

    it('answers 400 with issues for missing, wrong-typed, oversized and unknown members, writing nothing', async () => {
        const before = await countRows(app, 'auth_clients');
        const bodies: Record<string, unknown>[] = [
            {},
            { name: ['x'] },
            { name: 'n'.repeat(129) },
            { name: 'ok', secret: 's'.repeat(257) },
            { name: 'ok', secret: 7 },
            { name: 'ok', unknownMember: true },
            { name: 'ok', secretHashed: 'yes' },
            { name: 'ok', secretHashed: true, secretEncrypted: true, secret: 'two-modes' },
            { name: 'ok', grantTypes: ['password', 'password'] },
            { name: 'ok', baseUrl: 'u'.repeat(2049) },
            { name: 'ok', accessPolicyId: 'not-a-uuid' },
            { name: 'a:b' },
        ];
        for (const payload of bodies) {
            const response = await create(payload);
            expect(response.statusCode, JSON.stringify(payload).slice(0, 80)).toBe(400);
            expect(response.json().issues?.length, JSON.stringify(payload).slice(0, 80)).toBeGreaterThan(0);
        }
        expect(await countRows(app, 'auth_clients')).toBe(before);

        const client = await createClient(app, realmA, 'untouched');
        const snapshot = await stored(client.id);
        for (const payload of [{ active: 'no' }, { redirectUri: 5 }, { bogus: 1 }, { grantTypes: ['nope'] }, { secretHashed: true, secretEncrypted: true }]) {
            const response = await app.request({ method: 'POST', url: `/clients/${client.id}`, payload });
            expect(response.statusCode, JSON.stringify(payload)).toBe(400);
            expect(response.json().issues?.length).toBeGreaterThan(0);
        }
        expect(await stored(client.id)).toEqual(snapshot);
    });
});
