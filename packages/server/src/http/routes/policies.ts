import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { contract } from '../contracts/route-contract.js';
import { idParams, singleEnvelope } from '../contracts/resource-schemas.js';
import type { RequestContext } from '../../authz/request-context.js';
import type { AnyDb } from '../../domains/resource/context.js';
import { toRecord, type EntityRecord, type Row } from '../../domains/resource/records.js';
import { getRow } from '../../domains/resource/resolve.js';
import type { RouteDeps } from './resource.js';
import { permissionFor } from '../../domains/resource/spec.js';
import { withConfiguration } from '../../domains/policies/configuration.js';
import { policyFields, policySpec } from '../../domains/policies/spec.js';
import { COMPOSITE, loadSubtree, policyData } from '../../domains/policies/tree.js';

/**
 * The tree as nested records: each node is the policy record (configuration at the top level) and
 * a composite carries its children inline, like the catalog's nodes (spec "Policy node").
 */
async function expand(ctx: RequestContext, row: Row, children: ReadonlyMap<string, Row[]>): Promise<EntityRecord> {
    const authorizer = await ctx.authorizer();
    // every node is a row of its own, so each follows the single-row read rule (a row outside reach → 403)
    await authorizer.assert(permissionFor(policySpec, 'read'), policyData(row));
    const record = withConfiguration(toRecord(policyFields, row), row);
    if (row.type === COMPOSITE) {
        const nodes: EntityRecord[] = [];
        for (const child of children.get(row.id as string) ?? []) nodes.push(await expand(ctx, child, children));
        record.children = nodes;
    }
    return record;
}

/** `GET /policies/:id/expanded` (spec "Permission, policy and role routes"), under each mount prefix. */
export function registerExpandedRoute(app: FastifyInstance, deps: RouteDeps, prefix: string): void {
    app.get<{ Params: { id: string; realmId?: string } }>(`${prefix}/${policySpec.collection}/:id/expanded`, contract({
        auth: 'required', tags: [policySpec.collection], summary: 'A policy with its tree expanded', params: idParams(prefix),
        response: { 200: singleEnvelope(Type.Object({}, { additionalProperties: true, description: 'The policy record; a composite carries `children`, recursively.' }), 'The expanded tree.') },
    }), async (request) => {
        const ctx = request.context;
        const db = deps.db as AnyDb;
        const row = await getRow(db, policySpec, ctx, request.params.id);
        const { children } = await loadSubtree(db, row.id as string);
        return { data: await expand(ctx, row, children), meta: {} };
    });
}
