import { matchCondition } from '@realmgate/access';
import type { QueryCondition } from './types.js';

function valueAt(row: unknown, name: string): unknown {
    // The same lookup as the access library: a literal key first, then a dotted walk.
    let current: unknown = row;
    if (typeof row === 'object' && row !== null && Object.hasOwn(row, name)) return (row as Record<string, unknown>)[name];
    for (const part of name.split('.')) {
        if (typeof current !== 'object' || current === null || !Object.hasOwn(current, part)) return undefined;
        current = (current as Record<string, unknown>)[part];
    }
    return current;
}

/**
 * The reference semantics of a QueryCondition over one row: `matchCondition` for everything the
 * access library defines, and for `contains` the same null-safe rule as its startsWith (a
 * non-string or missing value never contains anything). SQL translations must agree with it.
 */
export function matchQueryCondition(condition: QueryCondition, row: unknown): boolean {
    switch (condition.operator) {
        case 'and':
            return condition.conditions.every((item) => matchQueryCondition(item, row));
        case 'or':
            return condition.conditions.some((item) => matchQueryCondition(item, row));
        case 'not':
            return !matchQueryCondition(condition.condition, row);
        case 'contains': {
            const actual = valueAt(row, condition.field);
            return typeof actual === 'string' && actual.includes(condition.value);
        }
        default:
            return matchCondition(condition, row);
    }
}

/** AND two optional conditions (the client's filter and the authorization condition). */
export function andConditions(...items: (QueryCondition | null | undefined)[]): QueryCondition | null {
    const present = items.filter((item): item is QueryCondition => item !== null && item !== undefined);
    if (present.length === 0) return null;
    return present.length === 1 ? present[0]! : { operator: 'and', conditions: present };
}
