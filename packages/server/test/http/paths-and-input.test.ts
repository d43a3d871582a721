import { beforeAll, expect, it } from 'vitest';
import { createActor, createRealm } from '../actors.js';
import { useTestApp } from '../app.js';
import { describeEachDialect } from '../databases.js';

type Record = { id: string; name: string; realmId: string | null; parentId?: string | null };

describeEachDialect('paths and bad input on every core collection', (dialect) => {
    const app = useTestApp(dialect);
    let realmA: string;
    let realmB: string;
    beforeAll(async () => {
        realmA = await createRealm(app, 'realm-a');
        realmB = await createRealm(app, 'realm-b');
    });

    it('builds a folder tree within one realm and refuses a foreign parent or a cycle', async () => {
        const root = (await app.json<{ data: Record }>({ method: 'POST', url: '/paths', payload: { name: 'sources', realmId: realmA } }, 201)).data;
        const child = (await app.json<{ data: Record }>({ method: 'POST', url: '/paths', payload: { name: 'github', realmId: realmA, parentId: root.id } }, 201)).data;
        expect(child.parentId).toBe(root.id);
        expect((await app.request({ method: 'POST', url: '/paths', payload: { name: 'x', realmId: realmB, parentId: root.id } })).statusCode).toBe(400);
        expect((await app.request({ method: 'POST', url: `/paths/${root.id}`, payload: { parentId: child.id } })).statusCode).toBe(400);
        expect((await app.request({ method: 'POST', url: '/paths', payload: { name: 'a/b', realmId: realmA } })).statusCode).toBe(400);
    });

    it('gates paths on the PATH_* permissions with realm reach', async () => {
        const foreign = (await app.json<{ data: Record }>({ method: 'POST', url: '/paths', payload: { name: 'theirs', realmId: realmB } }, 201)).data;
        const own = (await app.json<{ data: Record }>({ method: 'POST', url: '/paths', payload: { name: 'mine', realmId: realmA } }, 201)).data;
        const actor = await createActor(app, realmA, [{ permission: 'path_read', scope: 'own' }]);
        expect((await app.request({ method: 'GET', url: `/paths/${own.id}`, as: actor.header })).statusCode).toBe(200);
        expect((await app.request({ method: 'GET', url: `/paths/${foreign.id}`, as: actor.header })).statusCode).toBe(403);
        const list = await app.json<{ data: Record[] }>({ method: 'GET', url: '/paths', as: actor.header }, 200);
        expect(list.data.every((row) => row.realmId === realmA)).toBe(true);
        const none = await createActor(app, realmA, []);
        expect((await app.request({ method: 'GET', url: `/paths/${own.id}`, as: none.header })).statusCode).toBe(403);
        expect((await app.json<{ meta: { total: number } }>({ method: 'GET', url: '/paths', as: none.header }, 200)).meta.total).toBe(0);
    });

    it('answers 401 with WWW-Authenticate without credentials and 404 on an unknown realm mount', async () => {
        const response = await app.request({ method: 'GET', url: '/roles', as: null });
        expect(response.statusCode).toBe(401);
        expect(response.headers['www-authenticate']).toMatch(/^Basic/);
        expect((await app.request({ method: 'GET', url: '/realms/nope/roles' })).statusCode).toBe(404);
        // an anonymous caller learns nothing about which realms exist
        expect((await app.request({ method: 'GET', url: '/realms/nope/roles', as: null })).statusCode).toBe(401);
        expect((await app.request({ method: 'GET', url: '/roles/@nope' })).statusCode).toBe(400);
    });

    for (const collection of ['realms', 'roles', 'permissions', 'scopes', 'paths']) {
        it(`${collection}: missing, wrong-typed, oversized and unknown members answer 400 with issues and write nothing`, async () => {
            const table = `auth_${collection}` as 'auth_roles';
            const count = async () => Number((await app.deps.db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
            const before = await count();
            const valid = { name: `valid-${collection}` };
            const bad: unknown[] = [{}, { name: 42 }, { name: 'x'.repeat(300) }, { ...valid, unknownMember: 1 }, { ...valid, displayName: ['a'] }, [], 'text'];
            for (const payload of bad) {
                const response = await app.request({ method: 'POST', url: `/${collection}`, payload: payload as object });
                expect(response.statusCode, JSON.stringify(payload)).toBe(400);
                expect(response.json().code).toBe('bad_request');
            }
            expect(await count()).toBe(before);
            const target = (await app.json<{ data: Record }>({ method: 'POST', url: `/${collection}`, payload: { ...valid, ...(collection === 'realms' ? {} : { realmId: realmA }) } }, 201)).data;
            for (const payload of [{ name: 7 }, { bogus: true }, { name: '' }]) {
                const response = await app.request({ method: 'POST', url: `/${collection}/${target.id}`, payload });
                expect(response.statusCode, JSON.stringify(payload)).toBe(400);
                expect(response.json().issues.length).toBeGreaterThan(0);
            }
            const stored = await app.deps.db.selectFrom(table).select('name').where('id', '=', target.id).executeTakeFirstOrThrow();
            expect(stored.name).toBe(valid.name);
        });
    }
    it('answers 400 to a filter list longer than the databases bind (40,000 values were a 500 on SQLite, 70,000 on PostgreSQL)', async () => {
        const list = Array.from({ length: 70_000 }, (_, index) => `v${index}`).join(',');
        for (const url of [`/users?filter[name]=${list}`, `/sessions?filter[ipAddress]=${list}`, `/roles?filter[realm.name]=${list}`]) {
            const response = await app.request({ method: 'GET', url });
            expect(response.statusCode, url.slice(0, 30)).toBe(400);
            expect((response.json() as { issues: { code: string }[] }).issues[0]?.code).toBe('invalid_filter');
        }
        expect((await app.request({ method: 'GET', url: `/users?filter[name]=${list.split(',').slice(0, 1_000).join(',')}` })).statusCode).toBe(200);
    });
});
