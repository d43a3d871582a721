import type { RequestContext } from '../../authz/request-context.js';
import type { ResourceDeps } from '../resource/deps.js';
import { toRecord, type EntityRecord } from '../resource/records.js';
import type { PolicyRow } from '../../storage/policies.js';
import { getRow } from '../resource/resolve.js';
import { permissionFor } from '../resource/spec.js';
import { withConfiguration } from './configuration.js';
import { policyFields, policySpec } from './spec.js';
import { COMPOSITE, loadSubtree, policyData } from './tree.js';

/**
 * The tree as nested records: each node is the policy record (configuration at the top level) and
 * a composite carries its children inline, like the catalog's nodes (spec "Policy node").
 */
async function expand(ctx: RequestContext, row: PolicyRow, children: ReadonlyMap<string, PolicyRow[]>): Promise<EntityRecord> {
    const authorizer = await ctx.authorizer();
    // every node is a row of its own, so each follows the single-row read rule (a row outside reach → 403)
    await authorizer.assert(permissionFor(policySpec, 'read'), policyData(row));
    const record = withConfiguration(toRecord(policyFields, row), row);
    if (row.type === COMPOSITE) {
        const nodes: EntityRecord[] = [];
        for (const child of children.get(row.id) ?? []) nodes.push(await expand(ctx, child, children));
        record.children = nodes;
    }
    return record;
}

/** `GET /policies/:id/expanded` (spec "Permission, policy and role routes"): the policy and its subtree. */
export async function readExpandedPolicy(deps: Pick<ResourceDeps, 'db'>, ctx: RequestContext, key: string): Promise<EntityRecord> {
    const db = deps.db;
    const row = await getRow(db, policySpec, ctx, key);
    const { children } = await loadSubtree(db, row.id);
    return expand(ctx, row, children);
}
