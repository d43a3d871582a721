import type { FastifyInstance, FastifyRequest } from 'fastify';
import { decodeBasicRfc7617 } from '../authn/basic-credentials.js';
import { mayCarrySession } from '../authn/console-session.js';
import { failedSignInOf, isFailedAuthentication } from '../limits/failed-authentication.js';
import type { DetachedEventLog } from '../storage/events.js';
import { AUTH_EVENT, type SignInMethod } from '../tokens/auth-events.js';
import { requestOfEvent } from './event-request.js';
import type { RequestLimits } from '../limits/request-limits.js';

/**
 * Route config of a route that charges each request itself once it knows who is calling, even
 * without an Authorization header (the token routes: a client may authenticate in the body).
 */
export const CHARGED_BY_ROUTE = { limits: 'route' } as const;

/**
 * Route config of the operations routes (GET /health, /health/ready, /metrics; API.md §7):
 * off the limits altogether, so a probe or scraper is never refused or charged, and a refused
 * address cannot make an instance look unhealthy. They read no credentials of the API.
 */
export const OFF_LIMITS = { limits: 'off' } as const;

function offLimits(request: FastifyRequest): boolean {
    return (request.routeOptions.config as { limits?: string }).limits === OFF_LIMITS.limits;
}

/** The account a request tries to log in as: a Basic name, a password-grant user, a body client. */
function loginAccountOf(request: FastifyRequest): string | null {
    const header = request.headers.authorization;
    if (header !== undefined) {
        const name = header.length < 1024 ? decodeBasicRfc7617(header)?.name ?? null : null;
        return name === null ? null : `basic:${name}`;
    }
    const body = request.body;
    if (typeof body !== 'object' || body === null) return null;
    const params = body as Record<string, unknown>;
    if (params.grant_type === 'password' && typeof params.username === 'string') return `user:${params.username}`;
    if (typeof params.client_id === 'string' && typeof params.client_secret === 'string') return `client:${params.client_id}`;
    return null;
}

/**
 * spec Limits on Fastify's request lifecycle (limits/request-limits.ts holds the budgets): stage
 * one on every request as it arrives; stage two here for requests without credentials, in
 * the authentication step (http/authentication-step.ts) for authenticated ones, and in the token routes for the client that authenticated;
 * the login gate once the body is parsed; counted failures on error; the address charge of an
 * uncharged request when it ends.
 */
/** How a failed sign-in was tried: Basic, the password grant, or a client's secret at a protocol endpoint. */
function signInMethodOf(request: FastifyRequest): SignInMethod {
    if (request.headers.authorization !== undefined) return 'basic';
    const body = request.body as Record<string, unknown> | null | undefined;
    return typeof body === 'object' && body !== null && body.grant_type === 'password' ? 'password' : 'client';
}

export function registerLimits(app: FastifyInstance, limits: RequestLimits, events?: DetachedEventLog): void {
    app.addHook('onRequest', async (request, reply) => {
        if (offLimits(request)) return;
        limits.admit(request, (headers) => reply.headers(headers));
        // a console-session cookie is a credential (spec Authentication 1): charged to its user by the authentication
        // step, or to the address when the request ends (limits.finish) if it named no live session
        if (request.headers.authorization === undefined && !mayCarrySession(request.headers.cookie) &&
            (request.routeOptions.config as { limits?: string }).limits !== CHARGED_BY_ROUTE.limits) {
            await limits.chargeRequest(request, null);
        }
    });
    // the gate holds its slot before the credential is verified: the HTTP authentication step runs
    // at preValidation after this hook, and the endpoints of the token routes in their handler
    app.addHook('preValidation', async (request) => {
        if (offLimits(request)) return;
        const account = loginAccountOf(request);
        if (account !== null) limits.enterLoginGate(request, account);
    });
    app.addHook('onError', async (request, _reply, error) => {
        if (!isFailedAuthentication(error)) return;
        // a failed sign-in is an entry of the event log, written outside the request's
        // (rolled back) work and never awaited; a forged bearer is not a sign-in and tells nothing
        const signIn = failedSignInOf(error);
        if (signIn && events) {
            events.record({
                name: AUTH_EVENT.signInFailed, scope: 'auth', refType: signIn.refType, refId: signIn.refId, realmId: signIn.realmId,
                request: requestOfEvent(request), data: { method: signInMethodOf(request) },
            });
        }
        await limits.failed(request);
    });
    const finish = (request: FastifyRequest) => limits.finish(request);
    app.addHook('onResponse', finish);
    app.addHook('onRequestAbort', finish);
}
