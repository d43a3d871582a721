import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { RequestLimits } from '../../limits/request-limits.js';
import type { PushedAuthorizationEndpoint } from '../../oauth2/pushed-authorization-endpoint.js';
import { contract, ProtocolObject } from '../contracts/route-contract.js';
import { CHARGED_BY_ROUTE } from '../limits-plugin.js';
import { dpopPresentationOf } from '../dpop-request.js';
import { oauthErrorHandler, runProtocolEndpoint } from './token.js';

export interface PushedAuthorizationRouteDeps {
    endpoint: PushedAuthorizationEndpoint;
    limits: RequestLimits;
}

/**
 * `POST /par` (RFC 9126 §2, a protocol route beside /authorize and /token; API.md §8): the client
 * authenticates as at /token, the realm follows from it. 201 with the request_uri (§2.2); errors
 * as the token endpoint's (§2.3).
 */
export function registerPushedAuthorizationRoutes(app: FastifyInstance, deps: PushedAuthorizationRouteDeps): void {
    void app.register(async (scope) => {
        scope.setErrorHandler(oauthErrorHandler);
        scope.post('/par', contract({
            auth: 'none', oauth: true, tags: ['oauth2'], summary: 'Pushed authorization request endpoint (RFC 9126 §2)', config: CHARGED_BY_ROUTE,
            consumes: ['application/x-www-form-urlencoded', 'application/json'],
            body: Type.Unknown({ description: 'The authorization request parameters; the client authenticates as at /token (Basic, or `client_id`/`client_secret`).' }),
            response: {
                201: ProtocolObject('The pushed authorization response (RFC 9126 §2.2): a single-use reference for /authorize.', {
                    request_uri: Type.String(), expires_in: Type.Integer(),
                }),
            },
        }), async (request, reply) => {
            // spec Limits: the client that proved its secret is charged, else the address
            const answer = await runProtocolEndpoint(deps.endpoint, deps.limits, request, { body: request.body, authorization: request.headers.authorization, dpop: dpopPresentationOf(request) });
            // RFC 9126 §2.2 (as RFC 6749 §5.1): never cached
            return reply.status(201).headers({ 'Cache-Control': 'no-store', Pragma: 'no-cache' }).send(answer);
        });
    });
}
