import { ErrorCode } from '@realmgate/core';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import type { Kysely } from 'kysely';
import type { Actor } from '../authn/actor.js';
import { authenticateHeader, type HeaderAuthenticationDeps } from '../authn/authenticate-header.js';
import { consoleSessionActor, cookiePolicy, verifyConsoleSession, type CookiePolicy } from '../authn/console-session.js';
import { createRequestAuthorizer, type RequestAuthorizer } from '../authz/authorizer.js';
import type { CatalogCache } from '../authz/catalog-cache.js';
import type { RequestContext } from '../authz/request-context.js';
import type { Database } from '../db/schema.js';
import { AppError, notFound } from '../errors/app-error.js';
import { dpopPresentationOf } from './dpop-request.js';
import type { RequestLimits } from '../limits/request-limits.js';
import { findRealmByIdOrName } from '../storage/realms.js';

/**
 * How a route authenticates its caller, declared in its options as `config: { auth }`:
 * - `required`: Basic, Bearer or DPoP (RFC 9449 §7); without credentials 401, before the body is read or validated;
 * - `optional`: identity-optional (the check routes): credentials are verified when sent, and an
 *   anonymous caller goes through as such;
 * - `none`: the route authenticates nobody here — public documents (discovery, JWKS, /docs) and
 *   the OAuth protocol routes, whose endpoints authenticate the client themselves (RFC 6749 §2.3).
 */
export type RouteAuth = 'required' | 'optional' | 'none';

declare module 'fastify' {
    interface FastifyContextConfig {
        auth?: RouteAuth;
    }
    interface FastifyRequest {
        /** the caller, its lazily built authorizer and the mount realm; set on `required`/`optional` routes */
        context: RequestContext;
    }
}

export interface AuthenticationStepDeps extends HeaderAuthenticationDeps {
    catalog: CatalogCache;
    /** spec Limits: the authenticated caller's request budget is charged here */
    limits?: RequestLimits;
    /** PUBLIC_URL names the console-session cookie and the origin of same-origin requests */
    config?: { publicUrl: string; userAuthBasic: boolean };
}

/** Methods that change nothing (RFC 9110 §9.2.1): no CSRF check for them. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * CSRF protection of a cookie-authenticated unsafe request (spec Authentication 1; OWASP CSRF Prevention
 * Cheat Sheet, "Verifying Origin" and "Custom Request Headers"): its Origin must be PUBLIC_URL's
 * origin, or, when a client sends no Origin, it must carry `X-Requested-With`, a header a
 * cross-site HTML form cannot send and a cross-origin script can only send after a CORS preflight.
 */
function assertSameOrigin(request: FastifyRequest, cookies: CookiePolicy): void {
    if (SAFE_METHODS.has(request.method)) return;
    const origin = request.headers.origin;
    const ok = origin === undefined ? request.headers['x-requested-with'] !== undefined : origin === cookies.origin;
    if (!ok) {
        throw new AppError(ErrorCode.PERMISSION_DENIED, 'A cookie-authenticated request that changes state must come from the server\'s own origin (Origin header, or X-Requested-With when no Origin is sent).', { statusCode: 403 });
    }
}

/** The console-session cookie of a request without an Authorization header, if any. */
function sessionCookieOf(request: FastifyRequest, cookies: CookiePolicy | null): string | undefined {
    if (cookies === null || request.headers.authorization) return undefined;
    return request.cookies?.[cookies.sessionName];
}

function credentialsMissing(): AppError {
    return new AppError(ErrorCode.INVALID_TOKEN, 'Authentication is required.', { statusCode: 401 });
}

/** The realm id of a `/realms/:realmId/…` mount: null without a mount, undefined when unknown. */
async function findMountRealm(db: Kysely<Database>, value: string | undefined): Promise<string | null | undefined> {
    if (value === undefined) return null;
    const realm = await findRealmByIdOrName(db, value);
    return realm ? realm.id : undefined;
}

/**
 * Authenticate the request and prepare its authorizer lazily (the same database round trips the
 * handlers made before: the mount realm, then the credential). The orderings are the spec's:
 * without credentials a protected route answers 401 before it says whether a realm exists; an
 * authenticated caller is charged to its own budget (spec Limits), then learns that the realm
 * does not exist (404).
 */
