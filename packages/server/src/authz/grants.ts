import type { AuthorizationGrant, PolicyIdentity } from '@realmgate/access';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { BoundedCache } from '../cache/bounded-cache.js';
import { listGrantsOf, type GrantRecord } from '../storage/grants.js';

/** An identity's grant rows, before narrowing to a client: what the grants cache remembers. */
export interface GrantRows {
    direct: GrantRecord[];
    viaRoles: GrantRecord[];
}

/**
 * The grants cache's key: the identity. Every write to a role, permission, policy or binding
 * empties the whole cache on every replica (wire.ts) — which identities a role or permission
 * reaches is not worth computing for a write that rare.
 */
const grantsCacheKey = (identity: Pick<PolicyIdentity, 'type' | 'id'>): string => `${identity.type}/${identity.id}`;

export interface GrantLoadOptions {
    /**
     * The client a token was issued to. Spec Authentication rule 8: through a client-issued token
     * only grants owned by that client or global apply — permissions owned by another client, and
     * roles owned by another client together with everything they carry, are withheld.
     * null: not narrowed (Basic, a password grant without a client, the console session).
     */
    narrowToClientId: string | null;
}

function toGrant(row: GrantRecord): AuthorizationGrant {
    return {
        name: row.name,
        realm_id: row.realmId,
        client_id: row.clientId,
        realm_scope: row.realmScope as AuthorizationGrant['realm_scope'],
        policies: row.policyId ? [row.policyId] : [],
    };
}

function admits(ownerClientId: string | null, narrow: string | null): boolean {
    return narrow === null || ownerClientId === null || ownerClientId === narrow;
}

/**
 * Every grant the identity holds, directly and through its roles: one entry per junction row
 * (spec grant rule 1), each with its own realm reach and junction policy. Two indexed queries,
 * O(grants of the identity) — never O(size of the database).
 */
export async function loadGrants(
    db: Kysely<Database>,
    identity: PolicyIdentity,
    options: GrantLoadOptions = { narrowToClientId: null },
    cache?: BoundedCache<GrantRows>,
): Promise<AuthorizationGrant[]> {
    const narrow = options.narrowToClientId;
    const read = () => listGrantsOf(db, identity.type, identity.id);
    // inside a transaction the rows may be uncommitted: read, never remembered
    const remembered = cache !== undefined && !db.isTransaction;
    const rows = remembered ? await cache.through(grantsCacheKey(identity), read) : await read();
    if (!remembered) return grantsOf(rows!, narrow);
    // one list per remembered entry and narrowing, shared by the requests that read it while the
    // entry lives (frozen: no reader may change another's); an invalidation drops the entry, and with
    // it (a WeakMap) the lists built from it
    let byNarrowing = BUILT.get(rows!);
    if (!byNarrowing) BUILT.set(rows!, byNarrowing = new Map());
    let grants = byNarrowing.get(narrow);
    if (!grants) byNarrowing.set(narrow, grants = Object.freeze(grantsOf(rows!, narrow).map((grant) => Object.freeze(grant))) as AuthorizationGrant[]);
    return grants;
}

const BUILT = new WeakMap<GrantRows, Map<string | null, AuthorizationGrant[]>>();

function grantsOf(rows: GrantRows, narrow: string | null): AuthorizationGrant[] {
    const { direct: directRows, viaRoles: roleRows } = rows;

    const grants: AuthorizationGrant[] = [];
    for (const row of directRows) {
        if (admits(row.clientId, narrow)) grants.push(toGrant(row));
    }
    for (const row of roleRows) {
        // a role owned by another client is withheld with every permission it carries, global ones included
        if (admits(row.roleClientId, narrow) && admits(row.clientId, narrow)) grants.push(toGrant(row));
    }
    return grants;
}
