/** The characters RFC 4515 §3 requires escaped in an assertion value. */
const SPECIAL = new Set(['*', '(', ')', '\\', String.fromCharCode(0)]);

/**
 * RFC 4515 §3: a value in a filter is an assertion value in which `*`, `(`, `)`, `\` and NUL must be
 * written as `\` and two hex digits. Every value a template receives (a login name, an entry's DN)
 * is escaped here, so it is matched as a literal (spec Authentication 19): `*)(uid=*` names an
 * entry whose uid is that exact text, which no entry has, and never widens the filter.
 */
export function escapeFilterValue(value: string): string {
    let escaped = '';
    for (const character of value) {
        escaped += SPECIAL.has(character) ? `\\${character.charCodeAt(0).toString(16).padStart(2, '0')}` : character;
    }
    return escaped;
}

/**
 * Fills `{{name}}` placeholders of a filter template with escaped values; an unknown placeholder is
 * an empty value, never left as text an administrator did not mean.
 */
export function fillFilter(template: string, values: Readonly<Record<string, string>>): string {
    return template.replace(/\{\{\s*(\w+)\s*\}\}/g, (_match, name: string) => escapeFilterValue(values[name] ?? ''));
}
