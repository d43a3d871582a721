import type { PropertyPath } from '../../errors.js';
import type { ConditionScalar, FieldCondition } from '../condition.js';
import { isPlainObject } from '../path.js';
import { invalidPolicy } from '../validation.js';

/**
 * The canonical query an attributes policy stores under `query`. Validation normalises it so that
 * one meaning written in different ways is stored (and compared, hashed, diffed) as one form:
 *
 *   { $and?: Query[], $or?: Query[], $not?: Query, <field>: { <operator>: value, ... } }
 *
 * - the logical keys come first, in the order $and, $or, $not; fields follow, sorted by code unit
 *   (JavaScript itself lists integer-like keys first, whatever the insertion order)
 * - a field always maps to an operator object: the shorthand `{ a: 1 }` becomes `{ a: { $eq: 1 } }`
 * - a field's operators appear in the order of FIELD_OPERATORS; a field-level `$not` holds an
 *   operator object in the same form
 * - $in / $nin lists are deduplicated (first occurrence kept, order otherwise unchanged)
 * - $and / $or keep their order and nesting: only syntax is normalised, never the logic
 * - `{}` is the query that matches every row
 */
export interface AttributesQuery {
    $and?: AttributesQuery[];
    $or?: AttributesQuery[];
    $not?: AttributesQuery;
    [field: string]: FieldOperators | AttributesQuery | AttributesQuery[] | undefined;
}

