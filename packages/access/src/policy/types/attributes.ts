import type { PropertyPath } from '../../errors.js';
import type { ConditionScalar, FieldCondition, Lowered } from '../condition.js';
import { andLowered, notLowered, orLowered } from '../condition.js';
import { BuiltInPolicyType } from '../constants.js';
import { Outcome, passIf } from '../outcome.js';
import type { CanonicalPolicy, CompiledPolicy, PolicyTypeDefinition } from '../types.js';
import { invalidPolicy, readInvert } from '../validation.js';
import type { AttributesQuery, FieldNode, FieldTest, QueryNode } from './attributes-query.js';
import { canonicalQuery, parseQuery } from './attributes-query.js';

export type { AttributesQuery, FieldOperators } from './attributes-query.js';

/**
 * Passes when the attributes (data.attributes: the resource row or the body being written) match
 * a MongoDB-style query; see attributes-query.ts for the canonical query form. Its semantics are
 * those of `matchCondition`, since `lower` hands the same query to servers as a row Condition.
 */
export interface AttributesPolicy extends CanonicalPolicy {
    type: typeof BuiltInPolicyType.ATTRIBUTES;
    invert: boolean;
    query: AttributesQuery;
}

type Row = Record<string, unknown>;
type Test<T> = (input: T) => boolean;

const hasOwn = Object.prototype.hasOwnProperty;

export const attributesPolicyType: PolicyTypeDefinition<AttributesPolicy> = {
    type: BuiltInPolicyType.ATTRIBUTES,

    validate(input: Record<string, unknown>, path: PropertyPath): AttributesPolicy {
        if (input.query === undefined) {
            throw invalidPolicy([...path, 'query'], 'is required: a query object over the attributes ({} matches all)');
        }
        return {
            type: BuiltInPolicyType.ATTRIBUTES,
            invert: readInvert(input, path),
            query: canonicalQuery(parseQuery(input.query, [...path, 'query'])),
        };
    },

    build(policy: AttributesPolicy): CompiledPolicy {
        // build may receive a catalog copy that never went through validate, so parse again; it is cheap and once
        const node = parseQuery(policy.query, ['query']);
        const invert = policy.invert === true;
        const matches = compileQuery(node);
        const lowered = freezeLowered(invert ? notLowered(lowerQuery(node)) : lowerQuery(node));
        return {
            policy,
            containsBinding: false,
            evaluate(ctx) {
                const row = ctx.data[BuiltInPolicyType.ATTRIBUTES];
                // null is not valid data either; treat it like absence rather than as an empty row
                if (row === undefined || row === null) return Outcome.PENDING;
                return passIf(matches(row), invert);
            },
            // the query is over the row itself, so the lowering never depends on the context
            lower: () => lowered,
        };
    },
};

function allOf<T>(tests: readonly Test<T>[]): Test<T> {
    if (tests.length === 0) return () => true;
    if (tests.length === 1) return tests[0]!;
    return (input) => {
        for (const test of tests) {
            if (!test(input)) return false;
        }
        return true;
    };
}

function anyOf<T>(tests: readonly Test<T>[]): Test<T> {
    return (input) => {
        for (const test of tests) {
            if (test(input)) return true;
        }
        return false;
    };
}

function negate<T>(test: Test<T>): Test<T> {
    return (input) => !test(input);
}

function compileQuery(node: QueryNode): Test<Row> {
    const parts = node.fields.map(compileField);
    if (node.and) parts.push(allOf(node.and.map(compileQuery)));
    if (node.or) parts.push(anyOf(node.or.map(compileQuery)));
    if (node.not) parts.push(negate(compileQuery(node.not)));
    return allOf(parts);
}

function compileField({ name, tests }: FieldNode): Test<Row> {
    const read = attributeReader(name);
    const test = allOf(tests.map(compileTest));
    return (row) => test(read(row));
}

