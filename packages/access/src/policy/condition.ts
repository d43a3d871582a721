import { invalidInput, type PropertyPath } from '../errors.js';
import { getAttributeValue, isPlainObject } from './path.js';

/**
 * A row condition produced by compile (spec consumer rule 11): a tree over row attributes that a
 * server ANDs into its row and count queries. Field names are attribute names (dotted names reach
 * nested attributes).
 *
 * Semantics are two-valued and null-safe, defined by `matchCondition`: a comparison against a
 * missing or null attribute is false, never unknown, so `not` of it is true. A SQL translator must
 * therefore make each field test null-safe (for example `COALESCE(col > ?, FALSE)`), and `eq`/`ne`
 * with null mean IS NULL / IS NOT NULL.
 */
export type FieldOperator = 'eq' | 'ne' | 'in' | 'nin' | 'gt' | 'gte' | 'lt' | 'lte' | 'exists' | 'startsWith' | 'endsWith';

export type ConditionScalar = string | number | boolean | null;

export type FieldCondition =
    | { operator: 'eq' | 'ne'; field: string; value: ConditionScalar }
    | { operator: 'in' | 'nin'; field: string; value: ConditionScalar[] }
    | { operator: 'gt' | 'gte' | 'lt' | 'lte'; field: string; value: string | number }
    | { operator: 'exists'; field: string; value: boolean }
    | { operator: 'startsWith' | 'endsWith'; field: string; value: string };

export type Condition =
    | FieldCondition
    | { operator: 'and' | 'or'; conditions: Condition[] }
    | { operator: 'not'; condition: Condition };

/**
 * A lowered policy: true / false when settled without the row, a Condition when it depends on
 * row attributes, null when it needs data that cannot be expressed over the row (→ post).
 */
export type Lowered = boolean | Condition | null;

export function field(operator: 'eq' | 'ne', name: string, value: ConditionScalar): FieldCondition;
export function field(operator: 'in' | 'nin', name: string, value: ConditionScalar[]): FieldCondition;
export function field(operator: 'gt' | 'gte' | 'lt' | 'lte', name: string, value: string | number): FieldCondition;
export function field(operator: 'exists', name: string, value: boolean): FieldCondition;
export function field(operator: 'startsWith' | 'endsWith', name: string, value: string): FieldCondition;
export function field(operator: FieldOperator, name: string, value: unknown): FieldCondition {
    return { operator, field: name, value } as FieldCondition;
}

/** AND with constant folding: false wins, then null (unlowerable), true drops out. */
export function andLowered(items: readonly Lowered[]): Lowered {
    const conditions: Condition[] = [];
    let unknown = false;
    for (const item of items) {
        if (item === false) return false;
        if (item === null) unknown = true;
        else if (item !== true) conditions.push(item);
    }
    if (unknown) return null;
    return joinConditions('and', conditions, true);
}

/** OR with constant folding: true wins, then null, false drops out. */
export function orLowered(items: readonly Lowered[]): Lowered {
    const conditions: Condition[] = [];
    let unknown = false;
    for (const item of items) {
        if (item === true) return true;
        if (item === null) unknown = true;
        else if (item !== false) conditions.push(item);
    }
    if (unknown) return null;
    return joinConditions('or', conditions, false);
}

export function notLowered(item: Lowered): Lowered {
    if (item === null) return null;
    if (typeof item === 'boolean') return !item;
    if (item.operator === 'not') return item.condition;
    return { operator: 'not', condition: item };
}

function joinConditions(operator: 'and' | 'or', conditions: Condition[], empty: boolean): Lowered {
    if (conditions.length === 0) return empty;
    if (conditions.length === 1) return conditions[0]!;
    const flat: Condition[] = [];
    for (const condition of conditions) {
        if (condition.operator === operator) flat.push(...condition.conditions);
        else flat.push(condition);
    }
    return { operator, conditions: flat };
}

function equalsScalar(actual: unknown, expected: ConditionScalar): boolean {
    if (expected === null) {
        return actual === null || actual === undefined;
    }
    return actual === expected;
}

