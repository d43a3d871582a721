/**
 * Conditional GET (RFC 9110 §13.1.2 If-None-Match, §8.8.3 entity tags). Only what a route with a
 * strong validator needs: whether the request's If-None-Match matches the current tag, so the
 * route answers 304 Not Modified (RFC 9110 §15.4.5) instead of the body.
 */

/** `W/"…"` or `"…"`: an entity-tag (RFC 9110 §8.8.3); etagc excludes only DQUOTE, so a comma may sit inside the quotes. */
const ENTITY_TAG = /^\s*(W\/)?("[\x21\x23-\x7e\x80-\xff]*")\s*(?:,|$)/;

/** The opaque-tags of an If-None-Match list, or `*`; null when the field is malformed (then it is ignored). */
function parseIfNoneMatch(field: string): '*' | string[] | null {
    if (field.trim() === '*') return '*';
    const tags: string[] = [];
    let rest = field;
    while (rest.trim() !== '') {
        // RFC 9110 §5.6.1: empty list elements (",,") are tolerated
        const empty = /^\s*,/.exec(rest);
        if (empty) {
            rest = rest.slice(empty[0].length);
            continue;
        }
        const match = ENTITY_TAG.exec(rest);
        if (!match) return null;
        tags.push(match[2]!);
        rest = rest.slice(match[0].length);
    }
    return tags;
}

/**
 * Whether If-None-Match makes a GET/HEAD answer 304 for a representation whose strong tag is
 * `etag` (`"…"`): `*` matches any current representation; otherwise a listed tag matches by the
 * weak comparison (§8.8.3.2: the opaque-tags are equal, a `W/` prefix on either side ignored).
 * An absent or malformed field does not match (the full answer is always safe).
 */
export function ifNoneMatchMatches(field: string | string[] | undefined, etag: string): boolean {
    if (field === undefined) return false;
    const parsed = parseIfNoneMatch(Array.isArray(field) ? field.join(',') : field);
    if (parsed === null) return false;
    if (parsed === '*') return true;
    const opaque = etag.startsWith('W/') ? etag.slice(2) : etag;
    return parsed.includes(opaque);
}