async function authenticateRequest(deps: AuthenticationStepDeps, request: FastifyRequest, auth: 'required' | 'optional', cookies: CookiePolicy | null): Promise<RequestContext> {
    const params = request.params as { realmId?: string } | undefined;
    const cookie = sessionCookieOf(request, cookies);
    if (!request.headers.authorization && cookie === undefined && auth === 'required') throw credentialsMissing();
    const found = await findMountRealm(deps.db, params?.realmId);
    const routeRealmId = found ?? null;
    let actor: Actor;
    try {
        // without an Authorization header, a live console session is the caller
        // (a revoked, expired or mismatched cookie is no session: the request is anonymous)
        const session = cookie === undefined ? null : await verifyConsoleSession(deps.db, cookie);
        if (session) assertSameOrigin(request, cookies!);
        actor = session ? consoleSessionActor(session) : await authenticateHeader(deps, request.headers.authorization, routeRealmId, dpopPresentationOf(request));
    } catch (error) {
        if (error instanceof AppError && error.statusCode === 401) {
            request.server.log.debug({ code: error.code }, 'authentication failed');
        }
        throw error;
    }
    if (!actor.identity && auth === 'required') throw credentialsMissing();
    if (actor.identity && deps.limits) await deps.limits.chargeRequest(request, { kind: actor.identity.type === 'user' ? 'user' : 'client', id: actor.identity.id });
    if (found === undefined) throw notFound('realm');
    let authorizer: Promise<RequestAuthorizer> | null = null;
    return {
        actor,
        routeRealmId,
        authorizer: () => (authorizer ??= createRequestAuthorizer(deps, actor)),
        request: { ip: request.ip, method: request.method, path: request.url.split('?')[0] ?? request.url },
    };
}

/** A route's own hooks of one kind, as a list (Fastify takes a function or an array). */
function hooksOf<H>(hooks: H | H[] | undefined): H[] {
    if (hooks === undefined) return [];
    return Array.isArray(hooks) ? hooks : [hooks];
}

/**
 * The authentication step, run for every route by its declared `config.auth`:
 * - `onRequest`: a `required` route without an Authorization header answers 401 at once, before
 *   its body is read (a malformed or invalid body cannot turn that 401 into a 400);
 * - `preValidation`: the credential is verified and `request.context` set, before schema
 *   validation, so an unauthenticated caller never learns the body schema. It runs after the
 *   login gate of spec Authentication rule 16 (registered before it), which must hold its slot
 *   while the password is hashed, and after the input guard (a NUL in the path never reaches
 *   the realm lookup).
 * - `onSend`: an answer of a `required` or `optional` route carries `Cache-Control: no-store`
 *   unless its route set a policy of its own (the catalog's `private, no-cache`): such an answer
 *   may hold a secret or personal data (`fields=+secret`, a rotated secret, an email) that no
 *   cache may keep (RFC 9111 §5.2.2.5; OWASP REST Security).
 * A route without a declaration fails the boot: every route says how it authenticates.
 */
export function registerAuthenticationStep(app: FastifyInstance, deps: AuthenticationStepDeps): void {
    const cookies = deps.config ? cookiePolicy(deps.config.publicUrl) : null;
    app.decorateRequest('context', null as unknown as RequestContext);
    // the steps run as hooks of the routes that authenticate, not of every request: a protocol
    // route (`none`: the token endpoint authenticates its client itself) pays for none of them
    // (a bearer check costs nothing on the token endpoint's hot path). Route hooks run after the
    // global ones of the same kind, where these were
    // registered anyway: after the limits' gate and the input guard.
    const requireCredential = async (request: FastifyRequest) => {
        if (!request.headers.authorization && sessionCookieOf(request, cookies) === undefined) throw credentialsMissing();
    };
    const authenticate = (auth: 'required' | 'optional') => async (request: FastifyRequest) => {
        request.context = await authenticateRequest(deps, request, auth, cookies);
    };
    const noStore = async (_request: FastifyRequest, reply: FastifyReply) => {
        if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
    };
    app.addHook('onRoute', (route: RouteOptions) => {
        // routes a plugin registers hidden from the document (the explorer's assets, the CORS
        // preflight) are public by nature
        if (route.config?.auth === undefined && (route.schema as { hide?: boolean } | undefined)?.hide === true) {
            route.config = { ...route.config, auth: 'none' };
        }
        const auth = (route.config as { auth?: RouteAuth } | undefined)?.auth;
        if (auth === undefined) {
            throw new Error(`Route ${String(route.method)} ${route.url} does not declare config.auth (required, optional or none).`);
        }
        if (auth !== 'required' && auth !== 'optional') return;
        if (auth === 'required') route.onRequest = [...hooksOf(route.onRequest), requireCredential];
        route.preValidation = [...hooksOf(route.preValidation), authenticate(auth)];
        route.onSend = [...hooksOf(route.onSend), noStore];
    });
}
