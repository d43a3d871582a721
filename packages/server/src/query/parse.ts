import { validationFailed, type Issue } from '../errors/app-error.js';
import { parseFields } from './parse-fields.js';
import { parseFilter } from './parse-filter.js';
import { parseInclude } from './parse-include.js';
import { parsePage } from './parse-page.js';
import { parseSort } from './parse-sort.js';
import { collectEntries, type QueryEntry, type QueryParameter } from './raw.js';
import type { CollectionQuerySpec, ListQuery } from './types.js';

/**
 * Parse a list read's query (API.md §2) against the collection's allow-lists. `raw` is Fastify's
 * parsed querystring, with bracket keys kept literally (`filter[name]`) or nested. Every problem
 * becomes one issue and they are thrown together as one validation 400 (spec: a malformed query
 * answers 400 with an issues list), so a client fixes its request in one round trip.
 */
export function parseListQuery(raw: Record<string, unknown>, spec: CollectionQuerySpec): ListQuery {
    const issues: Issue[] = [];
    const entries = collectEntries(raw, issues);
    const of = (parameter: QueryParameter): QueryEntry[] => entries.filter((entry) => entry.parameter === parameter);

    const filter = parseFilter(of('filter'), spec, issues);
    const fields = parseFields(of('fields'), spec, issues);
    const sort = parseSort(of('sort'), spec, issues);
    const page = parsePage(of('page'), spec, issues);
    const include = parseInclude(of('include'), spec, issues);

    if (issues.length > 0) throw validationFailed(issues);
    return { filter, ...fields, sort, page, include };
}
