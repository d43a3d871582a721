import { issue, type Issue } from '../errors/app-error.js';

const QUERY_PARAMETERS = ['filter', 'fields', 'sort', 'page', 'include'] as const;
export type QueryParameter = (typeof QUERY_PARAMETERS)[number];

/** Stable issue codes of list-query 400s (the `issues[].code` values). */
export const QUERY_ISSUE = {
    unknownParameter: 'unknown_parameter',
    malformed: 'malformed_parameter',
    unknownFilter: 'unknown_filter',
    invalidFilter: 'invalid_filter',
    unknownField: 'unknown_field',
    invalidField: 'invalid_field',
    unknownSort: 'unknown_sort',
    unknownInclude: 'unknown_include',
    invalidPage: 'invalid_page',
} as const;

/** One leaf of the query: `filter[user][id]=x` → { parameter: 'filter', keys: ['user', 'id'], value: 'x' }. */
export interface QueryEntry {
    parameter: QueryParameter;
    keys: string[];
    value: string;
}

/** Where repeated values (`?include=a&include=b`) are joined as one comma list. */
const LIST_VALUED = new Set<QueryParameter>(['fields', 'sort', 'include']);

const KEY_SHAPE = /^([^[\]]+)((?:\[[^[\]]*\])*)$/;

function isPlainObject(value: unknown): value is Record<string, unknown> {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
    const proto: unknown = Object.getPrototypeOf(value);
    return proto === Object.prototype || proto === null;
}

/**
 * Flatten Fastify's querystring object into leaves. Fastify's default parser keeps brackets in
 * the key (`'filter[name]'`), while a qs-style parser nests objects (`{ filter: { name } }`);
 * both, and mixtures, reduce to the same entries so the rest of the parser sees one shape.
 */
export function collectEntries(raw: Record<string, unknown>, issues: Issue[]): QueryEntry[] {
    const entries: QueryEntry[] = [];
    const seen = new Set<string>();

    const visit = (parameter: QueryParameter, keys: string[], value: unknown): void => {
        const path = [parameter, ...keys];
        if (isPlainObject(value)) {
            for (const key of Object.keys(value)) visit(parameter, [...keys, key], value[key]);
            return;
        }
        let text: string;
        if (Array.isArray(value)) {
            if (!LIST_VALUED.has(parameter) || !value.every((item) => typeof item === 'string')) {
                issues.push(issue(path, QUERY_ISSUE.malformed, 'The parameter is given more than once.'));
                return;
            }
            text = value.join(',');
        } else if (typeof value === 'string') {
            text = value;
        } else if (value === null || value === undefined) {
            text = '';
        } else if (typeof value === 'number' || typeof value === 'boolean') {
            text = String(value);
        } else {
            issues.push(issue(path, QUERY_ISSUE.malformed, 'The parameter value is not text.'));
            return;
        }
        // `filter[user.id]` and `filter[user][id]` name the same thing.
        const identity = `${parameter}\u0000${keys.join('.')}`;
        if (seen.has(identity)) {
            issues.push(issue(path, QUERY_ISSUE.malformed, 'The parameter is given more than once.'));
            return;
        }
        seen.add(identity);
        entries.push({ parameter, keys, value: text });
    };

    for (const key of Object.keys(raw)) {
        const match = KEY_SHAPE.exec(key);
        // `filter[name` (unbalanced) still names the filter parameter: malformed, not unknown.
        const name = match?.[1] ?? (key.includes('[') ? key.slice(0, key.indexOf('[')) : key);
        if (!(QUERY_PARAMETERS as readonly string[]).includes(name)) {
            const allowed = QUERY_PARAMETERS.join(', ');
            issues.push(issue([name], QUERY_ISSUE.unknownParameter, `Unknown query parameter; allowed are ${allowed}.`));
            continue;
        }
        if (!match) {
            issues.push(issue([key], QUERY_ISSUE.malformed, 'The parameter name is malformed (unbalanced brackets).'));
            continue;
        }
        const keys = [...(match[2] ?? '').matchAll(/\[([^[\]]*)\]/g)].map((part) => part[1] ?? '');
        if (keys.some((part) => part === '')) {
            issues.push(issue([name, ...keys], QUERY_ISSUE.malformed, 'Empty brackets are not supported.'));
            continue;
        }
        visit(name as QueryParameter, keys, raw[key]);
    }
    return entries;
}

/** Split a comma list; an empty item (`a,,b`, a trailing comma, an empty value) is an issue. */
export function splitList(value: string, path: (string | number)[], issues: Issue[]): string[] | null {
    const items = value.split(',');
    if (items.some((item) => item === '')) {
        issues.push(issue(path, QUERY_ISSUE.malformed, value === '' ? 'The value is empty.' : 'The list has an empty item.'));
        return null;
    }
    return items;
}

/** Own-property lookup, so `filter[constructor]` or `__proto__` never reach Object.prototype. */
export function own<T>(record: Record<string, T> | undefined, key: string): T | undefined {
    return record && Object.hasOwn(record, key) ? record[key] : undefined;
}
