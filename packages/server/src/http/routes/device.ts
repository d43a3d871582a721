import { ErrorCode } from '@realmgate/core';
import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError, forbidden } from '../../errors/app-error.js';
import type { RequestLimits } from '../../limits/request-limits.js';
import type { DeviceAuthorizationEndpoint } from '../../oauth2/device/authorization-endpoint.js';
import type { DeviceVerification, DeviceVerifier } from '../../oauth2/device/verification.js';
import { contract, ProtocolObject } from '../contracts/route-contract.js';
import { CHARGED_BY_ROUTE } from '../limits-plugin.js';
import { oauthErrorHandler, runProtocolEndpoint } from './token.js';

export interface DeviceRouteDeps {
    endpoint: DeviceAuthorizationEndpoint;
    verification: DeviceVerification;
    limits: RequestLimits;
}

const UserCodeBody = Type.Object({ user_code: Type.String({ minLength: 1, maxLength: 64, description: 'The user code, as shown (case-insensitive, the dash optional).' }) }, {
    additionalProperties: false,
});

const RequestView = Type.Object({
    data: Type.Object({
        client: Type.Object({ id: Type.String(), name: Type.String(), displayName: Type.Union([Type.String(), Type.Null()]) }),
        scopes: Type.Array(Type.String()),
        expiresAt: Type.String({ format: 'date-time' }),
    }),
    meta: Type.Object({}),
}, { description: 'The pending device authorization request: the client and the scopes it asks for.' });

/** The user a verification route acts for: any user credential; a client is no user (403). */
function verifierOf(request: FastifyRequest): DeviceVerifier {
    const { actor } = request.context;
    const identity = actor.identity;
    if (identity?.type !== 'user' || !identity.realmId) throw forbidden('Only a user can enter a device user code.');
    return { userId: identity.id, realmId: identity.realmId, realmName: identity.realmName, sessionId: actor.sessionId ?? null, address: request.ip };
}

/**
 * `POST /device_authorization` (RFC 8628 §3.1, a protocol route like /token) and the API form of
 * the verification (spec "Authorization-code, device and logout routes"): lookup, approve, deny
 * with a JSON `{ user_code }` and a user credential. All sit outside /console.
 */
export function registerDeviceRoutes(app: FastifyInstance, deps: DeviceRouteDeps): void {
    void app.register(async (scope) => {
        scope.setErrorHandler(oauthErrorHandler);
        scope.post('/device_authorization', contract({
            auth: 'none', oauth: true, tags: ['oauth2'], summary: 'Device authorization request (RFC 8628 §3.1)', config: CHARGED_BY_ROUTE,
            consumes: ['application/x-www-form-urlencoded', 'application/json'],
            body: Type.Unknown({ description: '`client_id` (or client authentication as at /token) and optional `scope`.' }),
            response: {
                200: ProtocolObject('The device authorization response (RFC 8628 §3.2).', {
                    device_code: Type.String(), user_code: Type.String(), verification_uri: Type.String(),
                    verification_uri_complete: Type.String(), expires_in: Type.Integer(), interval: Type.Integer(),
                }),
            },
        }), async (request, reply) => {
            // spec Limits: the client that proved its secret is charged, else the address
            const answer = await runProtocolEndpoint(deps.endpoint, deps.limits, request, { body: request.body, authorization: request.headers.authorization });
            // RFC 8628 §3.2 (RFC 6749 §5.1 alike): never cached
            return reply.headers({ 'Cache-Control': 'no-store', Pragma: 'no-cache' }).send(answer);
        });
    });
    const routes = app.withTypeProvider<TypeBoxTypeProvider>();
    const declared = (summary: string, description: string) => contract({
        auth: 'required', tags: ['oauth2'], summary, description, body: UserCodeBody, response: { 200: RequestView }, errors: [429],
    });
    routes.post('/device_authorization/lookup', declared('Look up a device user code', 'Any user credential; the pending request\'s client and scopes.'), async (request) => {
        return { data: await deps.verification.lookup(verifierOf(request), request.body.user_code), meta: {} };
    });
    routes.post('/device_authorization/approve', declared(
        'Approve a device authorization request', 'A user credential not issued to a client (spec Authentication 7): Basic or a bearer issued without a client.',
    ), async (request) => {
        const verifier = verifierOf(request);
        // spec Authentication 7: only a token issued without a client may authorize an application
        if (request.context.actor.method === 'bearer' && request.context.actor.tokenClientId !== null) {
            throw new AppError(ErrorCode.LOGIN_REQUIRED, 'A token issued to a client cannot approve a device; sign in without a client.');
        }
        return { data: await deps.verification.approve(verifier, request.body.user_code), meta: {} };
    });
    routes.post('/device_authorization/deny', declared('Deny a device authorization request', 'Any user credential.'), async (request) => {
        return { data: await deps.verification.deny(verifierOf(request), request.body.user_code), meta: {} };
    });
}
