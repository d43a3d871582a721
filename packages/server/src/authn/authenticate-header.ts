import { ErrorCode } from '@realmgate/core';
import { ANONYMOUS, type Actor } from './actor.js';
import { authenticateBasic, type AuthenticationDeps } from './basic.js';
import { isBasicScheme } from './basic-credentials.js';
import { authenticateBearer, type BearerDeps } from './bearer.js';
import { accessTokenOf } from './bearer-header.js';
import type { DpopPresentation } from './dpop-proof.js';
import { presentationOf } from './sender-constraint.js';
import { AppError } from '../errors/app-error.js';

export interface HeaderAuthenticationDeps extends AuthenticationDeps, BearerDeps {}

/**
 * The caller an `Authorization` header names (spec Authentication rule 1): none is anonymous,
 * Basic a user or client by name or id (looked up in `routeRealmId`, then master), Bearer an
 * access token of this server, DPoP one bound to a key the request proves (RFC 9449 §7, with
 * `request`: its DPoP header, method and path). Any other scheme is refused with 401, never ignored.
 */
export async function authenticateHeader(deps: HeaderAuthenticationDeps, header: string | undefined, routeRealmId: string | null, request: DpopPresentation): Promise<Actor> {
    if (!header) return ANONYMOUS;
    if (isBasicScheme(header)) return authenticateBasic(deps, header, routeRealmId);
    const presented = accessTokenOf(header);
    if (presented !== null) return authenticateBearer(deps, presented.token, presentationOf(presented, request));
    throw new AppError(ErrorCode.INVALID_TOKEN, 'The authorization scheme is not supported.', { statusCode: 401 });
}
