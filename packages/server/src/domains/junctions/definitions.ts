import { isRealmScope, RealmScope } from '@realmgate/core';
import { assertCanAssignRole, assertCanGrant } from '../../authz/delegation.js';
import type { RequestContext } from '../../authz/request-context.js';
import type { Input, Tx, ResourceDefinition, ResourceHooks } from '../resource/context.js';
import { nullableTextOf, textOf } from '../resource/input.js';
import { realmOfRow, type ResourceSpec } from '../resource/spec.js';
import { assertGrantPolicy, assertRoleAssignable, assertScopeBindable, carriedGrants, grantedDefinition } from './rules.js';
import {
    clientPermissionSpec,
    clientRoleSpec,
    clientScopeSpec,
    rolePermissionSpec,
    userPermissionSpec,
    userRoleSpec,
    type GrantTable,
} from './specs.js';

export interface JunctionDeps {
    catalog: { invalidate(): void };
}

/** The holder's realm: for a create the framework resolved it into input.realmId (realm 'referenced'). */
function holderRealmOf(input: Input): string | null {
    return nullableTextOf(input, 'realmId') ?? null;
}

/** A stored or written realm scope; a value this server does not know is refused by the schema first. */
function realmScopeOf(value: unknown): RealmScope | undefined {
    return isRealmScope(value) ? value : undefined;
}

/**
 * Grant rows (role-, user- and client-permissions). The written grant is checked as it will be
 * stored: its junction policy (root, global or of the holder's realm) and delegation rule (a) —
 * the actor must itself reach the granted definition wherever the grant will reach.
 */
function grantHooks(spec: ResourceSpec<GrantTable>, deps: JunctionDeps): ResourceHooks<GrantTable> {
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
                permissionId: textOf(input, 'permissionId') ?? '',
                realmScope: realmScopeOf(input.realmScope) ?? RealmScope.OWN,
                policyId: nullableTextOf(input, 'policyId') ?? null,
            }, holderRealmOf(input));
            return {};
        },
        async prepareUpdate(ctx, row, input, tx) {
            if (input.realmScope === undefined && input.policyId === undefined) return {};
            // the grant as it will be after the write, whether it widens or narrows
            await check(ctx, tx, {
                permissionId: row.permission_id,
                realmScope: realmScopeOf(input.realmScope) ?? row.realm_scope,
                policyId: input.policyId !== undefined ? nullableTextOf(input, 'policyId') ?? null : row.policy_id,
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
        const roleId = textOf(input, 'roleId') ?? '';
        await assertRoleAssignable(tx, roleId, holderRealm);
        assertCanAssignRole(await ctx.authorizer(), await carriedGrants(tx, roleId), holderRealm);
        return {};
    },
};

const clientScopeHooks: ResourceHooks = {
    async prepareCreate(_ctx, input, tx) {
        await assertScopeBindable(tx, textOf(input, 'scopeId') ?? '', holderRealmOf(input));
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
