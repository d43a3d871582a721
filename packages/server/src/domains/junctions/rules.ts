import { BuiltInPolicyType } from '@realmgate/access';
import { isRealmScope, type RealmScope } from '@realmgate/core';
import type { DelegatedGrant, GrantedDefinition } from '../../authz/delegation.js';
import { issue, validationFailed } from '../../errors/app-error.js';
import { loadSubtree, policyRow } from '../policies/tree.js';
import type { Db } from '../resource/context.js';
import { findPermissionDefinition, findRoleRealm, findScopeRealm, roleGrants } from '../../storage/junctions.js';

const refuse = (member: string, code: string, message: string) => validationFailed([issue([member], code, message)]);

/** A realm-bound referenced row may be bound to a holder only when it is global or of the holder's realm. */
function fitsHolder(realmId: unknown, holderRealm: string | null): boolean {
    return realmId === null || realmId === undefined || realmId === holderRealm;
}

/** The permission definition a grant row names (spec model line 1). */
export async function grantedDefinition(db: Db, permissionId: string): Promise<GrantedDefinition> {
    const permission = await findPermissionDefinition(db, permissionId);
    if (!permission) throw refuse('permissionId', 'not_found', 'names no permission');
    return {
        name: permission.name,
        realmId: permission.realm_id,
        clientId: permission.client_id,
    };
}

/**
 * A grant's junction policy (spec grant field `policies`): a root (the catalog carries trees by
 * root id), global or of the holder's realm, and without a permission-binding node — evaluators
 * leave such a grant out (spec consumer rule 5), so writing one could only ever disable the grant.
 */
export async function assertGrantPolicy(db: Db, policyId: string, holderRealm: string | null): Promise<void> {
    const policy = await policyRow(db, policyId);
    if (!policy) throw refuse('policyId', 'not_found', 'names no policy');
    if (policy.parent_id) throw refuse('policyId', 'invalid_policy_reference', 'must name a root policy, not the child of a composite');
    if (!fitsHolder(policy.realm_id, holderRealm)) {
        throw refuse('policyId', 'invalid_policy_reference', 'must name a global policy or one of the holder\'s realm');
    }
    const { children } = await loadSubtree(db, policyId);
    const nodes = [policy, ...[...children.values()].flat()];
    if (nodes.some((node) => node.type === BuiltInPolicyType.PERMISSION_BINDING)) {
        throw refuse('policyId', 'invalid_policy_reference', 'a junction policy cannot contain a permission-binding node');
    }
}

/** A role assigned to a user or client must be global or of the holder's realm (400 otherwise). */
export async function assertRoleAssignable(db: Db, roleId: string, holderRealm: string | null): Promise<void> {
    const role = await findRoleRealm(db, roleId);
    if (!role) throw refuse('roleId', 'not_found', 'names no role');
    if (!fitsHolder(role.realm_id, holderRealm)) throw refuse('roleId', 'invalid_realm', 'must name a global role or one of the holder\'s realm');
}

/** A scope bound to a client must be global or of the client's realm, like a role. */
export async function assertScopeBindable(db: Db, scopeId: string, clientRealm: string | null): Promise<void> {
    const scope = await findScopeRealm(db, scopeId);
    if (!scope) throw refuse('scopeId', 'not_found', 'names no scope');
    if (!fitsHolder(scope.realm_id, clientRealm)) throw refuse('scopeId', 'invalid_realm', 'must name a global scope or one of the client\'s realm');
}

/** Every grant a role carries, as delegation rule (b) checks them. */
export async function carriedGrants(db: Db, roleId: string): Promise<DelegatedGrant[]> {
    const rows = await roleGrants(db, roleId);
    return rows.map((row) => ({
        definition: { name: row.name, realmId: row.realm_id, clientId: row.client_id },
        // a stored value this server does not know reaches every realm for the purpose of the check
        realmScope: isRealmScope(row.realm_scope) ? row.realm_scope : 'any' as RealmScope,
    }));
}
