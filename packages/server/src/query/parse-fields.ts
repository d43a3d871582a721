import { issue, type Issue } from '../errors/app-error.js';
import { own, QUERY_ISSUE, splitList, type QueryEntry } from './raw.js';
import type { CollectionQuerySpec, ListQuery } from './types.js';

type FieldsResult = Pick<ListQuery, 'fields' | 'perRelationFields'>;

/** The default projection: every field not withheld, in the spec's order. */
export function defaultFields(spec: CollectionQuerySpec): string[] {
    return Object.keys(spec.fields).filter((name) => !spec.fields[name]!.withheld);
}

/**
 * An unencoded `+` in a query string decodes to a space (`?fields=+secret` arrives as " secret").
 * Field names never start with a space, so a leading space can only be that `+`.
 */
function restorePlus(item: string): string {
    return item.startsWith(' ') && item.trim().length > 0 ? `+${item.trim()}` : item;
}

function parseBase(entry: QueryEntry, spec: CollectionQuerySpec, issues: Issue[]): FieldsResult['fields'] {
    const selected = new Set<string>();
    const added = new Set<string>();
    for (const raw of splitList(entry.value, ['fields'], issues) ?? []) {
        const item = restorePlus(raw);
        const plus = item.startsWith('+');
        const name = plus ? item.slice(1) : item;
        const field = own(spec.fields, name);
        if (!field) {
            issues.push(issue(['fields', name], QUERY_ISSUE.unknownField, 'Unknown field.'));
        } else if (plus && !field.withheld) {
            issues.push(issue(['fields', name], QUERY_ISSUE.invalidField, 'Only a withheld field can be added with "+"; list it without "+".'));
        } else if (!plus && field.withheld) {
            // Spec: withheld fields are projected with ?fields=+name, never by a plain listing.
            issues.push(issue(['fields', name], QUERY_ISSUE.invalidField, `The field is withheld; request it with "+${name}".`));
        } else {
            (plus ? added : selected).add(name);
        }
    }
    return { base: selected.size > 0 ? [...selected] : defaultFields(spec), added: [...added] };
}

/** `fields[client]=+secret` on junction collections: only additions of withheld relation fields. */
function parseRelation(entry: QueryEntry, spec: CollectionQuerySpec, issues: Issue[]): [string, string[]] | null {
    const relationName = entry.keys[0]!;
    const relation = own(spec.relations, relationName);
    if (!relation) {
        issues.push(issue(['fields', relationName], QUERY_ISSUE.unknownField, 'Unknown relation.'));
        return null;
    }
    const added = new Set<string>();
    for (const raw of splitList(entry.value, ['fields', relationName], issues) ?? []) {
        const item = restorePlus(raw);
        const name = item.startsWith('+') ? item.slice(1) : item;
        const field = own(relation.fields, name);
        if (!field) {
            issues.push(issue(['fields', relationName, name], QUERY_ISSUE.unknownField, 'Unknown field of the relation.'));
        } else if (!item.startsWith('+') || !field.withheld) {
            issues.push(issue(['fields', relationName, name], QUERY_ISSUE.invalidField, 'A relation projection only adds withheld fields with "+name".'));
        } else {
            added.add(name);
        }
    }
    return [relationName, [...added]];
}

export function parseFields(entries: readonly QueryEntry[], spec: CollectionQuerySpec, issues: Issue[]): FieldsResult {
    let fields: FieldsResult['fields'] = { base: defaultFields(spec), added: [] };
    let perRelationFields: Record<string, { added: string[] }> | undefined;
    for (const entry of entries) {
        if (entry.keys.length === 0) {
            fields = parseBase(entry, spec, issues);
        } else if (entry.keys.length === 1) {
            const parsed = parseRelation(entry, spec, issues);
            if (parsed) {
                perRelationFields ??= {};
                perRelationFields[parsed[0]] = { added: parsed[1] };
            }
        } else {
            issues.push(issue(['fields', ...entry.keys], QUERY_ISSUE.malformed, 'Use fields=a,b or fields[relation]=+name.'));
        }
    }
    return perRelationFields ? { fields, perRelationFields } : { fields };
}
