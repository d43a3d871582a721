import { ErrorCode } from '@realmgate/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import { authenticateHeader } from '../../authn/authenticate-header.js';
import { dpopPresentationOf } from '../dpop-request.js';
import { AppError } from '../../errors/app-error.js';
import { authorizeForActor } from '../../oauth2/authorize/api-form.js';
import { decide } from '../../oauth2/authorize/flow.js';
import { contract, ProtocolObject } from '../contracts/route-contract.js';
import type { AppDeps } from '../deps.js';
import { renderError } from '../error-handler.js';
import { browserContext, sendErrorAsPage, sendInvalid, sendOutcome, sessionOf, type BrowserContext } from '../authorize-render.js';
import { registerAuthorizeFormRoutes } from './authorize-forms.js';
import { registerPasskeyFormRoutes } from './passkey-forms.js';

const PAGE = Type.String({ description: 'An HTML page (sign-in, consent, form_post or error).' });
const REDIRECT = Type.Null({ description: 'See Other: the authorization response at the redirect URI.' });
const FORM_OR_JSON = ['application/x-www-form-urlencoded', 'application/json'] as const;

/** The browser authorization request (OIDC Core §3.1.2.1: GET with a query, or POST with a form). */
async function browserAuthorize(context: BrowserContext, request: FastifyRequest, reply: FastifyReply, source: unknown): Promise<FastifyReply> {
    const { db, handle, authorizationRequests } = context.deps;
    const validation = await authorizationRequests.validate(source);
    if (!validation.ok) return sendInvalid(context, request, reply, validation);
    const session = await sessionOf(context, request);
    const outcome = await decide({ db, dialect: handle.dialect }, validation.request, session, { fresh: false });
    return sendOutcome(context, request, reply, validation.request, outcome);
}

/** `POST /authorize` with credentials (spec Authentication 7): JSON `{url, code, state?, iss}`, errors as JSON. */
async function apiAuthorize(deps: AppDeps, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const actor = await authenticateHeader(deps, request.headers.authorization, null, dpopPresentationOf(request));
    if (actor.identity) await deps.limits.chargeRequest(request, { kind: actor.identity.type === 'user' ? 'user' : 'client', id: actor.identity.id });
    const validation = await deps.authorizationRequests.validate(request.body);
    if (!validation.ok) {
        // the API form answers every error to its caller; nothing is redirected
        if ('page' in validation) throw new AppError(validation.page.error, validation.page.message, { statusCode: 400 });
        const { error, error_description: description } = validation.redirect.params;
        throw new AppError(error as ErrorCode, description ?? 'The request is invalid.');
    }
    const answer = await authorizeForActor(
        { db: deps.db, dialect: deps.handle.dialect, sessionMaxAge: deps.config.tokenRefreshMaxAge }, actor, validation.request,
        { ipAddress: request.ip ?? null, userAgent: request.headers['user-agent'] ?? null },
    );
    return reply.header('cache-control', 'no-store').send(answer);
}

/**
 * The authorization endpoint (sign-in, consent, the API form and single sign-on; RFC 6749 §3.1, OIDC Core §3.1.2): `GET` and
 * `POST /authorize` for a browser, `POST /authorize` with credentials for the API form, and the
 * sign-in and consent forms' targets. The routes are `auth: 'none'`: the browser routes read the
 * console session themselves, the API form authenticates its caller here.
 */
export function registerAuthorizeRoutes(app: FastifyInstance, deps: AppDeps): void {
    const context = browserContext(deps);
    void app.register(async (scope) => {
        // a browser sees every error as a page (a throttled address included); the API form as JSON
        scope.setErrorHandler((error, request, reply) => {
            if (request.headers.authorization !== undefined) {
                const { status, body } = renderError(error as Parameters<typeof renderError>[0], request, reply);
                const code = body.code === ErrorCode.BAD_REQUEST ? ErrorCode.INVALID_REQUEST : body.code;
                return reply.status(status).header('cache-control', 'no-store').send({ ...body, code, error: status >= 500 ? 'server_error' : code, error_description: body.message });
            }
            return sendErrorAsPage(context, error, request, reply);
        });
        scope.get('/authorize', contract({
            auth: 'none', tags: ['oauth2'], summary: 'Authorization endpoint (RFC 6749 §3.1, OIDC Core §3.1.2)',
            description: 'The browser authorization request: the sign-in page, the consent page, or 303 to the redirect URI with a code (or an error), `state` and `iss` (RFC 9207).',
            response: { 200: PAGE, 303: REDIRECT },
        }), (request, reply) => browserAuthorize(context, request, reply, request.query));
        scope.post('/authorize', contract({
            auth: 'none', tags: ['oauth2'], summary: 'Authorization endpoint: browser form post, or the API form with credentials',
            description: 'Without an Authorization header, the browser authorization request as a form (OIDC Core §3.1.2.1). With a user bearer issued without a client (or Basic), the API form (spec Authentication 7): the redirect URL with the code as JSON; a bearer issued to a client answers 400 login_required.',
            consumes: FORM_OR_JSON, body: Type.Unknown({ description: 'The authorization request parameters.' }),
            response: {
                200: ProtocolObject('The API form: the redirect URL with the code (or, for a browser, a page).', {
                    url: Type.String(), code: Type.String(), state: Type.Optional(Type.String()), iss: Type.String(),
                }),
                303: REDIRECT,
            },
            errors: [401, 403],
        }), (request, reply) => (request.headers.authorization !== undefined ?
            apiAuthorize(deps, request, reply) :
            browserAuthorize(context, request, reply, request.body)));
        registerAuthorizeFormRoutes(scope, context);
        registerPasskeyFormRoutes(scope, context);
    });
}
