import { badRequest } from '../errors/app-error.js';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { findClientRealm } from '../storage/clients-admin.js';

/**
 * A role or permission owned by a client lives in that client's realm: a client of realm B owning a
 * row of realm A (or a global row) would carry B's application into A's decisions.
 */
export async function assertClientOfRealm(tx: Kysely<Database>, clientId: unknown, realmId: unknown): Promise<void> {
    if (clientId === undefined || clientId === null) return;
    const client = await findClientRealm(tx, String(clientId));
    if (!client) throw badRequest('clientId names no client.', [{ path: ['clientId'], code: 'invalid_reference', message: 'references no existing client' }]);
    if (client.realm_id !== realmId) {
        throw badRequest('clientId must name a client of the same realm.', [{ path: ['clientId'], code: 'foreign_realm', message: 'must name a client of the same realm' }]);
    }
}
