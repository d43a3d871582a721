import { badRequest } from '../errors/app-error.js';
import type { AnyTx } from './resource/context.js';

/**
 * A role or permission owned by a client lives in that client's realm: a client of realm B owning a
 * row of realm A (or a global row) would carry B's application into A's decisions.
 */
export async function assertClientOfRealm(tx: AnyTx, clientId: unknown, realmId: unknown): Promise<void> {
    if (clientId === undefined || clientId === null) return;
    const client = await tx.selectFrom('auth_clients').select('realm_id').where('id', '=', clientId as string).executeTakeFirst();
    if (!client) throw badRequest('clientId names no client.', [{ path: ['clientId'], code: 'invalid_reference', message: 'references no existing client' }]);
    if (client.realm_id !== realmId) {
        throw badRequest('clientId must name a client of the same realm.', [{ path: ['clientId'], code: 'foreign_realm', message: 'must name a client of the same realm' }]);
    }
}
