import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AccessErrorCode } from '../../errors.js';
import { matchCondition } from '../condition.js';
import type { PolicyData } from '../data.js';
import { createPolicyEngine, PolicyEvaluationContext } from '../engine.js';
import { Outcome } from '../outcome.js';
import { attributeNamesPolicyType } from './attribute-names.js';
import { attributesPolicyType } from './attributes.js';

const engine = createPolicyEngine([attributesPolicyType, attributeNamesPolicyType]);

function contextOf(data: PolicyData): PolicyEvaluationContext {
    return new PolicyEvaluationContext(null, data, null, () => 0);
}

function run(query: unknown, attributes?: Record<string, unknown>, invert = false): string {
    return engine.evaluate({ type: 'attributes', invert, query }, attributes === undefined ? {} : { attributes });
}

function refusal(input: unknown): { code: unknown; message: string; path: unknown } {
    try {
        engine.validate(input);
    } catch (error) {
        const { code, message, path } = error as { code: unknown; message: string; path: unknown };
        return { code, message, path };
    }
    throw new Error('expected the policy to be refused');
}

describe('attributes policy: operators', () => {
    const row = { name: 'alice', age: 30, active: true, note: null, tags: ['a'] };

    it('treats a scalar as $eq and ANDs several fields', () => {
        expect(run({ name: 'alice' }, row)).toBe('pass');
        expect(run({ name: 'bob' }, row)).toBe('fail');
        expect(run({ name: 'alice', age: 30, active: true }, row)).toBe('pass');
        expect(run({ name: 'alice', age: 31 }, row)).toBe('fail');
    });

    it('matches $eq null on null or missing, and $ne as its negation', () => {
        expect(run({ note: null }, row)).toBe('pass');
        expect(run({ missing: { $eq: null } }, row)).toBe('pass');
        expect(run({ name: { $eq: null } }, row)).toBe('fail');
        expect(run({ missing: { $ne: null } }, row)).toBe('fail');
        expect(run({ name: { $ne: 'bob' } }, row)).toBe('pass');
        expect(run({ missing: { $ne: 'bob' } }, row)).toBe('pass');
        expect(run({ age: { $eq: '30' } }, row)).toBe('fail');
    });

    it('matches $in / $nin element-wise with $eq semantics', () => {
        expect(run({ age: { $in: [1, 30] } }, row)).toBe('pass');
        expect(run({ age: { $in: ['30'] } }, row)).toBe('fail');
        expect(run({ missing: { $in: [null, 1] } }, row)).toBe('pass');
        expect(run({ name: { $in: [] } }, row)).toBe('fail');
        expect(run({ name: { $nin: ['bob', 'carol'] } }, row)).toBe('pass');
        expect(run({ name: { $nin: ['alice'] } }, row)).toBe('fail');
        expect(run({ note: { $nin: [null] } }, row)).toBe('fail');
    });

    it('compares only values of the same type', () => {
        expect(run({ age: { $gt: 29, $lt: 31 } }, row)).toBe('pass');
        expect(run({ age: { $gte: 30, $lte: 30 } }, row)).toBe('pass');
        expect(run({ age: { $gt: 30 } }, row)).toBe('fail');
        expect(run({ age: { $lt: 30 } }, row)).toBe('fail');
        expect(run({ name: { $gt: 'aa', $lt: 'b' } }, row)).toBe('pass');
        expect(run({ age: { $gt: '1' } }, row)).toBe('fail');
        expect(run({ name: { $lt: 100 } }, row)).toBe('fail');
        expect(run({ note: { $lte: 0 } }, row)).toBe('fail');
        expect(run({ missing: { $gte: 0 } }, row)).toBe('fail');
        expect(run({ age: { $lt: 100 } }, { age: Number.NaN })).toBe('fail');
    });

    it('tests presence with $exists (null counts as absent)', () => {
        expect(run({ name: { $exists: true } }, row)).toBe('pass');
        expect(run({ note: { $exists: true } }, row)).toBe('fail');
        expect(run({ note: { $exists: false } }, row)).toBe('pass');
        expect(run({ missing: { $exists: false } }, row)).toBe('pass');
        expect(run({ active: { $exists: false } }, row)).toBe('fail');
    });

    it('matches $startsWith / $endsWith on strings only', () => {
        expect(run({ name: { $startsWith: 'al', $endsWith: 'ce' } }, row)).toBe('pass');
        expect(run({ name: { $startsWith: 'ce' } }, row)).toBe('fail');
        expect(run({ name: { $endsWith: 'al' } }, row)).toBe('fail');
        expect(run({ age: { $startsWith: '3' } }, row)).toBe('fail');
        expect(run({ tags: { $endsWith: 'a' } }, row)).toBe('fail');
    });

    it('combines $and / $or / $not at top level and $not at field level', () => {
        expect(run({ $or: [{ name: 'bob' }, { age: 30 }] }, row)).toBe('pass');
        expect(run({ $or: [{ name: 'bob' }, { age: 31 }] }, row)).toBe('fail');
        expect(run({ $and: [{ name: 'alice' }, { age: { $gte: 18 } }] }, row)).toBe('pass');
        expect(run({ $and: [{ name: 'alice' }], age: 31 }, row)).toBe('fail');
        expect(run({ $not: { name: 'bob' } }, row)).toBe('pass');
        expect(run({ $not: { name: 'alice', age: 30 } }, row)).toBe('fail');
        expect(run({ age: { $not: { $gt: 40 } } }, row)).toBe('pass');
        expect(run({ missing: { $not: { $gt: 40 } } }, row)).toBe('pass');
        expect(run({ age: { $not: { $gt: 20, $lt: 40 } } }, row)).toBe('fail');
    });

    it('matches every row with an empty query', () => {
        expect(run({}, {})).toBe('pass');
        expect(run({}, row)).toBe('pass');
        expect(run({}, row, true)).toBe('fail');
    });
});

