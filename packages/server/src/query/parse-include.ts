import { issue, type Issue } from '../errors/app-error.js';
import { own, QUERY_ISSUE, splitList, type QueryEntry } from './raw.js';
import type { CollectionQuerySpec } from './types.js';

/** `include=realm,role`: allowed relations only (the route still gates each by read permission). */
export function parseInclude(entries: readonly QueryEntry[], spec: CollectionQuerySpec, issues: Issue[]): string[] {
    const include = new Set<string>();
    for (const entry of entries) {
        if (entry.keys.length > 0) {
            issues.push(issue(['include', ...entry.keys], QUERY_ISSUE.malformed, 'Use include=a,b.'));
            continue;
        }
        for (const name of splitList(entry.value, ['include'], issues) ?? []) {
            const relation = own(spec.relations, name);
            if (!relation || relation.include === false) {
                issues.push(issue(['include', name], QUERY_ISSUE.unknownInclude, 'Unknown or not includable relation.'));
            } else {
                include.add(name);
            }
        }
    }
    return [...include];
}
