import { ErrorCode } from '@realmgate/core';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { oauthError } from '../errors.js';
import { GLOBAL_SCOPE } from '../tokens/claims.js';

/** RFC 6749 §3.3: a space-delimited list of case-sensitive names; duplicates collapse. */
export function scopeNames(value: string): string[] {
    return [...new Set(value.split(' ').filter(Boolean))];
}

/**
 * The scope a login is issued: `global` without a client (API.md §4); with a client the requested
 * scope, `global` when none is requested. Every requested name must be a scope of the realm or a
 * global one (else invalid_scope, RFC 6749 §5.2).
 */
export async function resolveScope(db: Kysely<Database>, realmId: string, requested: string | undefined, withClient: boolean): Promise<string> {
    if (!withClient || requested === undefined) return GLOBAL_SCOPE;
    const names = scopeNames(requested);
    if (names.length === 0) return GLOBAL_SCOPE;
    const known = await db.selectFrom('auth_scopes').select('name').where('name', 'in', names)
        .where((eb) => eb.or([eb('realm_id', 'is', null), eb('realm_id', '=', realmId)])).execute();
    const found = new Set(known.map((row) => row.name));
    const unknown = names.filter((name) => !found.has(name));
    if (unknown.length > 0) throw oauthError(ErrorCode.INVALID_SCOPE, `Unknown scope: ${unknown.join(' ')}.`);
    return names.join(' ');
}
