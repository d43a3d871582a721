import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { contract, ProtocolObject } from '../contracts/route-contract.js';
import { catalogBodyForCaller } from '../../authz/catalog-projection.js';
import type { AppDeps } from '../deps.js';

/**
 * `GET /authorization` (spec "Authorization routes", "Authorization catalog"): the identity-free
 * catalog, gated on PERMISSION_READ / UPDATE / DELETE and narrowed to the caller's realm reach.
 * The bare catalog object (API.md §1), revalidated on every use and never shared between
 * credentials (consumer rule 14: cache per credential).
 */
export function registerAuthorizationCatalogRoute(app: FastifyInstance, deps: AppDeps): void {
    const routes = app.withTypeProvider<TypeBoxTypeProvider>();
    routes.get('/authorization', contract({
        auth: 'required', tags: ['authorization'], summary: 'The authorization catalog (spec "Authorization catalog")',
        response: { 200: ProtocolObject('The catalog object, narrowed to the caller\'s realm reach.') },
    }), async (request, reply) => {
        const context = request.context;
        const authorizer = await context.authorizer();
        const body = await catalogBodyForCaller(await deps.catalog.get(), authorizer.evaluator);
        return reply.header('cache-control', 'private, no-cache').type('application/json; charset=utf-8').send(body);
    });
}
