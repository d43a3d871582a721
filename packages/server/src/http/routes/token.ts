import { ErrorCode } from '@realmgate/core';
import { Type, type TSchema } from '@sinclair/typebox';
import { contract, EmptyAnswer, ProtocolObject } from '../contracts/route-contract.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { IntrospectionEndpoint } from '../../oauth2/introspection-endpoint.js';
import type { RevocationEndpoint } from '../../oauth2/revocation-endpoint.js';
import type { TokenEndpoint } from '../../oauth2/token-endpoint.js';
import { renderError } from '../error-handler.js';
import { CHARGED_BY_ROUTE } from '../limits-plugin.js';
import type { RequestLimits } from '../../limits/request-limits.js';
import type { Charge, ProtocolEndpoint } from '../../oauth2/pipeline.js';
import { protocolMembersOf } from '../../oauth2/errors.js';
import { introspectionJson } from '../../oauth2/introspection.js';
import { dpopPresentationOf } from '../dpop-request.js';
import { INTROSPECTION_RESPONSE } from './introspection.js';

/**
 * The codes RFC 6749 §5.2 and RFC 8628 §3.5 define, with the RFC `error` each carries (spec
 * Errors: device_code_expired is RFC 8628's expired_token); any other failure is reported as
 * invalid_request or server_error.
 */
const OAUTH_ERRORS: ReadonlyMap<string, string> = new Map([
    ErrorCode.INVALID_REQUEST, ErrorCode.INVALID_CLIENT, ErrorCode.INVALID_GRANT,
    ErrorCode.UNAUTHORIZED_CLIENT, ErrorCode.UNSUPPORTED_GRANT_TYPE, ErrorCode.INVALID_SCOPE,
    // RFC 8707 §2: a resource indicator the server does not accept
    ErrorCode.INVALID_TARGET,
    ErrorCode.AUTHORIZATION_PENDING, ErrorCode.SLOW_DOWN, ErrorCode.ACCESS_DENIED,
    // the password grant's second-factor ticket (mfa_required)
    ErrorCode.MFA_REQUIRED,
    // a directory that could not answer (RFC 6749 §4.1.2.1 names the code)
    ErrorCode.TEMPORARILY_UNAVAILABLE,
    // RFC 9449 §5, §8
    ErrorCode.INVALID_DPOP_PROOF, ErrorCode.USE_DPOP_NONCE,
    // RFC 9126 §2.3: a pushed request is refused with the authorization endpoint's codes
    ErrorCode.UNSUPPORTED_RESPONSE_TYPE, ErrorCode.INVALID_REQUEST_OBJECT,
].map((code) => [code, code] as [string, string]).concat([[ErrorCode.DEVICE_CODE_EXPIRED, 'expired_token']]));

/** RFC 6749 §5.1: token answers, errors included, are never cached (RFC 7009 and RFC 7662 §2.2 answers alike). */
const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };
const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * The error handler of OAuth protocol routes whose RFC names more error codes than RFC 6749 §5.2
 * (dynamic registration: RFC 7591 §3.2.2, RFC 6750 §3.1): `extra` codes carry their own `error`.
 */
export function protocolErrorHandler(extra: readonly ErrorCode[]) {
    const errors = new Map([...OAUTH_ERRORS, ...extra.map((code) => [code, code] as [string, string])]);
    return (error: unknown, request: FastifyRequest, reply: FastifyReply) => {
        const { status, body } = renderError(error as Parameters<typeof renderError>[0], request, reply);
        const oauth = errors.get(body.code) ?? (status >= 500 ? 'server_error' : ErrorCode.INVALID_REQUEST);
        // the framework's body errors become invalid_request in both members
        const code = body.code === ErrorCode.BAD_REQUEST ? ErrorCode.INVALID_REQUEST : body.code;
        return reply.status(status).headers(NO_STORE).send({ ...body, code, error: oauth, error_description: body.message, ...protocolMembersOf(error) });
    };
}

/** The error handler of the OAuth protocol routes (API.md §1 members plus RFC 6749 §5.2 `error`, `error_description`). */
export const oauthErrorHandler = protocolErrorHandler([]);
/**
 * A protocol endpoint run for a request (spec Limits): the steps up to caller authentication, the
 * request charged to the caller that proved itself (else its address; `on-finish`: at the end of
 * the request by the transport), then the rest.
 */
export async function runProtocolEndpoint<Input, State, Output>(
    endpoint: ProtocolEndpoint<Input, State, Output>, limits: RequestLimits | undefined, request: FastifyRequest, input: Input,
): Promise<Output> {
    const authenticated = await endpoint.authenticate(input);
    if (authenticated.charge !== 'on-finish') await limits?.chargeRequest(request, authenticated.charge === 'address' ? null : authenticated.charge);
    return endpoint.handle(authenticated.state);
}

