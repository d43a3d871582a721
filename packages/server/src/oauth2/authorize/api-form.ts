import { ErrorCode } from '@realmgate/core';
import type { Actor } from '../../authn/actor.js';
import { AppError } from '../../errors/app-error.js';
import { findSessionLife } from '../../storage/sessions.js';
import { ACR } from '../../tokens/claims.js';
import { mintCode } from './code.js';
import { accessAllows, type FlowDeps } from './flow.js';
import { targetOf, type AuthorizationRequest } from './request.js';
import { authorizationSuccess, responseUrl } from './response.js';
import { createBrowserSession } from './sessions.js';

/** The answer of the API form: the redirect URL with the code, and its parts. */
export interface ApiAuthorization {
    url: string;
    code: string;
    state?: string;
    iss: string;
}

export interface ApiFormDeps extends FlowDeps {
    /** seconds a session created for a Basic caller lives (TOKEN_REFRESH_MAX_AGE) */
    sessionMaxAge: number;
}

const loginRequired = (message: string) => new AppError(ErrorCode.LOGIN_REQUIRED, message, { statusCode: 400 });

/**
 * `POST /authorize` with credentials (spec Authentication 7): the user acts directly, so no consent
 * page. Only a user authenticated without a client may authorize an application — a bearer issued
 * to a client (or a client itself) answers 400 login_required; Basic is unaffected (a session is
 * created for it, the code needs one). The user must belong to the client's realm, and the
 * client's access policy must admit it (spec client field accessPolicyId).
 */
export async function authorizeForActor(
    deps: ApiFormDeps,
    actor: Actor,
    request: AuthorizationRequest,
    origin: { ipAddress: string | null; userAgent: string | null },
): Promise<ApiAuthorization> {
    const identity = actor.identity;
    if (!identity || identity.type !== 'user' || actor.tokenClientId !== null) {
        throw loginRequired('Only a user authenticated without a client may authorize an application.');
    }
    if (identity.realmId !== request.client.realm.id) throw loginRequired("The user does not belong to the client's realm.");
    if (!await accessAllows(deps.db, request, { id: identity.id, realmName: request.client.realm.name })) {
        throw new AppError(ErrorCode.ACCESS_DENIED, "The client's access policy does not admit this user.");
    }
    let subject: { sessionId: string; authTime: Date; acr: string | null };
    if (actor.sessionId !== undefined) {
        const life = await findSessionLife(deps.db, actor.sessionId);
        if (!life) throw loginRequired('The session has ended.');
        // a bearer's session states no strength of its own: the weakest is stated (code.ts)
        subject = { sessionId: actor.sessionId, authTime: life.createdAt, acr: null };
    } else {
        const created = await createBrowserSession(deps.db, deps.dialect, {
            // Basic credentials: a password, never a second factor (spec Authentication 6 refuses them when one is due)
            userId: identity.id, realmId: request.client.realm.id, ...origin, maxAge: deps.sessionMaxAge, cookie: false, acr: ACR.PASSWORD,
        });
        subject = { sessionId: created.id, authTime: created.authTime, acr: ACR.PASSWORD };
    }
    const code = await mintCode(deps.db, deps.dialect, request, { userId: identity.id, ...subject });
    const response = authorizationSuccess(targetOf(request), code);
    return { url: responseUrl(response), code, ...(request.state !== undefined ? { state: request.state } : {}), iss: request.issuer };
}
