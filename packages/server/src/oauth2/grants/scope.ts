import { ErrorCode } from '@realmgate/core';
import type { Kysely } from 'kysely';
import type { BoundedCache } from '../../cache/bounded-cache.js';
import type { Database } from '../../db/schema.js';
import { clientScopeBindings, existingScopeNames, type ClientScopeBinding } from '../../storage/scopes.js';
import { oauthError } from '../errors.js';
import { GLOBAL_SCOPE } from '../../tokens/claims.js';

/** A client's scope bindings: read from the database, or through the cache the bus empties (wire.ts). */
export type ScopeBindings = (db: Kysely<Database>, clientId: string, realmId: string) => Promise<ClientScopeBinding[]>;

/**
 * The bindings through `cache`, keyed by client and realm (client_credentials
 * reads nothing for a known client). The bus empties it on every replica before a write to a
 * scope, a binding, a client or a realm answers (wire.ts), so a changed binding applies to the
 * next token.
 */
export function cachedScopeBindings(cache: BoundedCache<ClientScopeBinding[]>): ScopeBindings {
    return (db, clientId, realmId) => cache.through(`${clientId}/${realmId}`, () => clientScopeBindings(db, clientId, realmId)) as Promise<ClientScopeBinding[]>;
}

/** RFC 6749 §3.3: a space-delimited list of case-sensitive names; duplicates collapse. */
export function scopeNames(value: string): string[] {
    return [...new Set(value.split(' ').filter(Boolean))];
}

/**
 * RFC 6749 §6 (and RFC 8693 §2.1 for an exchange): a requested scope must not exceed the one
 * granted before, nor be empty; none keeps it. `exceeded` says what was exceeded, as invalid_scope.
 */
export function narrowedScope(original: string, requested: string | undefined, exceeded: string): string {
    if (requested === undefined) return original;
    const granted = new Set(scopeNames(original));
    const names = scopeNames(requested);
    if (names.length === 0 || names.some((name) => !granted.has(name))) throw oauthError(ErrorCode.INVALID_SCOPE, exceeded);
    return names.join(' ');
}

/**
 * The scope a login is issued (RFC 6749 §3.3). Without a client: `global` (API.md §4). With a
 * client, its scope bindings (POST /client-scopes) decide, as Keycloak's client scopes do: a
 * requested name must be bound to the client (else invalid_scope, RFC 6749 §5.2), and no request
 * yields its default bindings. A client without any binding is unrestricted — any scope of its
 * realm or a global one may be requested, `global` when none is — so a client works before
 * anyone configures its scopes.
 */
export async function resolveScope(
    db: Kysely<Database>, realmId: string, requested: string | undefined, clientId: string | null, bindingsOf: ScopeBindings = clientScopeBindings,
): Promise<string> {
    if (clientId === null) return GLOBAL_SCOPE;
    const bindings = await bindingsOf(db, clientId, realmId);
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
