import { ErrorCode } from '@realmgate/core';
import { ANONYMOUS, type Actor } from './actor.js';
import { authenticateBasic, type AuthenticationDeps } from './basic.js';
import { isBasicScheme } from './basic-credentials.js';
import { authenticateBearer, type BearerDeps } from './bearer.js';
import { bearerTokenOf } from './bearer-header.js';
import { AppError } from '../errors/app-error.js';

export interface HeaderAuthenticationDeps extends AuthenticationDeps, BearerDeps {}

/**
 * The caller an `Authorization` header names (spec Authentication rule 1): none is anonymous,
 * Basic a user or client by name or id (looked up in `routeRealmId`, then master), Bearer an
 * access token of this server. Any other scheme is refused with 401, never ignored.
 */
export async function authenticateHeader(deps: HeaderAuthenticationDeps, header: string | undefined, routeRealmId: string | null): Promise<Actor> {
    if (!header) return ANONYMOUS;
    if (isBasicScheme(header)) return authenticateBasic(deps, header, routeRealmId);
    const token = bearerTokenOf(header);
    if (token !== null) return authenticateBearer(deps, token);
    throw new AppError(ErrorCode.INVALID_TOKEN, 'The authorization scheme is not supported.', { statusCode: 401 });
}