function compare(actual: unknown, expected: string | number): number | null {
    if (typeof actual !== typeof expected || (typeof actual !== 'string' && typeof actual !== 'number')) {
        return null;
    }
    if (typeof actual === 'number' && Number.isNaN(actual)) {
        return null;
    }
    if (actual === expected) return 0;
    return (actual as string | number) < expected ? -1 : 1;
}

function matchField(condition: FieldCondition, row: unknown): boolean {
    const actual = getAttributeValue(row, condition.field);
    switch (condition.operator) {
        case 'eq':
            return equalsScalar(actual, condition.value);
        case 'ne':
            return !equalsScalar(actual, condition.value);
        case 'in':
            return condition.value.some((value) => equalsScalar(actual, value));
        case 'nin':
            return !condition.value.some((value) => equalsScalar(actual, value));
        case 'gt': {
            const order = compare(actual, condition.value);
            return order !== null && order > 0;
        }
        case 'gte': {
            const order = compare(actual, condition.value);
            return order !== null && order >= 0;
        }
        case 'lt': {
            const order = compare(actual, condition.value);
            return order !== null && order < 0;
        }
        case 'lte': {
            const order = compare(actual, condition.value);
            return order !== null && order <= 0;
        }
        case 'exists':
            return (actual !== null && actual !== undefined) === condition.value;
        case 'startsWith':
            return typeof actual === 'string' && actual.startsWith(condition.value);
        case 'endsWith':
            return typeof actual === 'string' && actual.endsWith(condition.value);
        default:
            return false;
    }
}

function matchTree(condition: Condition, row: unknown): boolean {
    switch (condition.operator) {
        case 'and':
            return condition.conditions.every((item) => matchTree(item, row));
        case 'or':
            return condition.conditions.some((item) => matchTree(item, row));
        case 'not':
            return !matchTree(condition.condition, row);
        default:
            return matchField(condition, row);
    }
}

const SCALAR_OPERATORS = new Set(['eq', 'ne']);
const LIST_OPERATORS = new Set(['in', 'nin']);
const ORDER_OPERATORS = new Set(['gt', 'gte', 'lt', 'lte']);
const STRING_OPERATORS = new Set(['startsWith', 'endsWith']);

function isScalar(value: unknown): boolean {
    return value === null || typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value));
}

function fieldValueValid(operator: string, value: unknown): boolean {
    if (SCALAR_OPERATORS.has(operator)) return isScalar(value);
    if (LIST_OPERATORS.has(operator)) return Array.isArray(value) && value.every(isScalar);
    if (ORDER_OPERATORS.has(operator)) return typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));
    if (STRING_OPERATORS.has(operator)) return typeof value === 'string';
    if (operator === 'exists') return typeof value === 'boolean';
    return false;
}

/** Check a condition's shape (it may come from another process); throws a typed error naming the node. */
export function validateCondition(condition: unknown, path: PropertyPath = ['condition']): asserts condition is Condition {
    if (!isPlainObject(condition)) throw invalidInput(path, 'expected a condition object');
    const { operator } = condition;
    if (operator === 'and' || operator === 'or') {
        if (!Array.isArray(condition.conditions) || condition.conditions.length === 0) {
            throw invalidInput([...path, 'conditions'], 'expected a non-empty list of conditions');
        }
        condition.conditions.forEach((item: unknown, index: number) => validateCondition(item, [...path, 'conditions', index]));
        return;
    }
    if (operator === 'not') {
        validateCondition(condition.condition, [...path, 'condition']);
        return;
    }
    if (typeof operator !== 'string' || !fieldValueValid(operator, condition.value)) {
        throw invalidInput([...path, 'value'], `not a valid value for operator ${JSON.stringify(operator)}`);
    }
    if (typeof condition.field !== 'string' || condition.field.length === 0) {
        throw invalidInput([...path, 'field'], 'expected an attribute name');
    }
}

/** Conditions already checked: a server matching one condition against many rows validates it once. */
const validated = new WeakSet<object>();

/** The reference semantics of a Condition over one row; servers' SQL must agree with it. */
export function matchCondition(condition: Condition, row: unknown): boolean {
    if (typeof condition !== 'object' || condition === null || !validated.has(condition)) {
        validateCondition(condition);
        validated.add(condition);
    }
    return matchTree(condition, row);
}