/** Mirrors getAttributeValue (literal key first, then the dotted walk) with the split done once. */
function attributeReader(name: string): (row: Row) => unknown {
    const parts = name.includes('.') ? name.split('.') : null;
    return (row) => {
        if (hasOwn.call(row, name)) return row[name];
        if (parts === null) return undefined;
        let current: unknown = row;
        for (const part of parts) {
            if (typeof current !== 'object' || current === null || !hasOwn.call(current, part)) return undefined;
            current = (current as Row)[part];
        }
        return current;
    };
}

function compileTest(test: FieldTest): Test<unknown> {
    switch (test.operator) {
        case 'eq':
            return equalTo(test.value);
        case 'ne':
            return negate(equalTo(test.value));
        case 'in':
            return oneOf(test.value);
        case 'nin':
            return negate(oneOf(test.value));
        case 'gt':
        case 'gte':
        case 'lt':
        case 'lte':
            return comparison(test.operator, test.value);
        case 'exists':
            return test.value ? (value) => value !== null && value !== undefined : isNullish;
        case 'startsWith': {
            const prefix = test.value;
            return (value) => typeof value === 'string' && value.startsWith(prefix);
        }
        case 'endsWith': {
            const suffix = test.value;
            return (value) => typeof value === 'string' && value.endsWith(suffix);
        }
        case 'not':
            return negate(allOf(test.tests.map(compileTest)));
    }
}

function isNullish(value: unknown): boolean {
    return value === null || value === undefined;
}

/** A null expected value also matches a missing attribute (matchCondition's equalsScalar). */
function equalTo(expected: ConditionScalar): Test<unknown> {
    return expected === null ? isNullish : (value) => value === expected;
}

function oneOf(expected: readonly ConditionScalar[]): Test<unknown> {
    const matchesNullish = expected.includes(null);
    // Set uses SameValueZero, which differs from === only for NaN, and the parser refuses NaN
    const values = new Set<unknown>(expected.filter((value) => value !== null));
    return (value) => (matchesNullish && isNullish(value)) || values.has(value);
}

/** Only same-type values compare; NaN fails every relational operator, as matchCondition wants. */
function comparison(operator: 'gt' | 'gte' | 'lt' | 'lte', expected: string | number): Test<unknown> {
    const kind = typeof expected;
    switch (operator) {
        case 'gt':
            return (value) => typeof value === kind && (value as string | number) > expected;
        case 'gte':
            return (value) => typeof value === kind && (value as string | number) >= expected;
        case 'lt':
            return (value) => typeof value === kind && (value as string | number) < expected;
        default:
            return (value) => typeof value === kind && (value as string | number) <= expected;
    }
}

function lowerQuery(node: QueryNode): Lowered {
    const parts = node.fields.map(({ name, tests }) => lowerTests(name, tests));
    if (node.and) parts.push(andLowered(node.and.map(lowerQuery)));
    if (node.or) parts.push(orLowered(node.or.map(lowerQuery)));
    if (node.not) parts.push(notLowered(lowerQuery(node.not)));
    return andLowered(parts);
}

function lowerTests(name: string, tests: readonly FieldTest[]): Lowered {
    return andLowered(tests.map((test) => lowerTest(name, test)));
}

function lowerTest(name: string, test: FieldTest): Lowered {
    if (test.operator === 'not') return notLowered(lowerTests(name, test.tests));
    // folded so servers never have to translate an empty IN list
    if (test.operator === 'in' && test.value.length === 0) return false;
    if (test.operator === 'nin' && test.value.length === 0) return true;
    return { ...test, field: name, ...(Array.isArray(test.value) ? { value: [...test.value] } : {}) } as FieldCondition;
}

/** One lowering is shared by every call, so freeze it: a consumer mutating it would corrupt the next. */
function freezeLowered(lowered: Lowered): Lowered {
    if (typeof lowered === 'object' && lowered !== null) deepFreeze(lowered);
    return lowered;
}

function deepFreeze(value: object): void {
    for (const item of Object.values(value)) {
        if (typeof item === 'object' && item !== null) deepFreeze(item);
    }
    Object.freeze(value);
}
