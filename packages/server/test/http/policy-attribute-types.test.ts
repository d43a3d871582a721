import { expect, it } from 'vitest';
import { useTestApp } from '../app.js';
import { describeEachDialect } from '../databases.js';
import { uniqueName } from '../grant-fixtures.js';

/*
 * Attribute values keep their type (spec Resources "attribute values (user, role, policy, identity provider)": a
 * string keeps its type). A policy's configuration is one JSON column (domains/policies/
 * configuration.ts), so every value keeps its JSON type as written: a string that looks numeric
 * or boolean stays a string, a number a number, on every dialect and through every read.
 */
describeEachDialect('policy attribute values keep their type', (dialect) => {
    const app = useTestApp(dialect);

    it('strings that look like numbers or booleans stay strings; numbers and booleans stay typed', async () => {
        const query = { code: '5', enabled: 'true', level: 5, active: true, tags: { $in: ['1', 2, false] } };
        const created = await app.json<{ data: { id: string; query: unknown } }>({
            method: 'POST', url: '/policies', payload: { type: 'attributes', name: uniqueName('typed'), query },
        }, 201);
        // canonical form: equality spelt $eq, each value as written
        const canonical = { code: { $eq: '5' }, enabled: { $eq: 'true' }, level: { $eq: 5 }, active: { $eq: true }, tags: { $in: ['1', 2, false] } };
        expect(created.data.query).toStrictEqual(canonical);
        const read = await app.json<{ data: { query: unknown } }>({ method: 'GET', url: `/policies/${created.data.id}` }, 200);
        expect(read.data.query).toStrictEqual(canonical);
        // the stored column is JSON with the types as written
        const row = await app.deps.db.selectFrom('auth_policies').select('config').where('id', '=', created.data.id).executeTakeFirstOrThrow();
        expect(JSON.parse(row.config)).toStrictEqual({ query: canonical });
        // the catalog a resource server evaluates with carries the same types
        const catalog = await app.json<{ policies: Record<string, { query?: unknown }> }>({ method: 'GET', url: '/authorization' }, 200);
        expect(catalog.policies[created.data.id]?.query).toStrictEqual(canonical);
    });

    it('an update keeps the types of the values it writes', async () => {
        const created = await app.json<{ data: { id: string } }>({
            method: 'POST', url: '/policies', payload: { type: 'attributes', name: uniqueName('retyped'), query: { level: 5 } },
        }, 201);
        const updated = await app.json<{ data: { query: unknown } }>({ method: 'POST', url: `/policies/${created.data.id}`, payload: { query: { level: '5' } } }, 200);
        expect(updated.data.query).toStrictEqual({ level: { $eq: '5' } });
    });
});
