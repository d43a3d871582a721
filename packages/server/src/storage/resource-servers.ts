import type { Kysely } from 'kysely';
import { prepareQuery } from '../db/prepared.js';
import type { Database } from '../db/schema.js';
import { fromDbBool } from '../db/values.js';

/**
 * Resource servers (RFC 8707 §2): a client of a realm registers the resource indicator it answers
 * to as its `audience`, unique within the realm, so an indicator names one resource server.
 */
export interface ResourceServer {
    clientId: string;
    active: boolean;
}

/** Every token request with a `resource` asks this once: prepared per dialect. */
const BY_AUDIENCE = prepareQuery((db, param) => db.selectFrom('auth_clients').select(['id', 'active'])
    .where('realm_id', '=', param(0)).where('audience', '=', param(1)));

/** The client of the realm whose audience is `audience`, active or not; undefined when none. */
export async function findResourceServer(db: Kysely<Database>, realmId: string, audience: string): Promise<ResourceServer | undefined> {
    const row = await BY_AUDIENCE.first(db, [realmId, audience]);
    return row && { clientId: row.id, active: fromDbBool(row.active) };
}

/**
 * Whether another client of the realm holds `audience`. With `lockRealm` (PostgreSQL, MySQL) the
 * realm row is locked first, so two transactions writing the same audience in one realm run one
 * after the other and the second sees the first's row (SQLite has one writer at a time).
 */
export async function audienceTaken(
    db: Kysely<Database>, realmId: string, audience: string, exceptClientId: string | null, lockRealm: boolean,
): Promise<boolean> {
    if (lockRealm) await db.selectFrom('auth_realms').select('id').where('id', '=', realmId).forUpdate().execute();
    let query = db.selectFrom('auth_clients').select('id').where('realm_id', '=', realmId).where('audience', '=', audience);
    if (exceptClientId !== null) query = query.where('id', '<>', exceptClientId);
    return (await query.executeTakeFirst()) !== undefined;
}
