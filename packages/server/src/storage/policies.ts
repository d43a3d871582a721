import type { Kysely, Selectable } from 'kysely';
import type { Database, PolicyTable } from '../db/schema.js';

export type PolicyRow = Selectable<PolicyTable>;

export async function findPolicy(db: Kysely<Database>, id: string): Promise<PolicyRow | undefined> {
    return db.selectFrom('auth_policies').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The children of every policy in `parentIds`, ordered by creation (one level of a tree). */
export async function policyChildren(db: Kysely<Database>, parentIds: readonly string[]): Promise<PolicyRow[]> {
    return db.selectFrom('auth_policies').selectAll().where('parent_id', 'in', parentIds)
        .orderBy('created_at', 'asc').orderBy('id', 'asc').execute();
}

export async function hasChildPolicy(db: Kysely<Database>, id: string): Promise<boolean> {
    return Boolean(await db.selectFrom('auth_policies').select('id').where('parent_id', '=', id).limit(1).executeTakeFirst());
}

/** A root policy of a realm (or global: realmId null) by name. */
export async function findRootPolicyId(db: Kysely<Database>, name: string, realmId: string | null): Promise<string | undefined> {
    let query = db.selectFrom('auth_policies').select('id').where('name', '=', name).where('parent_id', 'is', null);
    query = realmId === null ? query.where('realm_id', 'is', null) : query.where('realm_id', '=', realmId);
    return (await query.executeTakeFirst())?.id;
}

type ReferenceProbe = (db: Kysely<Database>, id: string) => Promise<unknown>;

/** The rows that name a policy tree by its root id, by referencing collection. */
const POLICY_REFERENCES: readonly (readonly [string, ReferenceProbe])[] = [
    ['permission-policies', (db, id) => db.selectFrom('auth_permission_policies').select('id').where('policy_id', '=', id).limit(1).executeTakeFirst()],
    ['role-permissions', (db, id) => db.selectFrom('auth_role_permissions').select('id').where('policy_id', '=', id).limit(1).executeTakeFirst()],
    ['user-permissions', (db, id) => db.selectFrom('auth_user_permissions').select('id').where('policy_id', '=', id).limit(1).executeTakeFirst()],
    ['client-permissions', (db, id) => db.selectFrom('auth_client_permissions').select('id').where('policy_id', '=', id).limit(1).executeTakeFirst()],
    ['clients', (db, id) => db.selectFrom('auth_clients').select('id').where('access_policy_id', '=', id).limit(1).executeTakeFirst()],
];

/** The collections whose rows name the policy (definition bindings, junction policies, client access policies). */
export async function policyReferences(db: Kysely<Database>, id: string): Promise<string[]> {
    const found: string[] = [];
    // one after another: inside a transaction they share a single connection anyway
    for (const [name, probe] of POLICY_REFERENCES) {
        if (await probe(db, id)) found.push(name);
    }
    return found;
}

/** Bind a policy tree to a permission definition. */
export async function insertPermissionPolicy(db: Kysely<Database>, binding: { id: string; permissionId: string; policyId: string; createdAt: string | Date }): Promise<void> {
    await db.insertInto('auth_permission_policies').values({
        id: binding.id, permission_id: binding.permissionId, policy_id: binding.policyId, created_at: binding.createdAt, updated_at: binding.createdAt,
    }).execute();
}
