import { describe, expect, it } from 'vitest';
import { AppError, type Issue } from '../errors/app-error.js';
import { MAX_FILTER_VALUES } from './parse-filter.js';
import { parseListQuery } from './parse.js';
import type { CollectionQuerySpec } from './types.js';

const UUID = '6f1c2a9e-3b7d-4c58-9e21-0a4b5c6d7e8f';

const spec: CollectionQuerySpec = {
    fields: {
        id: { column: 'id', type: 'uuid' },
        name: { column: 'name', type: 'string' },
        active: { column: 'active', type: 'boolean' },
        priority: { column: 'priority', type: 'number' },
        status: { column: 'status', type: 'enum', values: ['active', 'passive', 'disabled'] },
        realmId: { column: 'realm_id', type: 'uuid', nullable: true },
        secret: { column: 'secret', type: 'string', withheld: true },
        seenAt: { column: 'seen_at', type: 'date', nullable: true },
        createdAt: { column: 'created_at', type: 'date' },
        updatedAt: { column: 'updated_at', type: 'date' },
    },
    relations: {
        realm: { fields: { id: { column: 'id', type: 'uuid' }, name: { column: 'name', type: 'string' } } },
        client: {
            fields: {
                id: { column: 'id', type: 'uuid' },
                name: { column: 'name', type: 'string' },
                secret: { column: 'secret', type: 'string', withheld: true },
            },
        },
        hidden: { fields: { id: { column: 'id', type: 'uuid' } }, include: false, filter: false },
    },
    defaultSort: [{ field: 'name', direction: 'asc' }],
};

const DEFAULT_FIELDS = ['id', 'name', 'active', 'priority', 'status', 'realmId', 'seenAt', 'createdAt', 'updatedAt'];

function issuesOf(raw: Record<string, unknown>, collection: CollectionQuerySpec = spec): Issue[] {
    try {
        parseListQuery(raw, collection);
    } catch (error) {
        expect(error).toBeInstanceOf(AppError);
        expect((error as AppError).statusCode).toBe(400);
        expect((error as AppError).code).toBe('bad_request');
        return (error as AppError).issues ?? [];
    }
    throw new Error(`expected a 400 for ${JSON.stringify(raw)}`);
}

/** The single issue a query produces: its path and code. */
function onlyIssue(raw: Record<string, unknown>): Pick<Issue, 'path' | 'code'> {
    const issues = issuesOf(raw);
    expect(issues, JSON.stringify(raw)).toHaveLength(1);
    return { path: issues[0]!.path, code: issues[0]!.code };
}

const filterOf = (value: string, field = 'name') => parseListQuery({ [`filter[${field}]`]: value }, spec).filter;

describe('parseListQuery defaults', () => {
    it('no parameters: default projection, sort, page; nothing filtered or included', () => {
        expect(parseListQuery({}, spec)).toEqual({
            filter: null,
            fields: { base: DEFAULT_FIELDS, added: [] },
            sort: [{ field: 'name', direction: 'asc' }],
            page: { limit: 50, offset: 0 },
            include: [],
        });
    });
});

