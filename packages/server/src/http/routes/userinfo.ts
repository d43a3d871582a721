import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { contract, ProtocolObject } from '../contracts/route-contract.js';
import { AppError } from '../../errors/app-error.js';
import type { RequestLimits } from '../../limits/request-limits.js';
import type { UserinfoEndpoint } from '../../oauth2/userinfo.js';
import { CHARGED_BY_ROUTE } from '../limits-plugin.js';
import { dpopPresentationOf } from '../dpop-request.js';

/** OpenID Connect Core §5.3.2 answers hold personal data; RFC 6750 errors alike are never cached. */
const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };

export interface UserinfoRouteDeps {
    userinfo: UserinfoEndpoint;
    /** spec Limits: the user whose token was presented is charged to its own budget */
    limits?: RequestLimits;
}

const ANSWER = ProtocolObject('The UserInfo response (OpenID Connect Core §5.3.2): `sub` and the claims the token\'s scope releases.', {
    sub: Type.String(),
    preferred_username: Type.Optional(Type.String()),
    name: Type.Optional(Type.String()),
    nickname: Type.Optional(Type.String()),
    given_name: Type.Optional(Type.String()),
    family_name: Type.Optional(Type.String()),
    updated_at: Type.Optional(Type.Integer()),
    email: Type.Optional(Type.String()),
    email_verified: Type.Optional(Type.Boolean()),
});

/**
 * `GET /userinfo` and `POST /userinfo` (OpenID Connect Core §5.3; discovery's userinfo_endpoint):
 * the access token as a Bearer (or DPoP, RFC 9449 §7) header, or on POST as the form member `access_token` (RFC 6750
 * §2.2), so the route authenticates itself (`auth: 'none'`) and charges the user it verified.
 * Refusals carry the RFC 6750 §3 `WWW-Authenticate` challenge, a 403 (insufficient_scope) too.
 */
export function registerUserinfoRoutes(app: FastifyInstance, deps: UserinfoRouteDeps): void {
    const routes = app.withTypeProvider<TypeBoxTypeProvider>();
    const handler = async (request: FastifyRequest, reply: FastifyReply) => {
        reply.headers(NO_STORE);
        try {
            const formEncoded = /^application\/x-www-form-urlencoded\b/i.test(request.headers['content-type'] ?? '');
            const token = await deps.userinfo.authenticate({
                authorization: request.headers.authorization, body: request.body, query: request.query, formEncoded, dpop: dpopPresentationOf(request),
            });
            await deps.limits?.chargeRequest(request, { kind: 'user', id: token.sub });
            return reply.send(await deps.userinfo.claims(token));
        } catch (error) {
            // the error handler sets the challenge of a 401 only; RFC 6750 §3 names it on 400 and 403 too
            if (error instanceof AppError && error.challenge !== undefined) reply.header('WWW-Authenticate', error.challenge);
            throw error;
        }
    };
    const declared = (summary: string, body?: boolean) => contract({
        auth: 'none', tags: ['oauth2'], summary, config: CHARGED_BY_ROUTE, errors: [401, 403],
        description: 'The access token (scope `openid`, a user\'s) as `Authorization: Bearer` (`Authorization: DPoP` with a `DPoP` proof for a DPoP-bound token, RFC 9449 §7)' + (body ? ', or the form member `access_token` (RFC 6750 §2.2).' : '.'),
        ...(body ? {
            consumes: ['application/x-www-form-urlencoded'],
            // optional (the header alone is the common case): the endpoint reads `access_token` itself
            body: Type.Unknown({ description: 'Optionally `access_token` (RFC 6750 §2.2), form-encoded.' }),
        } : {}),
        response: { 200: ANSWER },
    });
    routes.get('/userinfo', declared('UserInfo (OpenID Connect Core §5.3)'), handler);
    routes.post('/userinfo', declared('UserInfo by POST (OpenID Connect Core §5.3.1)', true), handler);
}
