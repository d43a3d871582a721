import type { Kysely } from 'kysely';
import { prepareQuery } from '../db/prepared.js';
import type { Database } from '../db/schema.js';
import type { SubjectKind } from './subjects.js';

/**
 * One junction row granting a permission (spec grant rule 1): the permission's name, realm and
 * owning client, the junction's realm reach and policy, and — through a role — the role's owning client.
 */
export interface GrantRecord {
    name: string;
    realmId: string | null;
    clientId: string | null;
    realmScope: string;
    policyId: string | null;
    /** the owning client of the role the grant comes through; null for a direct grant or a global role */
    roleClientId: string | null;
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
/** Read on every authorized request: prepared once per dialect. */
const DIRECT_OF_USER = directGrants('auth_user_permissions', 'user_id');
const DIRECT_OF_CLIENT = directGrants('auth_client_permissions', 'client_id');
const ROLES_OF_USER = roleGrants('auth_user_roles', 'user_id');
const ROLES_OF_CLIENT = roleGrants('auth_client_roles', 'client_id');

interface GrantRow {
    name: string;
    realm_id: string | null;
    client_id: string | null;
    realm_scope: string;
    policy_id: string | null;
    role_client_id?: string | null;
}

function grantOf(row: GrantRow): GrantRecord {
    return {
        name: row.name, realmId: row.realm_id, clientId: row.client_id, realmScope: row.realm_scope,
        policyId: row.policy_id, roleClientId: row.role_client_id ?? null,
    };
}

/**
 * Every grant an identity holds, directly and through its roles: two indexed queries,
 * O(grants of the identity) — never O(size of the database).
 */
export async function listGrantsOf(db: Kysely<Database>, kind: SubjectKind, id: string): Promise<{ direct: GrantRecord[]; viaRoles: GrantRecord[] }> {
    const [direct, viaRoles] = kind === 'user' ? [DIRECT_OF_USER, ROLES_OF_USER] : [DIRECT_OF_CLIENT, ROLES_OF_CLIENT];
    const directRows = await direct.all(db, [id]);
    const roleRows = await viaRoles.all(db, [id]);
    return { direct: directRows.map(grantOf), viaRoles: roleRows.map(grantOf) };
}
