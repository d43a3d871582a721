import { PermissionName } from '@realmgate/core';
import { fromDbBool } from '../../db/values.js';
import { badRequest, issue, validationFailed } from '../../errors/app-error.js';
import type { RequestContext } from '../../authz/request-context.js';
import { defineResource, type Input, type ResourceDefinition, type Tx } from '../resource/context.js';
import { flagOf, nullableTextOf, textOf } from '../resource/input.js';
import { canonicalConfiguration, configurationOf, storedConfiguration, withConfiguration } from './configuration.js';
import { policySpec } from './spec.js';
import { hasChildPolicy } from '../../storage/policies.js';
import { assertParent, assertUnreferenced, COMPOSITE, loadSubtree, policyData, policyRow } from './tree.js';
import type { Columns, TableRow } from '../../storage/resource/table.js';

type PolicyStoredRow = TableRow<'auth_policies'>;

/** Built-in trees are what bootstrap finds them by (name, realm) and what every permission uses. */
const BUILT_IN_FIXED = ['type', 'name', 'realmId', 'parentId'] as const;
const BUILT_IN_COLUMNS: Record<(typeof BUILT_IN_FIXED)[number], string> = { type: 'type', name: 'name', realmId: 'realm_id', parentId: 'parent_id' };


async function prepareCreate(ctx: RequestContext, input: Input, tx: Tx): Promise<Columns> {
    const written = configurationOf(input);
    const config = canonicalConfiguration(textOf(input, 'type') ?? '', flagOf(input, 'invert') ?? false, written, written);
    if (typeof input.parentId === 'string') {
        await assertParent(ctx, tx, input.parentId, nullableTextOf(input, 'realmId') ?? null, null);
    }
    return { config: JSON.stringify(config) };
}

/** Built-in policies keep their identity and place; their configuration stays editable. */
function refuseBuiltInChange(row: PolicyStoredRow, input: Input): void {
    if (!fromDbBool(row.built_in)) return;
    const changed = BUILT_IN_FIXED.filter((name) => input[name] !== undefined && input[name] !== row[BUILT_IN_COLUMNS[name]]);
    if (changed.length > 0) {
        throw validationFailed(changed.map((name) => issue([name], 'built_in', `cannot be changed on a built-in policy`)));
    }
}

async function prepareUpdate(ctx: RequestContext, row: PolicyStoredRow, input: Input, tx: Tx): Promise<Columns> {
    const written = configurationOf(input);
    refuseBuiltInChange(row, input);
    const id = row.id;
    const type = textOf(input, 'type') ?? row.type;
    const typeChanged = type !== row.type;
    if (typeChanged && row.type === COMPOSITE && await hasChildPolicy(tx, id)) {
        throw validationFailed([issue(['type'], 'has_children', 'a composite with children must stay a composite; delete or move its children first')]);
    }
    const values: Columns = {};
    if (typeChanged || Object.keys(written).length > 0 || input.invert !== undefined) {
        // a changed type starts from a clean configuration; otherwise the written keys merge into the stored ones
        const base = typeChanged ? {} : storedConfiguration(row);
        const invert = flagOf(input, 'invert') ?? fromDbBool(row.invert);
        values.config = JSON.stringify(canonicalConfiguration(type, invert, { ...base, ...written }, written));
    }

    // the route realm of a nested mount wins over a body realmId (API.md §3), as in the framework
    const realmId = ctx.routeRealmId === null && input.realmId !== undefined ? nullableTextOf(input, 'realmId') ?? null : row.realm_id;
    const parentId = input.parentId !== undefined ? nullableTextOf(input, 'parentId') ?? null : row.parent_id;
    const realmChanged = realmId !== (row.realm_id ?? null);
    const parentChanged = parentId !== (row.parent_id ?? null);
    if (realmChanged) {
        if (await hasChildPolicy(tx, id)) throw badRequest('A composite with children cannot move to another realm; its children would be left behind.');
        await assertUnreferenced(tx, id, 'move to another realm');
    }
    if (parentId !== null && (parentChanged || realmChanged)) {
        const { height } = await loadSubtree(tx, id);
        await assertParent(ctx, tx, parentId, realmId, { id, height });
    }
    if (parentChanged && row.parent_id) {
        // taking a child away rewrites the former parent's tree as well
        const former = await policyRow(tx, row.parent_id);
        if (former) await (await ctx.authorizer()).assert(PermissionName.POLICY_UPDATE, policyData(former));
    }
    if (parentChanged && !row.parent_id) {
        // only roots can be named; a named root that became a child would leave its references dangling
        await assertUnreferenced(tx, id, 'become the child of another policy');
    }
    return values;
}

/**
 * Policies (API.md §3, spec "Permission, policy and role routes"). The configuration is
 * validated by the access library's validators and stored in their canonical form.
 */
export function policiesDefinition(): ResourceDefinition<'auth_policies'> {
    return defineResource<'auth_policies'>({
        spec: policySpec,
        fields: policySpec.fields,
        hooks: {
            openBody: true,
            decorateRecord: withConfiguration,
            prepareCreate,
            prepareUpdate,
            async refuseDelete(row, tx, ctx) {
                // deleting a child rewrites its parent's tree, like adding one (tree.ts assertParent)
                const parent = row.parent_id ? await policyRow(tx, row.parent_id) : undefined;
                if (parent) await (await ctx.authorizer()).assert(PermissionName.POLICY_UPDATE, policyData(parent));
                await assertUnreferenced(tx, row.id, 'be deleted');
                return null;
            },
        },
    });
}
