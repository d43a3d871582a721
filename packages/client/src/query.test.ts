import { describe, expect, it } from 'vitest';
import type { ListQuery } from './query.js';
import { buildQuery } from './query.js';

describe('buildQuery (API.md §2)', () => {
    it('writes filter, fields, sort, page and include in their rapiq form', () => {
        const query: ListQuery<'name' | 'realmId' | 'active', 'id' | 'name' | 'createdAt'> = {
            filter: { name: '~ali~', realmId: null, active: true },
            fields: ['id', 'name', '+email'],
            sort: ['name', '-createdAt'],
            page: { limit: 10, offset: 20 },
            include: ['realm'],
        };
        expect(decodeURIComponent(buildQuery(query).toString())).toBe(
            'filter[name]=~ali~&filter[realmId]=null&filter[active]=true&fields=id,name,+email&sort=name,-createdAt&page[limit]=10&page[offset]=20&include=realm',
        );
    });

    it('joins a list into an "in" filter, keeps relation filters and leaves undefined members out', () => {
        const search = buildQuery({ filter: { id: ['a', 'b'], 'realm.name': 'acme', name: undefined }, page: { offset: 5 }, token_type_hint: 'access_token', skip: undefined });
        expect([...search.entries()]).toEqual([
            ['filter[id]', 'a,b'],
            ['filter[realm.name]', 'acme'],
            ['page[offset]', '5'],
            ['token_type_hint', 'access_token'],
        ]);
    });

    it('answers an empty query string for no query', () => {
        expect(buildQuery(undefined).toString()).toBe('');
        expect(buildQuery({}).toString()).toBe('');
    });

    it('types filters and fields per collection', () => {
        const typed: ListQuery<'name', 'id' | 'name'> = { filter: { name: 'x' }, sort: ['-name'] };
        // @ts-expect-error an unknown filter key of the collection is a type error
        const wrongFilter: ListQuery<'name', 'id'> = { filter: { nope: 'x' } };
        // @ts-expect-error an unknown sort key is a type error
        const wrongSort: ListQuery<'name', 'id'> = { sort: ['-name'] };
        expect([typed, wrongFilter, wrongSort].length).toBe(3);
    });
});