describe('filter values (API.md §2)', () => {
    it('plain value, ! not, and the like forms', () => {
        expect(filterOf('admin')).toEqual({ operator: 'eq', field: 'name', value: 'admin' });
        expect(filterOf('!admin')).toEqual({ operator: 'ne', field: 'name', value: 'admin' });
        expect(filterOf('adm~')).toEqual({ operator: 'startsWith', field: 'name', value: 'adm' });
        expect(filterOf('~min')).toEqual({ operator: 'endsWith', field: 'name', value: 'min' });
        expect(filterOf('~dmi~')).toEqual({ operator: 'contains', field: 'name', value: 'dmi' });
        expect(filterOf('!~dmi~')).toEqual({ operator: 'not', condition: { operator: 'contains', field: 'name', value: 'dmi' } });
        expect(filterOf('!adm~')).toEqual({ operator: 'not', condition: { operator: 'startsWith', field: 'name', value: 'adm' } });
        expect(filterOf('a~b')).toEqual({ operator: 'eq', field: 'name', value: 'a~b' });
        expect(filterOf('~a%_~')).toEqual({ operator: 'contains', field: 'name', value: 'a%_' });
    });

    it('comma lists are in / nin, null inside a list is the null literal', () => {
        expect(filterOf('a,b')).toEqual({ operator: 'in', field: 'name', value: ['a', 'b'] });
        expect(filterOf('!a,b')).toEqual({ operator: 'nin', field: 'name', value: ['a', 'b'] });
        expect(filterOf(`${UUID},null`, 'realmId')).toEqual({ operator: 'in', field: 'realmId', value: [UUID, null] });
        expect(filterOf('1,2.5', 'priority')).toEqual({ operator: 'in', field: 'priority', value: [1, 2.5] });
    });

    it('null and !null', () => {
        expect(filterOf('null', 'realmId')).toEqual({ operator: 'eq', field: 'realmId', value: null });
        expect(filterOf('!null', 'realmId')).toEqual({ operator: 'ne', field: 'realmId', value: null });
        expect(filterOf('null', 'seenAt')).toEqual({ operator: 'eq', field: 'seenAt', value: null });
    });

    it('comparisons on numbers and dates', () => {
        expect(filterOf('<5', 'priority')).toEqual({ operator: 'lt', field: 'priority', value: 5 });
        expect(filterOf('<=5', 'priority')).toEqual({ operator: 'lte', field: 'priority', value: 5 });
        expect(filterOf('>-1.5', 'priority')).toEqual({ operator: 'gt', field: 'priority', value: -1.5 });
        expect(filterOf('>=0', 'priority')).toEqual({ operator: 'gte', field: 'priority', value: 0 });
        expect(filterOf('>=2024-01-31', 'createdAt')).toEqual({ operator: 'gte', field: 'createdAt', value: '2024-01-31T00:00:00.000Z' });
        expect(filterOf('<2024-01-31T12:30:00+02:00', 'updatedAt')).toEqual({ operator: 'lt', field: 'updatedAt', value: '2024-01-31T10:30:00.000Z' });
        // An unencoded `+` arrives as a space.
        expect(filterOf('<2024-01-31T12:30:00 02:00', 'updatedAt')).toEqual({ operator: 'lt', field: 'updatedAt', value: '2024-01-31T10:30:00.000Z' });
        expect(filterOf('>2024-01-31T12:30', 'createdAt')).toEqual({ operator: 'gt', field: 'createdAt', value: '2024-01-31T12:30:00.000Z' });
    });

    it('values are coerced by field type', () => {
        expect(filterOf('true', 'active')).toEqual({ operator: 'eq', field: 'active', value: true });
        expect(filterOf('!false', 'active')).toEqual({ operator: 'ne', field: 'active', value: false });
        expect(filterOf(UUID.toUpperCase(), 'id')).toEqual({ operator: 'eq', field: 'id', value: UUID });
        expect(filterOf('passive', 'status')).toEqual({ operator: 'eq', field: 'status', value: 'passive' });
        expect(filterOf('42', 'priority')).toEqual({ operator: 'eq', field: 'priority', value: 42 });
    });

    it('several filters are ANDed; relation fields are relation.field', () => {
        expect(parseListQuery({ 'filter[name]': 'a~', 'filter[realm.name]': 'master' }, spec).filter).toEqual({
            operator: 'and',
            conditions: [
                { operator: 'startsWith', field: 'name', value: 'a' },
                { operator: 'eq', field: 'realm.name', value: 'master' },
            ],
        });
    });
});

