import type { AuthorizationGrant, PolicyIdentity } from '@realmgate/access';
import type { Kysely } from 'kysely';
import { prepareQuery } from '../db/prepared.js';
import type { Database } from '../db/schema.js';

export interface GrantLoadOptions {
    /**
     * The client a token was issued to. Spec Authentication rule 8: through a client-issued token
     * only grants owned by that client or global apply — permissions owned by another client, and
     * roles owned by another client together with everything they carry, are withheld.
     * null: not narrowed (Basic, a password grant without a client, the console session).
     */
    narrowToClientId: string | null;
}

interface GrantRow {
    name: string;
    realm_id: string | null;
    client_id: string | null;
    realm_scope: string;
    policy_id: string | null;
}

function toGrant(row: GrantRow): AuthorizationGrant {
    return {
        name: row.name,
        realm_id: row.realm_id,
        client_id: row.client_id,
        realm_scope: row.realm_scope as AuthorizationGrant['realm_scope'],
        policies: row.policy_id ? [row.policy_id] : [],
    };
}

function admits(ownerClientId: string | null, narrow: string | null): boolean {
    return narrow === null || ownerClientId === null || ownerClientId === narrow;
}

/** An identity's direct grants, by the identity's id. */
const directGrants = (table: 'auth_user_permissions' | 'auth_client_permissions', owner: 'user_id' | 'client_id') =>
    prepareQuery((db, param) => db.selectFrom(`${table as 'auth_user_permissions'} as g`)
        .innerJoin('auth_permissions as p', 'p.id', 'g.permission_id')
        .where(`g.${owner as 'user_id'}`, '=', param(0))
        .select(['p.name', 'p.realm_id', 'p.client_id', 'g.realm_scope', 'g.policy_id']));
/** An identity's grants through its roles, with the role's owning client (spec Authentication rule 8). */
const roleGrants = (table: 'auth_user_roles' | 'auth_client_roles', owner: 'user_id' | 'client_id') =>
    prepareQuery((db, param) => db.selectFrom(`${table as 'auth_user_roles'} as h`)
        .innerJoin('auth_roles as r', 'r.id', 'h.role_id')
        .where(`h.${owner as 'user_id'}`, '=', param(0))
        .innerJoin('auth_role_permissions as g', 'g.role_id', 'r.id')
        .innerJoin('auth_permissions as p', 'p.id', 'g.permission_id')
        .select(['p.name', 'p.realm_id', 'p.client_id', 'g.realm_scope', 'g.policy_id', 'r.client_id as role_client_id']));
const DIRECT_OF_USER = directGrants('auth_user_permissions', 'user_id');
const DIRECT_OF_CLIENT = directGrants('auth_client_permissions', 'client_id');
const ROLES_OF_USER = roleGrants('auth_user_roles', 'user_id');
const ROLES_OF_CLIENT = roleGrants('auth_client_roles', 'client_id');

/**
 * Every grant the identity holds, directly and through its roles: one entry per junction row
 * (spec grant rule 1), each with its own realm reach and junction policy. Two indexed queries,
 * O(grants of the identity) — never O(size of the database).
 */
export async function loadGrants(
    db: Kysely<Database>,
    identity: PolicyIdentity,
    options: GrantLoadOptions = { narrowToClientId: null },
): Promise<AuthorizationGrant[]> {
    const narrow = options.narrowToClientId;
    const [direct, viaRoles] = identity.type === 'user' ? [DIRECT_OF_USER, ROLES_OF_USER] : [DIRECT_OF_CLIENT, ROLES_OF_CLIENT];
    const directRows = await direct.all(db, [identity.id]);
    const roleRows = await viaRoles.all(db, [identity.id]);

    const grants: AuthorizationGrant[] = [];
    for (const row of directRows) {
        if (admits(row.client_id, narrow)) grants.push(toGrant(row));
    }
    for (const row of roleRows) {
        // a role owned by another client is withheld with every permission it carries, global ones included
        if (admits(row.role_client_id, narrow) && admits(row.client_id, narrow)) grants.push(toGrant(row));
    }
    return grants;
}
