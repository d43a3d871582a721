import { getAttributeValue, matchCondition } from '@realmgate/access';
import type { QueryCondition } from './types.js';

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
            const actual = getAttributeValue(row, condition.field);
            return typeof actual === 'string' && actual.includes(condition.value);
        }
        default:
            return matchCondition(condition, row);
    }
}
