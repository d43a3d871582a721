import type { ConditionScalar } from '@realmgate/access';
import { issue, type Issue } from '../errors/app-error.js';
import { coerceValue } from './coerce.js';
import { own, QUERY_ISSUE, type QueryEntry } from './raw.js';
import type { CollectionQuerySpec, QueryCondition, QueryFieldSpec } from './types.js';

type Resolved = { ok: true; field: QueryFieldSpec } | { ok: false; message: string };

/** `name` or `relation.name` (one level: filters reach through an allowed relation, API.md §2). */
function resolveFilterField(spec: CollectionQuerySpec, name: string): Resolved {
    const parts = name.split('.');
    let collection = spec;
    if (parts.length === 2) {
        const relation = own(spec.relations, parts[0]!);
        if (!relation) return { ok: false, message: `Unknown relation "${parts[0]}".` };
        if (relation.filter === false) return { ok: false, message: `The relation "${parts[0]}" cannot be filtered through.` };
        collection = relation;
    } else if (parts.length !== 1) {
        return { ok: false, message: 'Filters reach one relation deep at most.' };
    }
    const field = own(collection.fields, parts[parts.length - 1]!);
    if (!field) return { ok: false, message: 'Unknown filter key.' };
    // Withheld fields (secrets, email) are not filterable unless the collection opts in: a filter would probe them.
    if (!(field.filter ?? !field.withheld)) return { ok: false, message: 'The field cannot be filtered.' };
    return { ok: true, field };
}

const COMPARISON = /^(<=|>=|<|>)/;
const COMPARISON_OPERATORS = { '<': 'lt', '<=': 'lte', '>': 'gt', '>=': 'gte' } as const;

/** A list item must be a plain value: an operator inside a list is ambiguous. */
function hasOperatorMarker(item: string): boolean {
    return item.startsWith('!') || item.startsWith('~') || item.endsWith('~') || COMPARISON.test(item);
}

type Parsed = { ok: true; condition: QueryCondition } | { ok: false; message: string };

/**
 * One `filter[name]=value` (API.md §2, rapiq syntax): `!` not, `~abc` ends-with, `abc~`
 * starts-with, `~abc~` contains, `<` `<=` `>` `>=`, a comma list is "in", `null` the null
 * literal. Dates take only the range operators (spec: equality on createdAt/updatedAt is 400).
 */
function parseFilterValue(name: string, field: QueryFieldSpec, value: string): Parsed {
    if (value === '') return { ok: false, message: 'The filter value is empty.' };
    const negate = value.startsWith('!');
    const body = negate ? value.slice(1) : value;
    if (body === '') return { ok: false, message: 'Nothing follows "!".' };

    const comparison = COMPARISON.exec(body);
    if (comparison) {
        if (negate) return { ok: false, message: 'A comparison cannot be negated; use the opposite operator.' };
        if (field.type !== 'number' && field.type !== 'date') {
            return { ok: false, message: 'The operators <, <=, > and >= apply to number and date fields.' };
        }
        const operand = body.slice(comparison[0].length);
        if (operand === '') return { ok: false, message: `Nothing follows "${comparison[0]}".` };
        const coerced = coerceValue(operand, field);
        if (!coerced.ok) return coerced;
        const operator = COMPARISON_OPERATORS[comparison[0] as keyof typeof COMPARISON_OPERATORS];
        return { ok: true, condition: { operator, field: name, value: coerced.value as string | number } };
    }

    if (field.type === 'date') {
        if (body === 'null' && field.nullable) return { ok: true, condition: { operator: negate ? 'ne' : 'eq', field: name, value: null } };
        return { ok: false, message: 'The field accepts only the range operators <, <=, > and >= with a date.' };
    }

    if (body.includes(',')) {
        const items = body.split(',');
        if (items.some((item) => item === '')) return { ok: false, message: 'The list has an empty item.' };
        const values: ConditionScalar[] = [];
        for (const item of items) {
            if (item === 'null') {
                values.push(null);
                continue;
            }
            if (hasOperatorMarker(item)) return { ok: false, message: 'A list item cannot carry an operator (!, ~, <, >).' };
            const coerced = coerceValue(item, field);
            if (!coerced.ok) return coerced;
            values.push(coerced.value);
        }
        return { ok: true, condition: { operator: negate ? 'nin' : 'in', field: name, value: values } };
    }

    if (body === 'null') return { ok: true, condition: { operator: negate ? 'ne' : 'eq', field: name, value: null } };

    const leading = body.startsWith('~');
    const trailing = body.length > 1 && body.endsWith('~');
    if (leading || trailing) {
        if (field.type !== 'string') return { ok: false, message: 'The like operator (~) applies to text fields.' };
        const operand = body.slice(leading ? 1 : 0, trailing ? -1 : undefined);
        if (operand === '') return { ok: false, message: 'The like operator (~) needs a value.' };
        const operator = leading && trailing ? 'contains' : leading ? 'endsWith' : 'startsWith';
        const condition: QueryCondition = { operator, field: name, value: operand };
        return { ok: true, condition: negate ? { operator: 'not', condition } : condition };
    }

    const coerced = coerceValue(body, field);
    if (!coerced.ok) return coerced;
    return { ok: true, condition: { operator: negate ? 'ne' : 'eq', field: name, value: coerced.value } };
}

/**
 * The most list values one query's filters may hold together. Each value is a bound parameter, and
 * the databases cap them per statement (SQLite 32,766, PostgreSQL 65,535): a longer "in" list was a
 * 500 (found by fuzzing), where a client's input answers 400 (API.md §1).
 */
export const MAX_FILTER_VALUES = 1_000;

/** Every filter entry, ANDed in request order; one issue per bad entry, path ['filter', name]. */
export function parseFilter(entries: readonly QueryEntry[], spec: CollectionQuerySpec, issues: Issue[]): QueryCondition | null {
    const conditions: QueryCondition[] = [];
    let values = 0;
    for (const entry of entries) {
        if (entry.keys.length === 0) {
            issues.push(issue(['filter'], QUERY_ISSUE.malformed, 'Use filter[field]=value.'));
            continue;
        }
        const name = entry.keys.join('.');
        const resolved = resolveFilterField(spec, name);
        if (!resolved.ok) {
            issues.push(issue(['filter', name], QUERY_ISSUE.unknownFilter, resolved.message));
            continue;
        }
        const parsed = parseFilterValue(name, resolved.field, entry.value);
        if (!parsed.ok) {
            issues.push(issue(['filter', name], QUERY_ISSUE.invalidFilter, parsed.message));
            continue;
        }
        const value = 'value' in parsed.condition ? parsed.condition.value : undefined;
        values += Array.isArray(value) ? value.length : 1;
        if (values > MAX_FILTER_VALUES) {
            issues.push(issue(['filter', name], QUERY_ISSUE.invalidFilter, `The filters hold more than ${MAX_FILTER_VALUES} values together.`));
            return null;
        }
        conditions.push(parsed.condition);
    }
    if (conditions.length === 0) return null;
    return conditions.length === 1 ? conditions[0]! : { operator: 'and', conditions };
}
