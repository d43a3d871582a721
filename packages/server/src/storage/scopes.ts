import type { Kysely } from 'kysely';
import { prepareQuery } from '../db/prepared.js';
import type { Database } from '../db/schema.js';
import { fromDbBool } from '../db/values.js';

/** A scope bound to a client (POST /client-scopes), default or optional. */
export interface ClientScopeBinding {
    name: string;
    isDefault: boolean;
}

/** Read on every grant with a client: prepared once per dialect. */
const CLIENT_SCOPE_BINDINGS = prepareQuery((db, param) => db.selectFrom('auth_client_scopes')
    .innerJoin('auth_scopes', 'auth_scopes.id', 'auth_client_scopes.scope_id')
    .select(['auth_scopes.name as name', 'auth_client_scopes.default as isDefault'])
    .where('auth_client_scopes.client_id', '=', param(0))
    .where((eb) => eb.or([eb('auth_scopes.realm_id', 'is', null), eb('auth_scopes.realm_id', '=', param(1))])));

/** The client's bindings to scopes of the realm or global ones. */
export async function clientScopeBindings(db: Kysely<Database>, clientId: string, realmId: string): Promise<ClientScopeBinding[]> {
    const rows = await CLIENT_SCOPE_BINDINGS.all(db, [clientId, realmId]);
    return rows.map((row) => ({ name: row.name, isDefault: fromDbBool(row.isDefault) }));
}

/** Which of `names` exist as scopes of the realm or global ones. */
export async function existingScopeNames(db: Kysely<Database>, realmId: string, names: readonly string[]): Promise<string[]> {
    const rows = await db.selectFrom('auth_scopes').select('name').where('name', 'in', names)
        .where((eb) => eb.or([eb('realm_id', 'is', null), eb('realm_id', '=', realmId)])).execute();
    return rows.map((row) => row.name);
}

/** The names of every scope of the realm and every global scope, sorted (duplicates possible across the two). */
export async function scopeNamesOfRealm(db: Kysely<Database>, realmId: string): Promise<string[]> {
    const rows = await db.selectFrom('auth_scopes').select('name')
        .where((eb) => eb.or([eb('realm_id', 'is', null), eb('realm_id', '=', realmId)]))
        .orderBy('name').execute();
    return rows.map((row) => row.name);
}
