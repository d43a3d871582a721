import { ErrorCode } from '@realmgate/core';
import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import type { Kysely } from 'kysely';
import type { Actor } from '../authn/actor.js';
import { authenticateHeader, type HeaderAuthenticationDeps } from '../authn/authenticate-header.js';
import { createRequestAuthorizer, type RequestAuthorizer } from '../authz/authorizer.js';
import type { CatalogCache } from '../authz/catalog-cache.js';
import type { RequestContext } from '../authz/request-context.js';
import type { Database } from '../db/schema.js';
import { AppError, notFound } from '../errors/app-error.js';
import type { RequestLimits } from '../limits/request-limits.js';
import { findRealmByIdOrName } from '../storage/realms.js';

/**
 * How a route authenticates its caller, declared in its options as `config: { auth }`:
 * - `required`: Basic or Bearer; without credentials 401, before the body is read or validated;
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
async function authenticateRequest(deps: AuthenticationStepDeps, request: FastifyRequest, auth: 'required' | 'optional'): Promise<RequestContext> {
    const params = request.params as { realmId?: string } | undefined;
    if (!request.headers.authorization && auth === 'required') throw credentialsMissing();
    const found = await findMountRealm(deps.db, params?.realmId);
    const routeRealmId = found ?? null;
    let actor: Actor;
    try {
        actor = await authenticateHeader(deps, request.headers.authorization, routeRealmId);
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

const authOf = (request: FastifyRequest): RouteAuth | undefined => request.routeOptions.config.auth;

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
 *   cache may keep (RFC 9111 §5.2.2.5; OWASP REST Security, issue 12 item 13).
 * A route without a declaration fails the boot: every route says how it authenticates.
 */
export function registerAuthenticationStep(app: FastifyInstance, deps: AuthenticationStepDeps): void {
    app.decorateRequest('context', null as unknown as RequestContext);
    app.addHook('onRoute', (route: RouteOptions) => {
        // routes a plugin registers hidden from the document (the explorer's assets, the CORS
        // preflight) are public by nature
        if (route.config?.auth === undefined && (route.schema as { hide?: boolean } | undefined)?.hide === true) {
            route.config = { ...route.config, auth: 'none' };
        }
        if (route.config?.auth === undefined) {
            throw new Error(`Route ${String(route.method)} ${route.url} does not declare config.auth (required, optional or none).`);
        }
    });
    app.addHook('onRequest', async (request) => {
        if (authOf(request) === 'required' && !request.headers.authorization) throw credentialsMissing();
    });
    app.addHook('preValidation', async (request) => {
        const auth = authOf(request);
        if (auth === 'required' || auth === 'optional') request.context = await authenticateRequest(deps, request, auth);
    });
    app.addHook('onSend', async (request, reply) => {
        const auth = authOf(request);
        if ((auth === 'required' || auth === 'optional') && !reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
    });
}
