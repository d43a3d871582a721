import type { FastifyInstance } from 'fastify';
import { contextOf } from '../request-context.js';
import type { RouteDeps } from './resource.js';
import { readExpandedPolicy } from '../../domains/policies/expanded.js';
import { policySpec } from '../../domains/policies/spec.js';

/** `GET /policies/:id/expanded` (spec "Permission, policy and role routes"), under each mount prefix. */
export function registerExpandedRoute(app: FastifyInstance, deps: RouteDeps, prefix: string): void {
    app.get<{ Params: { id: string; realmId?: string } }>(`${prefix}/${policySpec.collection}/:id/expanded`, async (request) => {
        const ctx = await contextOf(deps, request);
        return { data: await readExpandedPolicy(deps, ctx, request.params.id), meta: {} };
    });
}
