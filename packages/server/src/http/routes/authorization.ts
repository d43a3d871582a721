import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { contract, ProtocolObject } from '../contracts/route-contract.js';
import { catalogBodyForCaller } from '../../authz/catalog-projection.js';
import { ifNoneMatchMatches } from '../conditional.js';
import type { AppDeps } from '../deps.js';

/** Spec "Authorization routes": the catalog is revalidated on every use. */
const CACHE_CONTROL = 'private, no-cache';

/**
 * `GET /authorization` (spec "Authorization routes", "Authorization catalog"): the identity-free
 * catalog, gated on PERMISSION_READ / UPDATE / DELETE and narrowed to the caller's realm reach.
 * The bare catalog object (API.md §1), revalidated on every use and never shared between
 * credentials (consumer rule 14: cache per credential). The body is serialized once per catalog
 * version and reach; its strong ETag lets a consumer revalidate with If-None-Match and get 304
 * (RFC 9110 §13.1.2). Preconditions are evaluated after the gate (RFC 9110 §13.2.1: a request
 * that would not answer 2xx ignores them), so a 304 never tells a refused caller anything.
 */
export function registerAuthorizationCatalogRoute(app: FastifyInstance, deps: AppDeps): void {
    const routes = app.withTypeProvider<TypeBoxTypeProvider>();
    routes.get('/authorization', contract({
        auth: 'required', tags: ['authorization'], summary: 'The authorization catalog (spec "Authorization catalog")',
        description: 'Answers an ETag; a request whose If-None-Match names it (or `*`) gets 304 without a body.',
        response: {
            200: ProtocolObject('The catalog object, narrowed to the caller\'s realm reach.'),
            304: Type.Null({ description: 'Not Modified: the catalog the If-None-Match tag names is current (RFC 9110 §15.4.5).' }),
        },
    }), async (request, reply) => {
        const context = request.context;
        const authorizer = await context.authorizer();
        const { body, etag } = await catalogBodyForCaller(await deps.catalog.get(), authorizer.evaluator);
        // RFC 9110 §15.4.5: a 304 carries the ETag and Cache-Control the 200 would have carried
        reply.header('cache-control', CACHE_CONTROL).header('etag', etag);
        if (ifNoneMatchMatches(request.headers['if-none-match'], etag)) return reply.code(304).send();
        return reply.type('application/json; charset=utf-8').send(body);
    });
}
