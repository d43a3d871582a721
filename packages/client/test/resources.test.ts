import { randomUUID } from 'node:crypto';
import { ErrorCode } from '@realmgate/core';
import { afterAll, beforeAll, expect, expectTypeOf, it } from 'vitest';
import { ADMIN, type TestApp } from '../../server/test/app.js';
import { describeEachDialect } from '../../server/test/databases.js';
import { basicAuth, COLLECTIONS, createClient, type RealmgateClient } from '../src/index.js';
import { caught, startListening } from './listening.js';

/*
 * The resource namespaces against the real server: list, get, create, update, delete of a
 * collection, the writes a read-only collection lacks, and the page iterator over more than one
 * page of real users following page[limit]/page[offset] and the total.
 */

describeEachDialect('client kit: resource namespaces and the page iterator', (dialect) => {
    let app: TestApp;
    let admin: RealmgateClient;
    let realmId: string;
    beforeAll(async () => {
        const started = await startListening(dialect);
        app = started.app;
        admin = createClient({ baseUrl: started.url, auth: basicAuth(ADMIN.name, ADMIN.password) });
        realmId = (await admin.realms.create({ name: `ns-${randomUUID().slice(0, 8)}` })).data.id;
    });
    afterAll(async () => app?.dispose());

    it('has a namespace per administered collection of the route table', () => {
        expect(Object.keys(COLLECTIONS)).toEqual(expect.arrayContaining(['users', 'clients', 'roles', 'permissions', 'realms', 'rolePermissions', 'events']));
        for (const name of Object.keys(COLLECTIONS)) {
            const namespace = (admin as unknown as Record<string, Record<string, unknown>>)[name]!;
            expect(typeof namespace.list, name).toBe('function');
            expect(typeof namespace.iterate, name).toBe('function');
        }
        // the event log is written by the server only: no writes in its namespace
        expect('create' in admin.events).toBe(false);
    });

    it('users: create, get, update, list with a filter, delete — records typed with their required members', async () => {
        const name = `ada-${randomUUID().slice(0, 6)}`;
        const created = (await admin.users.create({ name, realmId, password: 'namespace-secret-1' })).data;
        expectTypeOf(created.id).toEqualTypeOf<string>();
        expectTypeOf(created.name).toEqualTypeOf<string>();
        expectTypeOf(created.displayName).toEqualTypeOf<string | null>();
        expect(created).toMatchObject({ id: expect.any(String), name, realmId, active: true });
        expect((await admin.users.get(created.id)).data.name).toBe(name);
        // a projection narrows the record to the members it names (API.md §2)
        const projected = (await admin.users.get(created.id, { query: { fields: ['name'] } })).data;
        expectTypeOf(projected).toEqualTypeOf<{ name: string }>();
        expect(projected).toEqual({ name });
        // `+name` adds a withheld member to the default read
        const withEmail = (await admin.users.list({ filter: { realmId, name }, fields: ['+email'] })).data[0]!;
        expectTypeOf(withEmail.id).toEqualTypeOf<string>();
        expect(withEmail).toMatchObject({ id: created.id, email: null });
        expect((await admin.users.update(created.id, { displayName: 'Ada' })).data.displayName).toBe('Ada');
        const page = await admin.users.list({ filter: { realmId, name } });
        expect(page.meta.total).toBe(1);
        expect(page.data[0]!.id).toBe(created.id);
        expect((await admin.users.delete(created.id)).data.id).toBe(created.id);
        expect(await caught(admin.users.get(created.id))).toMatchObject({ statusCode: 404, code: ErrorCode.ENTITY_NOT_FOUND });
    });

    it('iterates every row over several pages, following page[limit]/page[offset] and the total', async () => {
        const names = Array.from({ length: 7 }, (_, index) => `it-${index}-${randomUUID().slice(0, 6)}`);
        for (const name of names) await admin.users.create({ name, realmId, password: 'iterate-secret-1' });
        const requests: string[] = [];
        const counting = createClient({
            baseUrl: admin.baseUrl, auth: basicAuth(ADMIN.name, ADMIN.password),
            fetch: (input, init) => {
                requests.push(String(input));
                return fetch(input, init);
            },
        });
        const seen: string[] = [];
        for await (const user of counting.users.iterate({ filter: { realmId }, sort: ['name'], page: { limit: 3 } })) {
            expectTypeOf(user.name).toEqualTypeOf<string>();
            seen.push(user.name);
        }
        expect(seen).toEqual([...names].sort());
        // 7 rows, 3 a page: offsets 0, 3, 6 and no request past the total
        expect(requests.map((url) => new URL(url).searchParams.get('page[offset]'))).toEqual(['0', '3', '6']);
        // a loop may stop early: no further page is fetched
        requests.length = 0;
        for await (const user of counting.users.iterate({ filter: { realmId }, fields: ['id', 'realmId'], page: { limit: 2 } })) {
            expectTypeOf(user).toEqualTypeOf<{ id: string; realmId: string }>();
            expect(user.realmId).toBe(realmId);
            break;
        }
        expect(requests).toHaveLength(1);
    });

    it('iterating an empty result asks once', async () => {
        const rows: unknown[] = [];
        for await (const row of admin.users.iterate({ filter: { realmId, name: 'nobody-has-this-name' } })) rows.push(row);
        expect(rows).toEqual([]);
    });
});
