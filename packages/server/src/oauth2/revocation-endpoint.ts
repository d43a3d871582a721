import { ErrorCode } from '@realmgate/core';
import { authenticateBasic } from '../authn/basic.js';
import { isBasicScheme } from '../authn/basic-credentials.js';
import { AppError } from '../errors/app-error.js';
import { failedAuthentication, isFailedAuthentication } from '../limits/failed-authentication.js';
import { authenticateClient, type ClientAuthDeps } from './client-auth/authenticate.js';
import { invalidClient, invalidRequest } from './errors.js';
import { presentedClientId, readParams, realmOfRequest } from './token-endpoint.js';
import { TOKEN_KIND, type TokenClaims } from '../tokens/claims.js';
import type { TokenService } from '../tokens/service.js';
import type { SessionStore } from '../tokens/sessions.js';
import { deleteRefreshTokenOfSession } from '../storage/session-tokens.js';

export interface RevocationRequest {
    body: unknown;
    query: unknown;
    authorization: string | undefined;
    /** called after caller authentication: the caller that proved its credentials, or null (spec Limits) */
    authenticated?: (caller: Caller | null) => Promise<void>;
}

export interface RevocationDeps extends ClientAuthDeps {
    tokens: TokenService;
    sessions: SessionStore;
}

/**
 * Who asks for the revocation or introspection: an identified client (`authenticated` when it
 * proved its secret), or a user proving itself with Basic; `realmId` is the caller's own realm.
 */
export type Caller = { kind: 'client'; id: string; realmId: string; authenticated: boolean } |
    { kind: 'user'; id: string; realmId: string; authenticated: true };

/**
 * RFC 7009 §2.1: the client authenticates as at the token endpoint (Basic or body, never both; a
 * public client names itself with `client_id`). A token issued without a client has no client to
 * authenticate, so its subject may revoke it by authenticating with Basic as that user; Basic is
 * tried as a client of the realm first, then as a user. Every failure is invalid_client (§2.2.1).
 */
export async function authenticateCaller(deps: ClientAuthDeps, params: Record<string, string>, authorization: string | undefined): Promise<Caller> {
    const basic = isBasicScheme(authorization);
    const body = {
        ...(params.client_id !== undefined ? { client_id: params.client_id } : {}),
        ...(params.client_secret !== undefined ? { client_secret: params.client_secret } : {}),
    };
    if (!basic && body.client_id === undefined && body.client_secret === undefined && authorization === undefined) {
        throw invalidClient('Client authentication is required (RFC 7009 §2.1).');
    }
    const realm = await realmOfRequest(deps.db, params, { credentialId: presentedClientId(params, authorization), users: true });
    try {
        const client = await authenticateClient(deps, realm.id, authorization, body);
        if (client) return { kind: 'client', id: client.row.id, realmId: client.row.realmId, authenticated: client.authenticated };
    } catch (error) {
        if (!basic || !(error instanceof AppError) || error.code !== ErrorCode.INVALID_CLIENT) throw error;
    }
    if (!basic) throw invalidClient('Client authentication is required (RFC 7009 §2.1).');
    let failed = false;
    try {
        const actor = await authenticateBasic(deps, authorization, realm.id);
        if (actor.identity?.type === 'user' && actor.identity.realmId) {
            return { kind: 'user', id: actor.identity.id, realmId: actor.identity.realmId, authenticated: true };
        }
    } catch (error) {
        // a wrong user password is a failed client authentication here (RFC 7009 §2.2.1)
        failed = isFailedAuthentication(error);
    }
    throw failed ? failedAuthentication(invalidClient()) : invalidClient();
}

/** Only the token's own client may revoke it; a token issued without a client, only its user subject. */
function mayRevoke(caller: Caller, claims: TokenClaims): boolean {
    if (caller.kind === 'client') return claims.client_id === caller.id;
    return claims.client_id === undefined && claims.sub_kind === 'user' && claims.sub === caller.id;
}

/**
 * `POST /token/revoke` without its transport (RFC 7009). A refresh token loses its
 * auth_session_tokens row and, like an access token, ends its session (spec States: the session's
 * tokens answer 401 on the next request). An unknown, invalid, expired or foreign token — or one
 * issued to another client — answers the same empty 200 and changes nothing (§2.2).
 */
export function createRevocationEndpoint(deps: RevocationDeps) {
    return async (request: RevocationRequest): Promise<void> => {
        const query = request.query as Record<string, unknown> | undefined;
        // spec Errors: token parameters travel in the body only
        if (query && typeof query === 'object' && query.token !== undefined) {
            throw invalidRequest('The token must be sent in the request body, not in the query.');
        }
        const params = readParams(request.body);
        if (!params.token) throw invalidRequest('token is required.');
        // §2.1: token_type_hint is only a hint; both kinds are looked up whatever it says
        const caller = await authenticateCaller(deps, params, request.authorization);
        await request.authenticated?.(caller.authenticated ? caller : null);
        const claims = await deps.tokens.verifyForRevocation(deps.db, params.token);
        if (!claims || !mayRevoke(caller, claims)) return;
        if (claims.kind === TOKEN_KIND.REFRESH) {
            await deleteRefreshTokenOfSession(deps.db, claims.jti, claims.session_id);
        }
        await deps.sessions.revoke(deps.db, claims.session_id);
    };
}

export type RevocationEndpoint = ReturnType<typeof createRevocationEndpoint>;
