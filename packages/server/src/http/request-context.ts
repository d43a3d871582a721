import { ErrorCode } from '@realmgate/core';
import type { FastifyRequest } from 'fastify';
import type { Actor } from '../authn/actor.js';
import { authenticateHeader, type HeaderAuthenticationDeps } from '../authn/authenticate-header.js';
import { createRequestAuthorizer, type RequestAuthorizer } from '../authz/authorizer.js';
import type { CatalogCache } from '../authz/catalog-cache.js';
import type { RequestContext } from '../authz/request-context.js';
import { AppError, notFound } from '../errors/app-error.js';
import { findRealmByIdOrName } from '../storage/realms.js';
import type { RequestLimits } from '../limits/request-limits.js';

export interface ContextDeps extends HeaderAuthenticationDeps {
    catalog: CatalogCache;
    /** spec Limits: the authenticated caller's request budget is charged here */
    limits?: RequestLimits;
}

/** The realm id of a `/realms/:realmId/…` mount, by id or name; undefined when the mount names no known realm. */
async function findRouteRealm(db: ContextDeps['db'], value: string | undefined): Promise<string | null | undefined> {
    if (value === undefined) return null;
    const realm = await findRealmByIdOrName(db, value);
    return realm ? realm.id : undefined;
}

function credentialsMissing(): AppError {
    return new AppError(ErrorCode.INVALID_TOKEN, 'Authentication is required.', { statusCode: 401 });
}

/**
 * Authenticate the request and prepare its authorizer lazily. Protected routes (the default)
 * answer 401 without credentials; the identity-optional ones pass `optional`.
 */
export async function contextOf(deps: ContextDeps, request: FastifyRequest, options: { optional?: boolean } = {}): Promise<RequestContext> {
    const params = request.params as { realmId?: string } | undefined;
    // without credentials a protected route answers 401 before it says whether a realm exists
    if (!request.headers.authorization && !options.optional) throw credentialsMissing();
    const found = await findRouteRealm(deps.db, params?.realmId);
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
    if (!actor.identity && !options.optional) throw credentialsMissing();
    if (actor.identity && deps.limits) await deps.limits.chargeRequest(request, { kind: actor.identity.type === 'user' ? 'user' : 'client', id: actor.identity.id });
    // only an authenticated caller learns that a realm does not exist
    if (found === undefined) throw notFound('realm');
    let authorizer: Promise<RequestAuthorizer> | null = null;
    return {
        actor,
        routeRealmId,
        authorizer: () => (authorizer ??= createRequestAuthorizer(deps, actor)),
        request: { ip: request.ip, method: request.method, path: request.url.split('?')[0] ?? request.url },
    };
}