export interface TokenRouteEndpoints {
    token: TokenEndpoint;
    revoke: RevocationEndpoint;
    introspect: IntrospectionEndpoint['introspect'];
    /** spec Limits: a caller that authenticates here is charged to its own budget */
    limits?: RequestLimits;
    /** a token answered, by grant type (the tokens-issued metric) */
    onIssued?: (grant: string) => void;
}

/**
 * `POST /token`, `POST /token/revoke` and `POST /token/introspect` (API.md §4): form or JSON body, answers unenveloped.
 * Errors carry RFC 6749 §5.2 `error`/`error_description` beside the API.md §1 members (RFC 7009
 * §2.2.1 reuses them) — body parse errors included, so the routes' own error handler wraps the
 * shared one.
 */
export function registerTokenRoutes(app: FastifyInstance, endpoints: TokenRouteEndpoints): void {
    void app.register(async (scope) => {
        /** spec Limits: the caller the endpoint authenticated is charged before the rest of it runs */
        const charge = async (request: FastifyRequest, charged: Charge) => {
            if (charged === 'on-finish') return;
            await endpoints.limits?.chargeRequest(request, charged === 'address' ? null : charged);
        };
        const body = (description: string) => Type.Unknown({ description });
        const declared = (summary: string, description: string, response: Record<number, TSchema>) => contract({
            auth: 'none', oauth: true, tags: ['oauth2'], summary, config: CHARGED_BY_ROUTE,
            consumes: ['application/x-www-form-urlencoded', 'application/json'], body: body(description), response,
        });
        scope.setErrorHandler(oauthErrorHandler);
        scope.post('/token', declared('Token endpoint (RFC 6749 §3.2)', '`grant_type` and its parameters; the client authenticates with Basic or `client_id`/`client_secret`.', {
            200: ProtocolObject('The token response (RFC 6749 §5.1).', {
                access_token: Type.String(), token_type: Type.String(), expires_in: Type.Optional(Type.Integer()),
                refresh_token: Type.Optional(Type.String()), id_token: Type.Optional(Type.String()), scope: Type.Optional(Type.String()),
                // RFC 8693 §2.2.1: a token exchange's answer
                issued_token_type: Type.Optional(Type.String()),
            }),
        }), async (request, reply) => {
            const authenticated = await endpoints.token.authenticate({
                body: request.body,
                authorization: request.headers.authorization,
                ipAddress: request.ip ?? null,
                userAgent: request.headers['user-agent'] ?? null,
                dpop: dpopPresentationOf(request),
            });
            await charge(request, authenticated.charge);
            const answer = await endpoints.token.handle(authenticated.state);
            // RFC 9449 §8.2: the nonce for the client's next proof
            const nonce = endpoints.token.dpopNonce(authenticated.state);
            if (nonce !== null) reply.header('DPoP-Nonce', nonce);
            // a grant that answered is one of the registry's, so the label set stays bounded
            endpoints.onIssued?.(String((request.body as Record<string, unknown>).grant_type));
            return reply.headers(NO_STORE).send(answer);
        });
        // RFC 7009 §2.2: 200 whether or not the token was known; the body is empty
        scope.post('/token/revoke', declared('Token revocation (RFC 7009)', '`token` and optional `token_type_hint`.', {
            200: EmptyAnswer('Revoked, or the token was unknown (RFC 7009 §2.2).'),
        }), async (request, reply) => {
            const authenticated = await endpoints.revoke.authenticate({ body: request.body, query: request.query, authorization: request.headers.authorization });
            await charge(request, authenticated.charge);
            await endpoints.revoke.handle(authenticated.state);
            return reply.status(200).headers(NO_STORE).send();
        });
        // RFC 7662 §2.2: the introspection response, unenveloped
        scope.post('/token/introspect', declared('Token introspection (RFC 7662)', '`token` and optional `token_type_hint`.', {
            200: INTROSPECTION_RESPONSE,
        }), async (request, reply) => {
            const authenticated = await endpoints.introspect.authenticate({
                body: request.body, query: request.query, authorization: request.headers.authorization, dpop: dpopPresentationOf(request),
            });
            await charge(request, authenticated.charge);
            const answer = await endpoints.introspect.handle(authenticated.state);
            // the answer's text as JSON.stringify writes it, its remembered grant list written once
            return reply.status(200).headers(NO_STORE).type(JSON_TYPE).send(introspectionJson(answer));
        });
    });
}