export interface FieldOperators {
    $eq?: ConditionScalar;
    $ne?: ConditionScalar;
    $in?: ConditionScalar[];
    $nin?: ConditionScalar[];
    $gt?: string | number;
    $gte?: string | number;
    $lt?: string | number;
    $lte?: string | number;
    $exists?: boolean;
    $startsWith?: string;
    $endsWith?: string;
    $not?: FieldOperators;
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** One operator applied to a field's value; leaves reuse the Condition vocabulary so lowering is a copy. */
export type FieldTest = DistributiveOmit<FieldCondition, 'field'> | { operator: 'not'; tests: FieldTest[] };

export interface FieldNode {
    name: string;
    tests: FieldTest[];
}

/** A parsed query: every present part must hold (a conjunction). */
export interface QueryNode {
    fields: FieldNode[];
    and: QueryNode[] | null;
    or: QueryNode[] | null;
    not: QueryNode | null;
}

/** Fixed order of the canonical form; also the set of operators accepted at field level. */
const FIELD_OPERATORS = [
    '$eq', '$ne', '$in', '$nin', '$gt', '$gte', '$lt', '$lte', '$exists', '$startsWith', '$endsWith', '$not',
] as const;

type FieldOperatorKey = typeof FIELD_OPERATORS[number];

const FIELD_OPERATOR_SET = new Set<string>(FIELD_OPERATORS);

/** Bounds the pre-scan so a cyclic or hostile document cannot exhaust the stack. */
const MAX_QUERY_DEPTH = 32;

const REGEX_REFUSED = '$regex is not supported: regular expressions are refused (use $startsWith or $endsWith)';

const SCALAR = 'a string, a finite number, a boolean or null';

const hasOwn = Object.prototype.hasOwnProperty;

/** Parse and check a query as written; throws INVALID_POLICY naming the offending path. */
export function parseQuery(input: unknown, path: PropertyPath): QueryNode {
    // $regex is refused before anything else so its message wins over any other complaint nearby
    refuseRegex(input, path, 0);
    return readQuery(input, path);
}

function refuseRegex(value: unknown, path: PropertyPath, depth: number): void {
    if (depth > MAX_QUERY_DEPTH) {
        throw invalidPolicy(path, `query nested deeper than ${MAX_QUERY_DEPTH} levels`);
    }
    if (value instanceof RegExp) {
        throw invalidPolicy(path, REGEX_REFUSED);
    }
    if (Array.isArray(value)) {
        value.forEach((item, index) => refuseRegex(item, [...path, index], depth + 1));
        return;
    }
    if (typeof value !== 'object' || value === null) {
        return;
    }
    for (const key of Object.keys(value)) {
        if (key === '$regex' || key === '$options') {
            throw invalidPolicy([...path, key], REGEX_REFUSED);
        }
        refuseRegex((value as Record<string, unknown>)[key], [...path, key], depth + 1);
    }
}

function readQuery(input: unknown, path: PropertyPath): QueryNode {
    if (!isPlainObject(input)) {
        throw invalidPolicy(path, 'expected a query object');
    }
    const node: QueryNode = { fields: [], and: null, or: null, not: null };
    for (const key of Object.keys(input)) {
        const at = [...path, key];
        const value = input[key];
        if (key === '$and') node.and = readQueryList(value, at);
        else if (key === '$or') node.or = readQueryList(value, at);
        else if (key === '$not') node.not = readQuery(value, at);
        else if (key.startsWith('$')) throw invalidPolicy(at, `unknown operator '${key}'; expected $and, $or, $not or a field name`);
        else if (key.length === 0) throw invalidPolicy(at, 'expected a non-empty field name');
        else node.fields.push({ name: key, tests: readFieldValue(value, at) });
    }
    node.fields.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return node;
}

function readQueryList(value: unknown, path: PropertyPath): QueryNode[] {
    if (!Array.isArray(value) || value.length === 0) {
        throw invalidPolicy(path, 'expected a non-empty list of queries');
    }
    return value.map((item, index) => readQuery(item, [...path, index]));
}

function readFieldValue(value: unknown, path: PropertyPath): FieldTest[] {
    if (isPlainObject(value)) {
        return readOperators(value, path);
    }
    if (Array.isArray(value)) {
        throw invalidPolicy(path, 'lists are not compared; use $in with a list of scalars');
    }
    return [{ operator: 'eq', value: readScalar(value, path, `expected ${SCALAR}, or an operator object`) }];
}

function readOperators(input: Record<string, unknown>, path: PropertyPath): FieldTest[] {
    const keys = Object.keys(input);
    if (keys.length === 0) {
        throw invalidPolicy(path, 'expected at least one operator such as $eq');
    }
    for (const key of keys) {
        if (!FIELD_OPERATOR_SET.has(key)) {
            throw invalidPolicy([...path, key], key.startsWith('$') ?
                `unknown operator '${key}'; expected one of ${FIELD_OPERATORS.join(', ')}` :
                'nested objects are not compared; use an operator such as $eq (a dotted field name reaches nested attributes)');
        }
    }
    // reading in the fixed order is what makes the canonical operator order
    return FIELD_OPERATORS.filter((key) => hasOwn.call(input, key))
        .map((key) => readOperator(key, input[key], [...path, key]));
}

function readOperator(key: FieldOperatorKey, value: unknown, path: PropertyPath): FieldTest {
    switch (key) {
        case '$eq':
        case '$ne':
            return { operator: key === '$eq' ? 'eq' : 'ne', value: readScalar(value, path, `expected ${SCALAR}`) };
        case '$in':
        case '$nin':
            return { operator: key === '$in' ? 'in' : 'nin', value: readScalarList(value, path) };
        case '$gt':
        case '$gte':
        case '$lt':
        case '$lte':
            return { operator: comparisonOperator(key), value: readComparable(value, path) };
        case '$exists':
            if (typeof value !== 'boolean') throw invalidPolicy(path, 'expected a boolean');
            return { operator: 'exists', value };
        case '$startsWith':
        case '$endsWith':
            if (typeof value !== 'string') throw invalidPolicy(path, 'expected a string');
            return { operator: key === '$startsWith' ? 'startsWith' : 'endsWith', value };
        default:
            if (!isPlainObject(value)) throw invalidPolicy(path, 'expected an operator object such as { $eq: value }');
            return { operator: 'not', tests: readOperators(value, path) };
    }
}

function comparisonOperator(key: '$gt' | '$gte' | '$lt' | '$lte'): 'gt' | 'gte' | 'lt' | 'lte' {
    return key.slice(1) as 'gt' | 'gte' | 'lt' | 'lte';
}

function readScalar(value: unknown, path: PropertyPath, expectation: string): ConditionScalar {
    if (value === null || typeof value === 'string' || typeof value === 'boolean') {
        return value;
    }
    // NaN and Infinity do not survive JSON, so the stored policy would silently change meaning
    if (typeof value === 'number' && Number.isFinite(value)) {
        return value;
    }
    throw invalidPolicy(path, expectation);
}

function readScalarList(value: unknown, path: PropertyPath): ConditionScalar[] {
    if (!Array.isArray(value)) {
        throw invalidPolicy(path, `expected a list of scalars (${SCALAR})`);
    }
    const items = value.map((item, index) => readScalar(item, [...path, index], `expected ${SCALAR}`));
    return [...new Set(items)];
}

function readComparable(value: unknown, path: PropertyPath): string | number {
    if (typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value))) {
        return value;
    }
    throw invalidPolicy(path, 'expected a string or a finite number');
}

export function canonicalQuery(node: QueryNode): AttributesQuery {
    const out: AttributesQuery = {};
    if (node.and) out.$and = node.and.map(canonicalQuery);
    if (node.or) out.$or = node.or.map(canonicalQuery);
    if (node.not) out.$not = canonicalQuery(node.not);
    for (const { name, tests } of node.fields) {
        // defineProperty, because assigning a field literally named __proto__ would set the prototype
        Object.defineProperty(out, name, { value: canonicalOperators(tests), enumerable: true, writable: true, configurable: true });
    }
    return out;
}

function canonicalOperators(tests: readonly FieldTest[]): FieldOperators {
    const out: Record<string, unknown> = {};
    for (const test of tests) {
        if (test.operator === 'not') out.$not = canonicalOperators(test.tests);
        else out[`$${test.operator}`] = Array.isArray(test.value) ? [...test.value] : test.value;
    }
    return out as FieldOperators;
}