describe('bracket keys and nested objects', () => {
    it('Fastify flat keys and qs-style nesting give the same query', () => {
        const flat = parseListQuery({ 'filter[realm.name]': 'm~', 'page[limit]': '5', 'fields[client]': '+secret', fields: 'id' }, spec);
        const nested = parseListQuery({ filter: { realm: { name: 'm~' } }, page: { limit: '5' }, fields: { client: '+secret' } }, spec);
        const mixed = parseListQuery({ 'filter[realm][name]': 'm~', page: { limit: 5 }, 'fields[client]': '+secret' }, spec);
        expect(flat.filter).toEqual({ operator: 'startsWith', field: 'realm.name', value: 'm' });
        expect(nested.filter).toEqual(flat.filter);
        expect(mixed.filter).toEqual(flat.filter);
        expect(nested.page).toEqual({ limit: 5, offset: 0 });
        expect(mixed.page).toEqual(nested.page);
        expect(flat.perRelationFields).toEqual({ client: { added: ['secret'] } });
        expect(nested.perRelationFields).toEqual(flat.perRelationFields);
        expect(flat.fields.base).toEqual(['id']);
    });

    it('the same key twice, in either spelling or repeated, is refused', () => {
        expect(onlyIssue({ 'filter[realm.name]': 'a', 'filter[realm][name]': 'b' })).toEqual({ path: ['filter', 'realm', 'name'], code: 'malformed_parameter' });
        expect(onlyIssue({ 'filter[name]': ['a', 'b'] })).toEqual({ path: ['filter', 'name'], code: 'malformed_parameter' });
        expect(parseListQuery({ include: ['realm', 'client'] }, spec).include).toEqual(['realm', 'client']);
    });

    it('malformed bracket keys', () => {
        expect(onlyIssue({ 'filter[name': 'a' })).toEqual({ path: ['filter[name'], code: 'malformed_parameter' });
        expect(onlyIssue({ 'filter[]': 'a' })).toEqual({ path: ['filter', ''], code: 'malformed_parameter' });
        expect(onlyIssue({ filter: 'a' })).toEqual({ path: ['filter'], code: 'malformed_parameter' });
        expect(onlyIssue({ 'page[limit][x]': '1' })).toEqual({ path: ['page', 'limit', 'x'], code: 'malformed_parameter' });
    });
});

describe('filter refusals', () => {
    it('createdAt / updatedAt take only range operators (spec: equality answers 400)', () => {
        for (const value of ['2024-01-01', '!2024-01-01', '2024-01-01,2024-01-02', '~2024~', '2024~', 'null', '!null']) {
            expect(onlyIssue({ 'filter[createdAt]': value }), value).toEqual({ path: ['filter', 'createdAt'], code: 'invalid_filter' });
            expect(onlyIssue({ 'filter[updatedAt]': value }), value).toEqual({ path: ['filter', 'updatedAt'], code: 'invalid_filter' });
        }
        expect(onlyIssue({ 'filter[createdAt]': '!<2024-01-01' })).toEqual({ path: ['filter', 'createdAt'], code: 'invalid_filter' });
        expect(onlyIssue({ 'filter[seenAt]': '2024-01-01' })).toEqual({ path: ['filter', 'seenAt'], code: 'invalid_filter' });
    });

    it('coercion failures name the key', () => {
        const cases: [string, string][] = [
            ['id', 'not-a-uuid'],
            ['realmId', `${UUID},nope`],
            ['active', 'yes'],
            ['active', '1'],
            ['priority', 'abc'],
            ['priority', '1e3'],
            ['priority', '<abc'],
            ['status', 'unknown'],
            ['createdAt', '>2024-02-30'],
            ['createdAt', '>2024-01-01T25:00'],
            ['createdAt', '>yesterday'],
        ];
        for (const [field, value] of cases) {
            expect(onlyIssue({ [`filter[${field}]`]: value }), `${field}=${value}`).toEqual({ path: ['filter', field], code: 'invalid_filter' });
        }
    });

    it('operators the field type does not allow, and malformed values', () => {
        const cases: [string, string][] = [
            ['priority', '~1~'],
            ['id', `${UUID.slice(0, 8)}~`],
            ['active', '~true'],
            ['name', '<m'],
            ['name', '>=m'],
            ['priority', '!<5'],
            ['name', ''],
            ['name', '!'],
            ['name', '~'],
            ['name', '~~'],
            ['name', '!~'],
            ['priority', '<'],
            ['name', 'a,,b'],
            ['name', 'a,'],
            ['name', '~a,b'],
            ['name', 'a,!b'],
            ['priority', '<1,2'],
        ];
        for (const [field, value] of cases) {
            expect(onlyIssue({ [`filter[${field}]`]: value }), `${field}=${value}`).toEqual({ path: ['filter', field], code: 'invalid_filter' });
        }
    });

    it(`at most ${MAX_FILTER_VALUES} list values across the filters (each is a bound parameter; a fuzzed request found the limit)`, () => {
        const list = (count: number, prefix = 'v') => Array.from({ length: count }, (_, index) => `${prefix}${index}`).join(',');
        expect(filterOf(list(MAX_FILTER_VALUES))).toMatchObject({ operator: 'in' });
        expect(onlyIssue({ 'filter[name]': list(MAX_FILTER_VALUES + 1) })).toEqual({ path: ['filter', 'name'], code: 'invalid_filter' });
        expect(onlyIssue({ 'filter[name]': list(600), 'filter[realm.name]': list(600) })).toEqual({ path: ['filter', 'realm.name'], code: 'invalid_filter' });
    });

    it('unknown keys, withheld fields and relations that may not be filtered through', () => {
        for (const key of ['nope', 'secret', 'constructor', '__proto__', 'realm.nope', 'nope.id', 'hidden.id', 'realm.id.x', 'client.secret']) {
            expect(onlyIssue({ [`filter[${key}]`]: 'x' }), key).toEqual({ path: ['filter', key], code: 'unknown_filter' });
        }
    });
});

