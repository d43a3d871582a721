import { PermissionName } from '@realmgate/core';
import type { Actor } from '../authn/actor.js';
import { createRequestAuthorizer } from '../authz/authorizer.js';
import { authenticateBearer } from '../authn/bearer.js';
import { accessTokenOf } from '../authn/bearer-header.js';
import type { DpopPresentation, DpopVerifier } from '../authn/dpop-proof.js';
import { presentationOf } from '../authn/sender-constraint.js';
import { findRealmById } from '../storage/realms.js';
import type { ClientAuthDeps } from './client-auth/authenticate.js';
import { invalidClient } from './errors.js';
import { INACTIVE, introspectionOf, type IntrospectionDeps, type IntrospectionResponse } from './introspection.js';
import { authenticateCaller, type Caller } from './client-auth/caller.js';
import { protocolEndpoint, required, step, type Charge } from './pipeline.js';
import { parseParameters, tokenNotInQuery, tokenParameterRequired, type ProtocolRequestState } from './steps.js';
import type { TokenClaims } from '../tokens/claims.js';
import type { TokenService } from '../tokens/service.js';

export interface IntrospectionRequest {
    body: unknown;
    query: unknown;
    authorization: string | undefined;
    /** the request's DPoP header, method and path: a caller's own DPoP-bound token is proven over them */
    dpop: DpopPresentation;
}

/** An introspection request as its steps complete it. */
interface IntrospectionState extends ProtocolRequestState {
    readonly request: IntrospectionRequest;
    actor: Actor | null;
    /** whom the request is charged to (spec Limits) */
    charge: Charge;
    response: IntrospectionResponse | null;
}

export interface IntrospectionEndpointDeps extends ClientAuthDeps, IntrospectionDeps {
    tokens: TokenService;
    dpop: DpopVerifier;
}

/**
 * `POST /token/introspect` (RFC 7662) and `GET /sessions/@me/introspect` without their transport.
 * The answer is the spec's "Introspection response"; see oauth2/introspection.ts for its members.
 */
