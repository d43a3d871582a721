import { issue, type Issue } from '../errors/app-error.js';
import { QUERY_ISSUE, type QueryEntry } from './raw.js';
import type { CollectionQuerySpec, ListQuery } from './types.js';

/** API.md §2: default limit 50, maximum 100 unless the collection says otherwise. */
const DEFAULT_LIMIT = 50;
const DEFAULT_MAX_LIMIT = 100;

const DIGITS = /^\d+$/;

export function parsePage(entries: readonly QueryEntry[], spec: CollectionQuerySpec, issues: Issue[]): ListQuery['page'] {
    const maxLimit = spec.maxLimit ?? DEFAULT_MAX_LIMIT;
    const page = { limit: Math.min(DEFAULT_LIMIT, maxLimit), offset: 0 };
    for (const entry of entries) {
        const [key, ...rest] = entry.keys;
        if (key === undefined || rest.length > 0) {
            issues.push(issue(['page', ...entry.keys], QUERY_ISSUE.malformed, 'Use page[limit]=N and page[offset]=N.'));
            continue;
        }
        const value = DIGITS.test(entry.value) ? Number(entry.value) : NaN;
        if (key === 'limit') {
            if (Number.isInteger(value) && value >= 1 && value <= maxLimit) page.limit = value;
            else issues.push(issue(['page', 'limit'], QUERY_ISSUE.invalidPage, `Expected an integer from 1 to ${maxLimit}.`));
        } else if (key === 'offset') {
            if (Number.isSafeInteger(value)) page.offset = value;
            else issues.push(issue(['page', 'offset'], QUERY_ISSUE.invalidPage, 'Expected an integer of 0 or more.'));
        } else {
            issues.push(issue(['page', key], QUERY_ISSUE.unknownParameter, 'Unknown page parameter; allowed are limit and offset.'));
        }
    }
    return page;
}