describe('fields', () => {
    it('replaces the projection, + adds withheld fields, duplicates collapse', () => {
        expect(parseListQuery({ fields: 'id,name,id' }, spec).fields).toEqual({ base: ['id', 'name'], added: [] });
        expect(parseListQuery({ fields: '+secret' }, spec).fields).toEqual({ base: DEFAULT_FIELDS, added: ['secret'] });
        expect(parseListQuery({ fields: 'id,+secret' }, spec).fields).toEqual({ base: ['id'], added: ['secret'] });
        expect(parseListQuery({ 'fields[client]': '+secret' }, spec).perRelationFields).toEqual({ client: { added: ['secret'] } });
    });

    it('refuses unknown fields, + on ordinary fields, withheld fields without +', () => {
        expect(onlyIssue({ fields: 'id,nope' })).toEqual({ path: ['fields', 'nope'], code: 'unknown_field' });
        expect(onlyIssue({ fields: '+name' })).toEqual({ path: ['fields', 'name'], code: 'invalid_field' });
        expect(onlyIssue({ fields: 'secret' })).toEqual({ path: ['fields', 'secret'], code: 'invalid_field' });
        expect(onlyIssue({ fields: '-name' })).toEqual({ path: ['fields', '-name'], code: 'unknown_field' });
        expect(onlyIssue({ fields: '' })).toEqual({ path: ['fields'], code: 'malformed_parameter' });
        expect(onlyIssue({ 'fields[client]': 'name' })).toEqual({ path: ['fields', 'client', 'name'], code: 'invalid_field' });
        expect(onlyIssue({ 'fields[client]': '+name' })).toEqual({ path: ['fields', 'client', 'name'], code: 'invalid_field' });
        expect(onlyIssue({ 'fields[client]': '+nope' })).toEqual({ path: ['fields', 'client', 'nope'], code: 'unknown_field' });
        expect(onlyIssue({ 'fields[nope]': '+secret' })).toEqual({ path: ['fields', 'nope'], code: 'unknown_field' });
    });
});

describe('sort', () => {
    it('keys with - for descending, and the object form', () => {
        expect(parseListQuery({ sort: 'name,-createdAt' }, spec).sort).toEqual([
            { field: 'name', direction: 'asc' },
            { field: 'createdAt', direction: 'desc' },
        ]);
        expect(parseListQuery({ 'sort[priority]': 'DESC' }, spec).sort).toEqual([{ field: 'priority', direction: 'desc' }]);
    });

    it('refuses unknown, withheld, relation and repeated keys', () => {
        expect(onlyIssue({ sort: 'nope' })).toEqual({ path: ['sort', 'nope'], code: 'unknown_sort' });
        expect(onlyIssue({ sort: '-secret' })).toEqual({ path: ['sort', 'secret'], code: 'unknown_sort' });
        expect(onlyIssue({ sort: 'realm.name' })).toEqual({ path: ['sort', 'realm.name'], code: 'unknown_sort' });
        expect(onlyIssue({ sort: 'name,-name' })).toEqual({ path: ['sort', 'name'], code: 'malformed_parameter' });
        expect(onlyIssue({ 'sort[name]': 'up' })).toEqual({ path: ['sort', 'name'], code: 'malformed_parameter' });
        expect(onlyIssue({ sort: 'name,' })).toEqual({ path: ['sort'], code: 'malformed_parameter' });
    });
});