describe('attributes policy: paths, invert, pending', () => {
    it('reaches nested attributes by dotted name and prefers a literal dotted key', () => {
        const row = { profile: { address: { city: 'Berlin' } }, 'meta.kind': 'literal', meta: { kind: 'nested' } };
        expect(run({ 'profile.address.city': 'Berlin' }, row)).toBe('pass');
        expect(run({ 'profile.address.zip': { $exists: false } }, row)).toBe('pass');
        expect(run({ 'profile.address.city.x': null }, row)).toBe('pass');
        expect(run({ 'meta.kind': 'literal' }, row)).toBe('pass');
        expect(run({ 'meta.kind': 'nested' }, row)).toBe('fail');
        expect(run({ 'meta.kind': 'nested' }, { meta: { kind: 'nested' } })).toBe('pass');
    });

    it('applies invert to the verdict', () => {
        expect(run({ name: 'alice' }, { name: 'alice' }, true)).toBe('fail');
        expect(run({ name: 'bob' }, { name: 'alice' }, true)).toBe('pass');
    });

    it('is pending without attributes, inverted or not', () => {
        expect(run({ name: 'alice' })).toBe('pending');
        expect(run({ name: 'alice' }, undefined, true)).toBe('pending');
        expect(engine.evaluate({ type: 'attributes', query: {} }, {}, { pre: true })).toBe('pass');
        const compiled = engine.compile({ type: 'attributes', invert: true, query: { a: 1 } });
        expect(compiled.evaluate(contextOf({}))).toBe(Outcome.PENDING);
    });

    it('lowers to a Condition over the row with invert applied, never null', () => {
        const ctx = contextOf({});
        expect(engine.compile({ type: 'attributes', query: {} }).lower(ctx)).toBe(true);
        expect(engine.compile({ type: 'attributes', invert: true, query: {} }).lower(ctx)).toBe(false);
        expect(engine.compile({ type: 'attributes', query: { a: { $in: [] } } }).lower(ctx)).toBe(false);
        expect(engine.compile({ type: 'attributes', query: { 'p.q': 1 } }).lower(ctx))
            .toEqual({ operator: 'eq', field: 'p.q', value: 1 });
        expect(engine.compile({ type: 'attributes', invert: true, query: { a: 1, b: { $gt: 2 } } }).lower(ctx)).toEqual({
            operator: 'not',
            condition: {
                operator: 'and',
                conditions: [{ operator: 'eq', field: 'a', value: 1 }, { operator: 'gt', field: 'b', value: 2 }],
            },
        });
    });
});

