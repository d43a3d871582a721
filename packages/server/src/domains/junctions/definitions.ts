import { RealmScope } from '@realmgate/core';
import { assertCanAssignRole, assertCanGrant } from '../../authz/delegation.js';
import type { RequestContext } from '../../authz/request-context.js';
import type { Tx, ResourceDefinition, ResourceHooks } from '../resource/context.js';
import { realmOfRow, type ResourceSpec } from '../resource/spec.js';
import { assertGrantPolicy, assertRoleAssignable, assertScopeBindable, carriedGrants, grantedDefinition } from './rules.js';
import {
    clientPermissionSpec,
    clientRoleSpec,
    clientScopeSpec,
    rolePermissionSpec,
    userPermissionSpec,
    userRoleSpec,
} from './specs.js';

export interface JunctionDeps {
    catalog: { invalidate(): void };
}

/** The holder's realm: for a create the framework resolved it into input.realmId (realm 'referenced'). */
function holderRealmOf(input: Record<string, unknown>): string | null {
    return (input.realmId as string | null | undefined) ?? null;
}

/**
 * Grant rows (role-, user- and client-permissions). The written grant is checked as it will be
 * stored: its junction policy (root, global or of the holder's realm) and delegation rule (a) —
 * the actor must itself reach the granted definition wherever the grant will reach.
 */
function grantHooks(spec: ResourceSpec, deps: JunctionDeps): ResourceHooks {
    const check = async (ctx: RequestContext, tx: Tx, grant: { permissionId: string; realmScope: RealmScope; policyId: string | null }, holderRealm: string | null) => {
        if (grant.policyId) await assertGrantPolicy(tx, grant.policyId, holderRealm);
        const definition = await grantedDefinition(tx, grant.permissionId);
        assertCanGrant(await ctx.authorizer(), { definition, realmScope: grant.realmScope }, holderRealm);
        // the catalog carries every root tree already; a tree written on another replica since the
        // cached copy was built must be in it before a grant names it
        if (grant.policyId) deps.catalog.invalidate();
    };
    return {
        async prepareCreate(ctx, input, tx) {
            await check(ctx, tx, {
                permissionId: input.permissionId as string,
                realmScope: (input.realmScope as RealmScope | undefined) ?? RealmScope.OWN,
                policyId: (input.policyId as string | null | undefined) ?? null,
            }, holderRealmOf(input));
            return {};
        },
        async prepareUpdate(ctx, row, input, tx) {
            if (input.realmScope === undefined && input.policyId === undefined) return {};
            // the grant as it will be after the write, whether it widens or narrows
            await check(ctx, tx, {
                permissionId: row.permission_id as string,
                realmScope: (input.realmScope as RealmScope | undefined) ?? (row.realm_scope as RealmScope),
                policyId: input.policyId !== undefined ? input.policyId as string | null : (row.policy_id as string | null),
            }, realmOfRow(spec, row) ?? null);
            return {};
        },
    };
}

/**
 * Role assignments (user-roles, client-roles): the role must be global or of the holder's realm,
 * and delegation rule (b) — the actor must hold every grant the role carries, for this holder.
 */
const roleAssignmentHooks: ResourceHooks = {
    async prepareCreate(ctx, input, tx) {
        const holderRealm = holderRealmOf(input);
        await assertRoleAssignable(tx, input.roleId as string, holderRealm);
        assertCanAssignRole(await ctx.authorizer(), await carriedGrants(tx, input.roleId as string), holderRealm);
        return {};
    },
};

const clientScopeHooks: ResourceHooks = {
    async prepareCreate(_ctx, input, tx) {
        await assertScopeBindable(tx, input.scopeId as string, holderRealmOf(input));
        return {};
    },
};

function definitionOf(spec: ResourceSpec, hooks: ResourceHooks): ResourceDefinition {
    return { spec, fields: spec.fields, hooks };
}

/** The six junction resources (API.md §3), explicitly listed. */
export function junctionDefinitions(deps: JunctionDeps): ResourceDefinition[] {
    return [
        definitionOf(rolePermissionSpec, grantHooks(rolePermissionSpec, deps)),
        definitionOf(userPermissionSpec, grantHooks(userPermissionSpec, deps)),
        definitionOf(clientPermissionSpec, grantHooks(clientPermissionSpec, deps)),
        definitionOf(userRoleSpec, roleAssignmentHooks),
        definitionOf(clientRoleSpec, roleAssignmentHooks),
        definitionOf(clientScopeSpec, clientScopeHooks),
    ];
}
