import { issue, type Issue } from '../errors/app-error.js';
import { own, QUERY_ISSUE, splitList, type QueryEntry } from './raw.js';
import type { CollectionQuerySpec, SortItem } from './types.js';

/**
 * `sort=name,-createdAt` (and the object form `sort[name]=desc`). Only the collection's own
 * sortable fields: sorting through a relation would need a join the route may not make.
 */
export function parseSort(entries: readonly QueryEntry[], spec: CollectionQuerySpec, issues: Issue[]): SortItem[] {
    if (entries.length === 0) return (spec.defaultSort ?? []).map((item) => ({ ...item }));
    const sort: SortItem[] = [];
    const add = (name: string, direction: SortItem['direction']): void => {
        const field = own(spec.fields, name);
        if (!field || !(field.sort ?? !field.withheld)) {
            issues.push(issue(['sort', name], QUERY_ISSUE.unknownSort, 'Unknown sort key.'));
        } else if (sort.some((item) => item.field === name)) {
            issues.push(issue(['sort', name], QUERY_ISSUE.malformed, 'The sort key is given more than once.'));
        } else {
            sort.push({ field: name, direction });
        }
    };
    for (const entry of entries) {
        if (entry.keys.length === 0) {
            for (const item of splitList(entry.value, ['sort'], issues) ?? []) {
                if (item.startsWith('-')) add(item.slice(1), 'desc');
                else add(item, 'asc');
            }
        } else if (entry.keys.length === 1) {
            const direction = entry.value.toLowerCase();
            if (direction !== 'asc' && direction !== 'desc') {
                issues.push(issue(['sort', entry.keys[0]!], QUERY_ISSUE.malformed, 'Expected asc or desc.'));
            } else {
                add(entry.keys[0]!, direction);
            }
        } else {
            issues.push(issue(['sort', ...entry.keys], QUERY_ISSUE.malformed, 'Use sort=name,-createdAt.'));
        }
    }
    return sort;
}