export function createIntrospectionEndpoint(deps: IntrospectionEndpointDeps) {
    const realmName = async (claims: TokenClaims): Promise<string> => {
        // the realm's current name; the claim is what it was called when the token was issued
        const read = () => findRealmById(deps.db, claims.realm_id);
        // a rename empties the remembered realms on every replica before it answers (wire.ts)
        const realm = deps.lookups ? await deps.lookups.realms.through(`id:${claims.realm_id.toLowerCase()}`, read) : await read();
        return realm?.name ?? claims.realm_name;
    };

    /**
     * Who may learn about a token (RFC 7662 §4: the server decides which callers may introspect
     * which tokens, so a token's grants and claims do not leak to any bearer of the realm):
     * - the token's own subject, or the client it was issued to;
     * - a client of the token's realm — a resource server of that realm;
     * - an identity whose `session_read` grant reaches the token's realm (an administrator), or whose
     *   `permission_read` grant does — the resource-server credential of spec consumer rules 12 and
     *   14, which serves the realms its reach covers.
     * Grants are asked of the same engine as every request. Any other caller — a plain user of the
     * same realm included — gets `{ active: false }`, indistinguishable from an unknown token
     * (RFC 7662 §2.2: nothing about a token it may not know of).
     */
    const mayKnow = async (caller: Actor, claims: TokenClaims): Promise<boolean> => {
        const identity = caller.identity;
        if (identity === null) return false;
        if (identity.id === claims.sub && identity.type === claims.sub_kind) return true;
        if (identity.type === 'client' && (identity.id === claims.client_id || identity.realmId === claims.realm_id)) return true;
        const authorizer = await createRequestAuthorizer(deps, caller);
        const reach = { realmMatch: claims.realm_id };
        return authorizer.allows(PermissionName.SESSION_READ, reach) || authorizer.allows(PermissionName.PERMISSION_READ, reach);
    };

    /** The actor of a Basic or body-authenticated caller: never narrowed (spec Authentication rule 8). */
    const actorOf = (caller: Caller): Actor => ({
        identity: {
            id: caller.id, type: caller.kind, realmId: caller.realmId, realmName: null,
            clientId: caller.kind === 'client' ? caller.id : null,
        },
        tokenClientId: null,
        method: 'basic',
    });

    /** The response for a token string; `allowed` decides whether its subject may be named at all. */
    const describe = async (token: string, allowed: (claims: TokenClaims) => Promise<boolean>): Promise<IntrospectionResponse> => {
        const inspected = await deps.tokens.inspect(deps.db, token);
        // spec: a token that does not verify, an id_token or a multi-factor ticket → bare active false
        if (!inspected || !(await allowed(inspected.claims))) return INACTIVE;
        const { claims, failure, profile } = inspected;
        const subject = { id: claims.sub, kind: claims.sub_kind, realmId: claims.realm_id, realmName: await realmName(claims) };
        // spec grant rule 2: narrowed by the introspected token's own client, as its requests are
        // RFC 7662 §2.2 with the RFC 9068 §2.2 claims, the token's kind (a resource server refuses a
        // refresh token as a bearer), the actor (RFC 8693 §4.1) and the DPoP key (RFC 9449 §6.2); absent, never null
        const narrowing = {
            iss: claims.iss, kind: claims.kind, ...(claims.aud ? { aud: claims.aud } : {}), ...(claims.client_id ? { client_id: claims.client_id } : {}),
            scope: claims.scope, jti: claims.jti, iat: claims.iat, exp: claims.exp, ...(claims.act ? { act: claims.act } : {}),
        };
        return introspectionOf(deps, subject, { active: failure === null, narrowToClientId: claims.client_id ?? null, profile, narrowing, confirmation: claims.cnf });
    };

    /**
     * RFC 7662 §2.1: the caller authenticates as a client (as at /token/revoke) or with an access
     * token of its own — a resource server's client_credentials bearer, the same credential it
     * fetches the catalog with (spec consumer rule 12). A public client, which proves nothing, may
     * not introspect.
     */
    const authenticate = step<IntrospectionState>('authenticate caller', async (state) => {
        const presented = accessTokenOf(state.request.authorization);
        if (presented !== null) {
            state.actor = await authenticateBearer(deps, presented.token, presentationOf(presented, state.request.dpop));
            return;
        }
        const caller = await authenticateCaller(deps, state.params, state.request.authorization);
        if (!caller.authenticated) throw invalidClient('Introspection requires an authenticated caller (RFC 7662 §2.1).');
        state.charge = { kind: caller.kind, id: caller.id };
        state.actor = actorOf(caller);
    });
    // §2.1: token_type_hint is only a hint; access and refresh tokens are both recognized
    const introspectToken = step<IntrospectionState>('introspect token', async (state) => {
        const actor = required(state.actor, 'actor');
        state.response = await describe(state.params.token!, (claims) => mayKnow(actor, claims));
    });

    return {
        /**
         * `POST /token/introspect`: token not in the query string → parse parameters → authenticate
         * caller | (charged) | token parameter required → introspect token.
         */
        introspect: protocolEndpoint<IntrospectionRequest, IntrospectionState, IntrospectionResponse>({
            start: (request) => ({ request, query: request.query, body: request.body, params: {}, actor: null, charge: 'on-finish', response: null }),
            authenticate: [tokenNotInQuery, parseParameters, authenticate],
            // a bearer caller is charged like any request it made without being charged: by its address, when it ends
            charge: (state) => state.charge,
            handle: [tokenParameterRequired, introspectToken],
            answer: (state) => required(state.response, 'response'),
        }),

        /**
         * `GET /sessions/@me/introspect`: a bearer caller gets its own token's response (narrowed by
         * that token's client); a Basic caller, which has no token, gets its own identity as active
         * with its full grant list — Basic is never narrowed (spec Authentication rule 8).
         */
        async introspectSelf(actor: Actor, bearerToken: string | null): Promise<IntrospectionResponse> {
            if (bearerToken !== null) return describe(bearerToken, () => Promise.resolve(true));
            const identity = actor.identity;
            if (!identity?.realmId) return INACTIVE;
            return introspectionOf(deps, {
                id: identity.id, kind: identity.type, realmId: identity.realmId, realmName: identity.realmName ?? '',
            }, { active: true, narrowToClientId: null });
        },
    };
}

export type IntrospectionEndpoint = ReturnType<typeof createIntrospectionEndpoint>;
