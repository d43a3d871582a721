import type { ClientAuthDeps } from './client-auth/authenticate.js';
import { authenticateCaller, type Caller } from './client-auth/caller.js';
import { protocolEndpoint, required, step } from './pipeline.js';
import { parseParameters, tokenNotInQuery, tokenParameterRequired, type ProtocolRequestState } from './steps.js';
import { TOKEN_KIND, type TokenClaims } from '../tokens/claims.js';
import type { TokenService } from '../tokens/service.js';
import type { SessionStore } from '../tokens/sessions.js';
import { deleteRefreshTokenOfSession } from '../storage/session-tokens.js';

export interface RevocationRequest {
    body: unknown;
    query: unknown;
    authorization: string | undefined;
}

export interface RevocationDeps extends ClientAuthDeps {
    tokens: TokenService;
    sessions: SessionStore;
}

/** Only the token's own client may revoke it; a token issued without a client, only its user subject. */
function mayRevoke(caller: Caller, claims: TokenClaims): boolean {
    if (caller.kind === 'client') return claims.client_id === caller.id;
    return claims.client_id === undefined && claims.sub_kind === 'user' && claims.sub === caller.id;
}

/** A revocation request as its steps complete it. */
interface RevocationState extends ProtocolRequestState {
    readonly request: RevocationRequest;
    caller: Caller | null;
}

/**
 * `POST /token/revoke` without its transport (RFC 7009): token not in the query string → parse
 * parameters → token parameter required → authenticate caller | (charged) | revoke. A refresh
 * token loses its auth_session_tokens row and, like an access token, ends its session (spec
 * States: the session's tokens answer 401 on the next request). An unknown, invalid, expired or
 * foreign token — or one issued to another client — answers the same empty 200 and changes
 * nothing (§2.2).
 */
export function createRevocationEndpoint(deps: RevocationDeps) {
    // §2.1: token_type_hint is only a hint; both kinds are looked up whatever it says
    const authenticate = step<RevocationState>('authenticate caller', async (state) => {
        state.caller = await authenticateCaller(deps, state.params, state.request.authorization);
    });
    const revoke = step<RevocationState>('revoke', async (state) => {
        const caller = required(state.caller, 'caller');
        const claims = await deps.tokens.verifyForRevocation(deps.db, state.params.token!);
        if (!claims || !mayRevoke(caller, claims)) return;
        if (claims.kind === TOKEN_KIND.REFRESH) await deleteRefreshTokenOfSession(deps.db, claims.jti, claims.session_id);
        await deps.sessions.revoke(deps.db, claims.session_id);
    });
    return protocolEndpoint<RevocationRequest, RevocationState, void>({
        start: (request) => ({ request, query: request.query, body: request.body, params: {}, caller: null }),
        authenticate: [tokenNotInQuery, parseParameters, tokenParameterRequired, authenticate],
        // spec Limits: a caller that proved its credentials is charged, else the address
        charge: (state) => (state.caller?.authenticated ? { kind: state.caller.kind, id: state.caller.id } : 'address'),
        handle: [revoke],
        answer: () => undefined,
    });
}

export type RevocationEndpoint = ReturnType<typeof createRevocationEndpoint>;
