import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../../wire.js';
import { contextOf } from '../request-context.js';
import { bearerTokenOf } from '../../authn/bearer-header.js';

/**
 * `GET /sessions/@me/introspect` (spec Endpoints): the introspection response of the request's own
 * credential — bearer or Basic, authenticated like any protected route (401 without one). The
 * bare response object, never cached (RFC 7662 §2.2 answers alike).
 */
export function registerSelfIntrospectionRoute(app: FastifyInstance, deps: AppDeps): void {
    app.get('/sessions/@me/introspect', async (request, reply) => {
        const context = await contextOf(deps, request);
        const answer = await deps.introspectionEndpoint.introspectSelf(context.actor, bearerTokenOf(request.headers.authorization));
        return reply.headers({ 'Cache-Control': 'no-store', Pragma: 'no-cache' }).send(answer);
    });
}
