import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { contract, ProtocolObject } from '../contracts/route-contract.js';
import type { AppDeps } from '../deps.js';
import { accessTokenOf } from '../../authn/bearer-header.js';

/**
 * `GET /sessions/@me/introspect` (spec Endpoints): the introspection response of the request's own
 * credential — bearer (DPoP-bound included) or Basic, authenticated like any protected route (401 without one). The
 * bare response object, never cached (RFC 7662 §2.2 answers alike).
 */
export function registerSelfIntrospectionRoute(app: FastifyInstance, deps: AppDeps): void {
    const routes = app.withTypeProvider<TypeBoxTypeProvider>();
    routes.get('/sessions/@me/introspect', contract({
        auth: 'required', tags: ['sessions'], summary: 'Introspect the request\'s own credential',
        response: { 200: ProtocolObject('The introspection response (RFC 7662 §2.2).', { active: Type.Boolean() }) },
    }), async (request, reply) => {
        const answer = await deps.introspectionEndpoint.introspectSelf(request.context.actor, accessTokenOf(request.headers.authorization)?.token ?? null);
        return reply.headers({ 'Cache-Control': 'no-store', Pragma: 'no-cache' }).send(answer);
    });
}