describe('attributes policy: validation', () => {
    it('returns the canonical form and drops entity columns', () => {
        const policy = engine.validate({
            type: 'attributes',
            id: 'p1',
            name: 'adults',
            realmId: 'r1',
            query: { z: 1, a: { $lte: 5, $gt: 1 }, $or: [{ b: null }], c: { $in: [1, 1, 'x', 1] }, d: { $not: { $eq: 2 } } },
        });
        expect(policy).toEqual({
            type: 'attributes',
            invert: false,
            query: {
                $or: [{ b: { $eq: null } }],
                a: { $gt: 1, $lte: 5 },
                c: { $in: [1, 'x'] },
                d: { $not: { $eq: 2 } },
                z: { $eq: 1 },
            },
        });
        expect(Object.keys(policy.query as object)).toEqual(['$or', 'a', 'c', 'd', 'z']);
        expect(Object.keys((policy.query as Record<string, object>).a!)).toEqual(['$gt', '$lte']);
        expect(engine.validate(policy)).toEqual(policy);
    });

    it('keeps a field named __proto__ as a field', () => {
        const query = JSON.parse('{"__proto__": 1}') as unknown;
        const policy = engine.validate({ type: 'attributes', query });
        expect(Object.keys(policy.query as object)).toEqual(['__proto__']);
        expect(run(query, JSON.parse('{"__proto__": 1}') as Record<string, unknown>)).toBe('pass');
        expect(run(query, {})).toBe('fail');
    });

    it.each([
        ['top level', { $regex: 'a.*' }, ['query', '$regex']],
        ['in a field operator object', { name: { $regex: '^a' } }, ['query', 'name', '$regex']],
        ['as $options', { name: { $options: 'i' } }, ['query', 'name', '$options']],
        ['nested in $and', { $and: [{ a: 1 }, { $or: [{ b: { $not: { $regex: 'x' } } }] }] },
            ['query', '$and', 1, '$or', 0, 'b', '$not', '$regex']],
        ['inside a value', { a: { $in: [{ $regex: 'x' }] } }, ['query', 'a', '$in', 0, '$regex']],
        ['as a RegExp value', { a: /x/ }, ['query', 'a']],
    ])('refuses $regex %s', (_where, query, path) => {
        const error = refusal({ type: 'attributes', query });
        expect(error.code).toBe(AccessErrorCode.INVALID_POLICY);
        expect(error.message).toContain('$regex');
        expect(error.path).toEqual(path);
    });

    it.each([
        ['a missing query', undefined, 'query'],
        ['a non-object query', 'name = 1', 'query'],
        ['a list as query', [{ a: 1 }], 'query'],
        ['an unknown top-level operator', { $where: 'x' }, 'query.$where'],
        ['an unknown field operator', { a: { $size: 1 } }, 'query.a.$size'],
        ['an empty $and', { $and: [] }, 'query.$and'],
        ['a non-list $or', { $or: { a: 1 } }, 'query.$or'],
        ['a non-object $and item', { $and: [{ a: 1 }, 2] }, 'query.$and[1]'],
        ['a nested object as value', { a: { b: 1 } }, 'query.a.b'],
        ['a list as value', { a: [1, 2] }, 'query.a'],
        ['an object where $eq needs a scalar', { a: { $eq: { b: 1 } } }, 'query.a.$eq'],
        ['a list where $ne needs a scalar', { a: { $ne: [1] } }, 'query.a.$ne'],
        ['a non-list $in', { a: { $in: 1 } }, 'query.a.$in'],
        ['an object in $nin', { a: { $nin: [1, { b: 2 }] } }, 'query.a.$nin[1]'],
        ['a boolean to $gt', { a: { $gt: true } }, 'query.a.$gt'],
        ['null to $lte', { a: { $lte: null } }, 'query.a.$lte'],
        ['a non-finite number', { a: { $lt: Number.POSITIVE_INFINITY } }, 'query.a.$lt'],
        ['NaN as shorthand', { a: Number.NaN }, 'query.a'],
        ['a string to $exists', { a: { $exists: 'yes' } }, 'query.a.$exists'],
        ['a number to $startsWith', { a: { $startsWith: 1 } }, 'query.a.$startsWith'],
        ['a scalar to field-level $not', { a: { $not: 1 } }, 'query.a.$not'],
        ['a scalar to top-level $not', { $not: 1 }, 'query.$not'],
        ['an empty operator object', { a: {} }, 'query.a'],
        ['an empty field name', { '': 1 }, 'query.'],
        ['a date value', { a: new Date(0) }, 'query.a'],
    ])('refuses %s, naming the path', (_what, query, where) => {
        const error = refusal({ type: 'attributes', query });
        expect(error.code).toBe(AccessErrorCode.INVALID_POLICY);
        expect(error.message.startsWith(`${where}: `)).toBe(true);
    });

    it('prefixes the policy path and checks invert', () => {
        expect(() => engine.validate({ type: 'attributes', query: { a: { $bad: 1 } } }, ['policies', 2]))
            .toThrow('policies[2].query.a.$bad: unknown operator');
        expect(refusal({ type: 'attributes', invert: 'yes', query: {} }).message).toMatch(/^invert: /);
    });

    it('refuses a cyclic query instead of overflowing the stack', () => {
        const query: Record<string, unknown> = {};
        query.$not = query;
        expect(refusal({ type: 'attributes', query }).message).toContain('deeper than');
    });
});

