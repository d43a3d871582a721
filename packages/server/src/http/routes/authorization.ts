import type { FastifyInstance } from 'fastify';
import { catalogBodyForCaller } from '../../authz/catalog-projection.js';
import type { AppDeps } from '../../wire.js';
import { contextOf } from '../request-context.js';

/**
 * `GET /authorization` (spec "Authorization routes", "Authorization catalog"): the identity-free
 * catalog, gated on PERMISSION_READ / UPDATE / DELETE and narrowed to the caller's realm reach.
 * The bare catalog object (API.md §1), revalidated on every use and never shared between
 * credentials (consumer rule 14: cache per credential).
 */
export function registerAuthorizationCatalogRoute(app: FastifyInstance, deps: AppDeps): void {
    app.get('/authorization', async (request, reply) => {
        const context = await contextOf(deps, request);
        const authorizer = await context.authorizer();
        const body = await catalogBodyForCaller(await deps.catalog.get(), authorizer.evaluator);
        return reply.header('cache-control', 'private, no-cache').type('application/json; charset=utf-8').send(body);
    });
}
