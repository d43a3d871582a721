import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { contract } from '../contracts/route-contract.js';
import { idParams, ReadQuery, recordSchema, singleEnvelope } from '../contracts/resource-schemas.js';
import type { ResourceDefinition } from '../../domains/resource/context.js';
import { readCaller } from '../../domains/identity/caller.js';
import type { RouteDeps } from './resource.js';

/** `GET /users/@me`: the caller's own record (API.md §1). */
export function registerUserRoutes(app: FastifyInstance, deps: RouteDeps, definition: ResourceDefinition, prefix: string): void {
    const routes = app.withTypeProvider<TypeBoxTypeProvider>();
    routes.get(`${prefix}/${definition.spec.collection}/@me`, contract({
        auth: 'required', tags: [definition.spec.collection], summary: 'The calling user', ...(prefix ? { params: idParams(prefix, []) } : {}),
        querystring: ReadQuery, response: { 200: singleEnvelope(recordSchema(definition), 'The caller\'s own user record.') },
    }), async (request) => {
        const ctx = request.context;
        return { data: await readCaller(deps, definition, ctx, 'user', request.query as Record<string, unknown>), meta: {} };
    });
}
