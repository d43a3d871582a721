/** The realm bootstrap creates; names resolve in it when no other realm is given (spec Authentication rule 5). */
export const MASTER_REALM = 'master';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Ids are UUIDs (DESIGN.md §5); a path value that is not one is a name. Case-insensitive, as RFC 9562 §4 reads them. */
export function isUuid(value: string): boolean {
    return UUID.test(value);
}

const CANONICAL_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The lowercase form the service writes; token claims must carry exactly it (spec Authentication rule 4). */
export function isCanonicalUuid(value: string): boolean {
    return CANONICAL_UUID.test(value);
}
