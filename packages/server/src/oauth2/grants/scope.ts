import { ErrorCode } from '@realmgate/core';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { clientScopeBindings, existingScopeNames } from '../../storage/scopes.js';
import { oauthError } from '../errors.js';
import { GLOBAL_SCOPE } from '../../tokens/claims.js';

/** RFC 6749 §3.3: a space-delimited list of case-sensitive names; duplicates collapse. */
export function scopeNames(value: string): string[] {
    return [...new Set(value.split(' ').filter(Boolean))];
}

/**
 * The scope a login is issued (RFC 6749 §3.3). Without a client: `global` (API.md §4). With a
 * client, its scope bindings (POST /client-scopes) decide, as Keycloak's client scopes do: a
 * requested name must be bound to the client (else invalid_scope, RFC 6749 §5.2), and no request
 * yields its default bindings. A client without any binding is unrestricted — any scope of its
 * realm or a global one may be requested, `global` when none is — so a client works before
 * anyone configures its scopes.
 */
export async function resolveScope(db: Kysely<Database>, realmId: string, requested: string | undefined, clientId: string | null): Promise<string> {
    if (clientId === null) return GLOBAL_SCOPE;
    const bindings = await clientScopeBindings(db, clientId, realmId);
    const names = requested === undefined ? [] : scopeNames(requested);
    if (names.length === 0) {
        const defaults = bindings.filter((binding) => binding.isDefault).map((binding) => binding.name);
        return defaults.length > 0 ? [...new Set(defaults)].sort().join(' ') : GLOBAL_SCOPE;
    }
    let allowed: Set<string>;
    if (bindings.length > 0) {
        allowed = new Set(bindings.map((binding) => binding.name));
    } else {
        allowed = new Set(await existingScopeNames(db, realmId, names));
    }
    const refused = names.filter((name) => !allowed.has(name));
    if (refused.length > 0) throw oauthError(ErrorCode.INVALID_SCOPE, `The client may not request the scope ${refused.join(' ')}.`);
    return names.join(' ');
}