describe('page', () => {
    it('limit 1..maxLimit, offset >= 0', () => {
        expect(parseListQuery({ 'page[limit]': '100', 'page[offset]': '20' }, spec).page).toEqual({ limit: 100, offset: 20 });
        expect(parseListQuery({ 'page[limit]': '1' }, spec).page).toEqual({ limit: 1, offset: 0 });
        for (const limit of ['0', '101', 'abc', '1.5', '-1', '', ' 5']) {
            expect(onlyIssue({ 'page[limit]': limit }), limit).toEqual({ path: ['page', 'limit'], code: 'invalid_page' });
        }
        for (const offset of ['-1', 'x', '1.5', '99999999999999999999']) {
            expect(onlyIssue({ 'page[offset]': offset }), offset).toEqual({ path: ['page', 'offset'], code: 'invalid_page' });
        }
        expect(onlyIssue({ 'page[size]': '5' })).toEqual({ path: ['page', 'size'], code: 'unknown_parameter' });
        expect(onlyIssue({ page: '5' })).toEqual({ path: ['page'], code: 'malformed_parameter' });
    });

    it('a collection maximum below 50 also lowers the default', () => {
        const small = { ...spec, maxLimit: 20 };
        expect(parseListQuery({}, small).page.limit).toBe(20);
        expect(issuesOf({ 'page[limit]': '21' }, small).map((item) => item.path)).toEqual([['page', 'limit']]);
    });
});

describe('include and unknown parameters', () => {
    it('allowed relations only', () => {
        expect(parseListQuery({ include: 'realm,client,realm' }, spec).include).toEqual(['realm', 'client']);
        expect(onlyIssue({ include: 'realm,nope' })).toEqual({ path: ['include', 'nope'], code: 'unknown_include' });
        expect(onlyIssue({ include: 'hidden' })).toEqual({ path: ['include', 'hidden'], code: 'unknown_include' });
        expect(onlyIssue({ include: 'realm,' })).toEqual({ path: ['include'], code: 'malformed_parameter' });
    });

    it('only filter, fields, sort, page and include are parameters', () => {
        expect(onlyIssue({ token: 'x' })).toEqual({ path: ['token'], code: 'unknown_parameter' });
        expect(onlyIssue({ 'where[name]': 'x' })).toEqual({ path: ['where'], code: 'unknown_parameter' });
    });

    it('every finding is reported at once', () => {
        const issues = issuesOf({ foo: '1', 'filter[nope]': 'x', 'filter[createdAt]': '2024-01-01', 'page[limit]': '0', sort: 'nope', include: 'nope' });
        expect(issues.map((item) => [item.path, item.code])).toEqual([
            [['foo'], 'unknown_parameter'],
            [['filter', 'nope'], 'unknown_filter'],
            [['filter', 'createdAt'], 'invalid_filter'],
            [['sort', 'nope'], 'unknown_sort'],
            [['page', 'limit'], 'invalid_page'],
            [['include', 'nope'], 'unknown_include'],
        ]);
        for (const item of issues) expect(item.message.length).toBeGreaterThan(0);
    });
});

describe('fields with an unencoded plus', () => {
    it('reads a leading space (an unencoded "+") as "+"', () => {
        const spec: CollectionQuerySpec = { fields: { id: { column: 'id', type: 'uuid' as const }, secret: { column: 'secret', type: 'string' as const, withheld: true } } };
        expect(parseListQuery({ fields: ' secret' }, spec).fields.added).toEqual(['secret']);
    });
});
