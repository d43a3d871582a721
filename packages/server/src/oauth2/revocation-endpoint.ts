import { ErrorCode } from '@realmgate/core';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { authenticateBasic } from '../http/authenticate.js';
import { HttpError } from '../http/errors.js';
import { authenticateClient, decodeBasic, type ClientAuthDeps } from './client-auth/authenticate.js';
import { invalidClient, invalidRequest } from './errors.js';
import { readParams, resolveRealm } from './token-endpoint.js';
import { TOKEN_KIND, type TokenClaims } from './tokens/claims.js';
import type { TokenService } from './tokens/service.js';
import type { SessionStore } from './tokens/sessions.js';

export interface RevocationRequest {
    body: unknown;
    query: unknown;
    authorization: string | undefined;
}

export interface RevocationDeps extends ClientAuthDeps {
    tokens: TokenService;
    sessions: SessionStore;
}

/** Who asks for the revocation: an identified client, or a user proving itself with Basic. */
type Caller = { kind: 'client'; id: string } | { kind: 'user'; id: string };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The realm the caller authenticates in — never derived from the presented token, so a token of
 * another realm cannot change the answer (RFC 7009 §2.2 discloses nothing about a token):
 * `realm_id`/`realm_name` when given; else the realm of the client or user whose id the caller
 * presents; else master (API.md §4's default).
 */
async function callerRealm(db: Kysely<Database>, params: Record<string, string>, credentialId: string | undefined) {
    if (params.realm_id !== undefined || params.realm_name !== undefined) return resolveRealm(db, params, undefined);
    if (credentialId !== undefined && UUID.test(credentialId)) {
        const id = credentialId.toLowerCase();
        const owner = await db.selectFrom('auth_clients').select('realm_id').where('id', '=', id).executeTakeFirst() ??
            await db.selectFrom('auth_users').select('realm_id').where('id', '=', id).executeTakeFirst();
        if (owner) return resolveRealm(db, {}, owner.realm_id);
    }
    return resolveRealm(db, {}, undefined);
}

/**
 * RFC 7009 §2.1: the client authenticates as at the token endpoint (Basic or body, never both; a
 * public client names itself with `client_id`). A token issued without a client has no client to
 * authenticate, so its subject may revoke it by authenticating with Basic as that user; Basic is
 * tried as a client of the realm first, then as a user. Every failure is invalid_client (§2.2.1).
 */
async function authenticateCaller(deps: RevocationDeps, params: Record<string, string>, authorization: string | undefined): Promise<Caller> {
    const basic = authorization !== undefined && /^basic\s/i.test(authorization);
    const body = {
        ...(params.client_id !== undefined ? { client_id: params.client_id } : {}),
        ...(params.client_secret !== undefined ? { client_secret: params.client_secret } : {}),
    };
    if (!basic && body.client_id === undefined && body.client_secret === undefined && authorization === undefined) {
        throw invalidClient('Client authentication is required (RFC 7009 §2.1).');
    }
    const realm = await callerRealm(deps.db, params, basic ? decodeBasic(authorization).id : body.client_id);
    try {
        const client = await authenticateClient(deps, realm.id, authorization, body);
        if (client) return { kind: 'client', id: client.row.id };
    } catch (error) {
        if (!basic || !(error instanceof HttpError) || error.code !== ErrorCode.INVALID_CLIENT) throw error;
    }
    if (!basic) throw invalidClient('Client authentication is required (RFC 7009 §2.1).');
    try {
        const actor = await authenticateBasic(deps, authorization, realm.id);
        if (actor.identity?.type === 'user') return { kind: 'user', id: actor.identity.id };
    } catch {
        // a wrong user password is a failed client authentication here (RFC 7009 §2.2.1)
    }
    throw invalidClient();
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
        const claims = await deps.tokens.verifyForRevocation(deps.db, params.token);
        if (!claims || !mayRevoke(caller, claims)) return;
        if (claims.kind === TOKEN_KIND.REFRESH) {
            await deps.db.deleteFrom('auth_session_tokens').where('id', '=', claims.jti)
                .where('kind', '=', TOKEN_KIND.REFRESH).where('session_id', '=', claims.session_id).execute();
        }
        await deps.sessions.revoke(deps.db, claims.session_id);
    };
}

export type RevocationEndpoint = ReturnType<typeof createRevocationEndpoint>;
