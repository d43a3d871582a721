import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { contract } from '../contracts/route-contract.js';
import { idParams, singleEnvelope } from '../contracts/resource-schemas.js';
import type { RouteDeps } from './resource.js';
import { readExpandedPolicy } from '../../domains/policies/expanded.js';
import { policySpec } from '../../domains/policies/spec.js';

/** `GET /policies/:id/expanded` (spec "Permission, policy and role routes"), under each mount prefix. */
export function registerExpandedRoute(app: FastifyInstance, deps: RouteDeps, prefix: string): void {
    const routes = app.withTypeProvider<TypeBoxTypeProvider>();
    routes.get(`${prefix}/${policySpec.collection}/:id/expanded`, contract({
        auth: 'required', tags: [policySpec.collection], summary: 'A policy with its tree expanded', params: idParams(prefix),
        response: { 200: singleEnvelope(Type.Object({}, { additionalProperties: true, description: 'The policy record; a composite carries `children`, recursively.' }), 'The expanded tree.') },
    }), async (request) => {
        const ctx = request.context;
        return { data: await readExpandedPolicy(deps, ctx, request.params.id), meta: {} };
    });
}
