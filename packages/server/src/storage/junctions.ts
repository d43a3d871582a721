import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';

/** The definition a grant row names: name, realm and owning client. */
export async function findPermissionDefinition(db: Kysely<Database>, id: string): Promise<{ name: string; realm_id: string | null; client_id: string | null } | undefined> {
    return db.selectFrom('auth_permissions').select(['name', 'realm_id', 'client_id']).where('id', '=', id).executeTakeFirst();
}

export async function findRoleRealm(db: Kysely<Database>, id: string): Promise<{ realm_id: string | null } | undefined> {
    return db.selectFrom('auth_roles').select('realm_id').where('id', '=', id).executeTakeFirst();
}

export async function findScopeRealm(db: Kysely<Database>, id: string): Promise<{ realm_id: string | null } | undefined> {
    return db.selectFrom('auth_scopes').select('realm_id').where('id', '=', id).executeTakeFirst();
}

/** Every grant a role carries: the granted definition and the grant's realm scope. */
export async function roleGrants(db: Kysely<Database>, roleId: string): Promise<{ name: string; realm_id: string | null; client_id: string | null; realm_scope: string }[]> {
    return db.selectFrom('auth_role_permissions as g')
        .innerJoin('auth_permissions as p', 'p.id', 'g.permission_id')
        .select(['p.name', 'p.realm_id', 'p.client_id', 'g.realm_scope'])
        .where('g.role_id', '=', roleId)
        .execute();
}
