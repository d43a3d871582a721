import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { listPolicyNodes, type PolicyNodeRecord } from './policy-tree.js';

/** A permission definition (auth_permissions) as the catalog names it. */
export interface PermissionDefinitionRecord {
    id: string;
    name: string;
    realmId: string | null;
    clientId: string | null;
    decisionStrategy: string;
}

/** Everything the authorization catalog is built from: definitions, their policy bindings, every policy node. */
export async function loadCatalogSources(db: Kysely<Database>): Promise<{
    permissions: PermissionDefinitionRecord[];
    bindings: { permissionId: string; policyId: string }[];
    policies: PolicyNodeRecord[];
}> {
    const [permissions, bindings, policies] = await Promise.all([
        db.selectFrom('auth_permissions').select(['id', 'name', 'realm_id', 'client_id', 'decision_strategy']).execute(),
        db.selectFrom('auth_permission_policies').select(['permission_id', 'policy_id']).execute(),
        listPolicyNodes(db),
    ]);
    return {
        permissions: permissions.map((row) => ({
            id: row.id, name: row.name, realmId: row.realm_id, clientId: row.client_id, decisionStrategy: row.decision_strategy,
        })),
        bindings: bindings.map((row) => ({ permissionId: row.permission_id, policyId: row.policy_id })),
        policies,
    };
}

/** One permission definition by id (lower-case UUID); undefined when there is none. */
export async function findPermissionDefinition(db: Kysely<Database>, id: string): Promise<Omit<PermissionDefinitionRecord, 'decisionStrategy'> | undefined> {
    const row = await db.selectFrom('auth_permissions').select(['id', 'name', 'realm_id', 'client_id']).where('id', '=', id).executeTakeFirst();
    return row && { id: row.id, name: row.name, realmId: row.realm_id, clientId: row.client_id };
}