/* ---------- lower + matchCondition agrees with evaluate ---------- */

// small pools so that equal, ordered and prefixed pairs of query value and row value are frequent
const SCALARS = [null, 0, 1, -1, 2.5, '', 'a', 'ab', 'b', true, false] as const;
const COMPARABLES = [0, 1, 2.5, '', 'a', 'ab'];
const AFFIXES = ['', 'a', 'b', 'ab'];
const LISTS = [[], [null], [1, 'a'], [null, 'ab', false]];
const QUERY_VALUES: Record<string, readonly unknown[]> = {
    $eq: SCALARS, $ne: SCALARS, $in: LISTS, $nin: LISTS,
    $gt: COMPARABLES, $gte: COMPARABLES, $lt: COMPARABLES, $lte: COMPARABLES,
    $exists: [true, false], $startsWith: AFFIXES, $endsWith: AFFIXES,
};
const ROW_VALUES: unknown[] = [...SCALARS, Number.NaN, [1], {}, { x: 1 }, { x: null }, { key: 'a' }, { key: null }];
const FIELDS = ['a', 'b', 'n', 'n.x', 'lit.key'] as const;

const operatorArb = fc.constantFrom(...Object.entries(QUERY_VALUES))
    .chain(([operator, values]) => fc.constantFrom(...values).map((value) => ({ [operator]: value })));
const leafOpsArb = fc.tuple(operatorArb, fc.option(operatorArb)).map(([first, second]) => ({ ...first, ...second }));
const rowValueArb = fc.constantFrom(...ROW_VALUES);
// a missing key is the absent attribute; `lit` and `lit.key` together test the literal-key rule
const rowArb = fc.record(
    { a: rowValueArb, b: rowValueArb, n: rowValueArb, lit: rowValueArb, 'lit.key': rowValueArb },
    { requiredKeys: [] },
);

