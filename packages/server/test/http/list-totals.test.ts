import type { CompiledQuery } from 'kysely';
import { beforeAll, expect, it } from 'vitest';
import { useTestApp } from '../app.js';
import { describeEachDialect } from '../databases.js';
import { createRealm } from '../grant-fixtures.js';

/*
 * On PostgreSQL and MySQL a list read with its exact total (API.md §1
 * `meta.total`) is one statement — `count(*) over ()` carries the total on every row of the page —
 * and a COUNT runs only when the page comes back empty past the first row. SQLite, in process,
 * keeps the page and a COUNT (storage/resource/list.ts says why). The totals are those of the rows
 * the caller may read, on every dialect. Statements are observed on the real driver's executor.
 */

type Page = { data: { id: string; name: string }[]; meta: { total: number; limit: number; offset: number } };

describeEachDialect('list reads: rows and exact total in one statement on the server dialects', (dialect) => {
    const app = useTestApp(dialect);
    let realm: string;
    const names = ['ant', 'bee', 'cat', 'dog', 'eel'];

    beforeAll(async () => {
        realm = await createRealm(app);
        for (const name of names) await app.json({ method: 'POST', url: '/users', payload: { name: `${name}-${dialect}`, realmId: realm } }, 201);
    });

    /** the page, and the statements of the request that counted rows (a window or a plain COUNT) */
    /** [window statements, COUNT statements] a list read sends on this dialect */
    const expected = (countAlso: boolean): [number, number] => (dialect === 'sqlite' ? [0, 1] : [1, countAlso ? 1 : 0]);
    const listed = async (query: string): Promise<{ page: Page; windows: number; counts: number }> => {
        const statements: string[] = [];
        const executor = Object.getPrototypeOf(Object.getPrototypeOf(app.deps.db.getExecutor())) as { executeQuery: (query: CompiledQuery, id: unknown) => Promise<unknown> };
        const execute = executor.executeQuery;
        executor.executeQuery = function (this: unknown, compiled: CompiledQuery, id: unknown) {
            statements.push(compiled.sql.toLowerCase());
            return execute.call(this, compiled, id);
        };
        try {
            const page = await app.json<Page>({ method: 'GET', url: `/realms/${realm}/users?sort=name&${query}` }, 200);
            const lists = statements.filter((text) => /from ["`]auth_users["`]/.test(text));
            return {
                page,
                windows: lists.filter((text) => text.includes('count(*) over ()')).length,
                counts: lists.filter((text) => text.includes('count(*)') && !text.includes('over ()')).length,
            };
        } finally {
            executor.executeQuery = execute;
        }
    };

    it('answers a page and its total from one statement (PostgreSQL, MySQL)', async () => {
        const { page, windows, counts } = await listed('page[limit]=2');
        expect(page.data.map((row) => row.name)).toEqual([`ant-${dialect}`, `bee-${dialect}`]);
        expect(page.meta).toEqual({ total: 5, limit: 2, offset: 0 });
        expect([windows, counts]).toEqual(expected(false));
        // the window column stays out of the record
        expect(Object.keys(page.data[0]!).some((key) => key.includes('total'))).toBe(false);
    });

    it('keeps the total exact on the last page, under a filter, and past the end (the one case that counts)', async () => {
        const last = await listed('page[limit]=2&page[offset]=4');
        expect(last.page.data.map((row) => row.name)).toEqual([`eel-${dialect}`]);
        expect(last.page.meta.total).toBe(5);
        expect([last.windows, last.counts]).toEqual(expected(false));

        const filtered = await listed(`filter[name]=cat-${dialect},dog-${dialect}&page[limit]=1`);
        expect(filtered.page.meta.total).toBe(2);
        expect(filtered.page.data).toHaveLength(1);

        const none = await listed('filter[name]=nobody&page[limit]=2');
        expect(none.page).toEqual({ data: [], meta: { total: 0, limit: 2, offset: 0 } });
        expect([none.windows, none.counts]).toEqual(expected(false));

        const past = await listed('page[limit]=2&page[offset]=10');
        expect(past.page).toEqual({ data: [], meta: { total: 5, limit: 2, offset: 10 } });
        expect([past.windows, past.counts]).toEqual(expected(true));
    });
});
