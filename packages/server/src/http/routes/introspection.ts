import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { contract, ProtocolObject } from '../contracts/route-contract.js';
import type { AppDeps } from '../deps.js';
import { accessTokenOf } from '../../authn/bearer-header.js';

/**
 * The introspection response (RFC 7662 §2.2), open to the spec's members: an active token's
 * RFC 9068 §2.2 claims are typed for the client kit; each is absent, never null, when it does not apply.
 */
export const INTROSPECTION_RESPONSE = ProtocolObject('The introspection response (RFC 7662 §2.2).', {
    active: Type.Boolean(),
    iss: Type.Optional(Type.String()),
    kind: Type.Optional(Type.String({ description: 'access_token or refresh_token' })),
    aud: Type.Optional(Type.String({ description: 'the resource server the token is for (RFC 9068 §2.2, RFC 8707)' })),
    client_id: Type.Optional(Type.String()),
    scope: Type.Optional(Type.String()),
    jti: Type.Optional(Type.String()),
    iat: Type.Optional(Type.Integer()),
    exp: Type.Optional(Type.Integer()),
});

/**
 * `GET /sessions/@me/introspect` (spec Endpoints): the introspection response of the request's own
 * credential — bearer (DPoP-bound included) or Basic, authenticated like any protected route (401 without one). The
 * bare response object, never cached (RFC 7662 §2.2 answers alike).
 */
export function registerSelfIntrospectionRoute(app: FastifyInstance, deps: AppDeps): void {
    const routes = app.withTypeProvider<TypeBoxTypeProvider>();
    routes.get('/sessions/@me/introspect', contract({
        auth: 'required', tags: ['sessions'], summary: 'Introspect the request\'s own credential',
        response: { 200: INTROSPECTION_RESPONSE },
    }), async (request, reply) => {
        const answer = await deps.introspectionEndpoint.introspectSelf(request.context.actor, accessTokenOf(request.headers.authorization)?.token ?? null);
        return reply.headers({ 'Cache-Control': 'no-store', Pragma: 'no-cache' }).send(answer);
    });
}
