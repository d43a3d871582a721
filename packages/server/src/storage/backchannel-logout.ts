import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';

/** A client that asked to hear of ended sessions (Back-Channel Logout 1.0 §2.2) and its realm. */
export interface BackchannelTarget {
    clientId: string;
    uri: string;
    realmId: string;
    realmName: string;
    /** the client's id_token_signed_response_alg (null: RS256); its logout tokens are signed alike */
    idTokenAlgorithm: string | null;
}

/**
 * The clients among `clientIds` with a backchannel_logout_uri, with their realm's name. Inactive
 * ones too: a client's deactivation ends its sessions (spec States), and its relying party is the
 * one that must drop them.
 */
export async function findBackchannelTargets(db: Kysely<Database>, clientIds: string[]): Promise<BackchannelTarget[]> {
    if (clientIds.length === 0) return [];
    const rows = await db.selectFrom('auth_clients')
        .innerJoin('auth_realms', 'auth_realms.id', 'auth_clients.realm_id')
        .select(['auth_clients.id', 'auth_clients.backchannel_logout_uri', 'auth_realms.id as realm_id', 'auth_realms.name as realm_name', 'auth_clients.id_token_signed_response_alg'])
        .where('auth_clients.id', 'in', clientIds)
        .where('auth_clients.backchannel_logout_uri', 'is not', null)
        .execute();
    return rows.filter((row) => row.backchannel_logout_uri).map((row) => ({
        clientId: row.id, uri: row.backchannel_logout_uri!, realmId: row.realm_id, realmName: row.realm_name, idTokenAlgorithm: row.id_token_signed_response_alg,
    }));
}