// biased towards small queries: in a large conjunction one wrong leaf rarely changes the verdict
const { query: queryArb } = fc.letrec<{ ops: object; query: Record<string, unknown> }>((tie) => {
    const fieldValueArb = fc.oneof(fc.constantFrom(...SCALARS), tie('ops'));
    const fieldsArb = fc.dictionary(fc.constantFrom(...FIELDS), fieldValueArb, { maxKeys: 2 });
    const listArb = fc.array(tie('query'), { minLength: 1, maxLength: 2 });
    const logicArb = fc.oneof(
        fc.record({ $and: listArb }),
        fc.record({ $or: listArb }),
        fc.record({ $not: tie('query') }),
        fc.record({ $and: listArb, $or: listArb, $not: tie('query') }, { requiredKeys: [] }),
    );
    return {
        ops: fc.oneof(
            { maxDepth: 2, depthSize: 'small', depthIdentifier: 'ops' },
            { arbitrary: leafOpsArb, weight: 4 },
            { arbitrary: fc.tuple(leafOpsArb, tie('ops')).map(([ops, not]) => ({ ...ops, $not: not })), weight: 1 },
            { arbitrary: tie('ops').map((not) => ({ $not: not })), weight: 1 },
        ),
        query: fc.oneof(
            { maxDepth: 3, depthSize: 'small', depthIdentifier: 'query' },
            { arbitrary: fieldsArb, weight: 3 },
            { arbitrary: fc.tuple(fieldsArb, logicArb).map(([fields, logic]) => ({ ...fields, ...logic })), weight: 1 },
        ),
    };
});

/** Evaluate and lower + matchCondition must give the same verdict on every row. */
function expectAgreement(query: unknown, invert: boolean, rows: readonly Record<string, unknown>[]): void {
    const compiled = engine.compile({ type: 'attributes', invert, query });
    const lowered = compiled.lower(contextOf({}));
    expect(lowered).not.toBeNull();
    for (const row of rows) {
        const evaluated = compiled.evaluate(contextOf({ attributes: row }));
        const matched = typeof lowered === 'boolean' ? lowered : matchCondition(lowered!, row);
        expect(evaluated, JSON.stringify({ query, invert, row })).toBe(matched ? Outcome.PASS : Outcome.FAIL);
    }
}

describe('attributes policy: lowering agrees with evaluation', () => {
    it('agrees for every operator, every value and every row value, plain and nested, present or missing', () => {
        const rows = [{}, { n: 1 }, ...ROW_VALUES.flatMap((value) => [{ a: value, n: { x: value } }, { n: value }])];
        for (const [operator, values] of Object.entries(QUERY_VALUES)) {
            for (const value of values) {
                expectAgreement({ a: { [operator]: value }, 'n.x': { $not: { [operator]: value } } }, false, rows);
                expectAgreement({ 'n.x': { [operator]: value } }, true, rows);
            }
        }
    });

    it('lower + matchCondition equals evaluate for random queries and rows', () => {
        fc.assert(fc.property(queryArb, fc.boolean(), fc.array(rowArb, { minLength: 1, maxLength: 8 }), (query, invert, rows) => {
            expectAgreement(query, invert, rows);
        }), { numRuns: 1000 });
    });

    it('canonicalisation is idempotent and keeps the meaning', () => {
        fc.assert(fc.property(queryArb, rowArb, (query, row) => {
            const canonical = engine.validate({ type: 'attributes', query });
            expect(engine.validate(canonical)).toEqual(canonical);
            expect(engine.evaluate(canonical, { attributes: row })).toBe(run(query, row));
        }), { numRuns: 300 });
    });
});
