import { ErrorCode, PermissionName, TOKEN_EXCHANGE_GRANT_TYPE } from '@realmgate/core';
import { clientHoldsPermission } from '../../authz/client-permission.js';
import type { ActClaim, TokenClaims } from '../../tokens/claims.js';
import { invalidGrant, invalidRequest, oauthError } from '../errors.js';
import { required } from '../pipeline.js';
import { narrowedAudience, narrowedResourceOf } from '../resource-indicators.js';
import { defaultAudienceOf } from '../../tokens/issuer.js';
import { assertClientAdmits } from './access-policy.js';
import { realmAudienceOf, tokenResponse, type Grant, type GrantDeps, type GrantRequest } from './contract.js';
import { narrowedScope } from './scope.js';

/** RFC 8693 §3: the one token type exchanged here, in and out. */
const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';

/** Delegation chains deeper than this are refused: each link grows every token of the chain (RFC 8693 §4.1). */
const MAX_ACTORS = 8;

function depthOf(act: ActClaim | undefined): number {
    let depth = 0;
    for (let link = act; link; link = link.act) depth++;
    return depth;
}

/**
 * An access token of the request's realm that is active now (RFC 8693 §2.1: the subject or actor
 * token "represents the identity"): signature, kind, expiry, session, subject and client as every
 * bearer; a token of another realm is refused, whatever realm it names.
 */
async function activeToken(deps: GrantDeps, request: GrantRequest, token: string, type: string | undefined, role: 'subject' | 'actor'): Promise<TokenClaims> {
    if (type === undefined) throw invalidRequest(`The ${role}_token_type is required with the ${role}_token (RFC 8693 §2.1).`);
    if (type !== ACCESS_TOKEN_TYPE) throw invalidRequest(`The ${role}_token_type must be ${ACCESS_TOKEN_TYPE}.`);
    const verified = await deps.tokens.verifyAccessToken(request.db, token);
    if (!verified.ok) throw invalidGrant(`The ${role} token is not active: ${verified.message}`);
    if (verified.claims.realm_id !== request.realm.id) throw invalidGrant(`The ${role} token belongs to another realm.`);
    return verified.claims;
}

/**
 * RFC 8693 §4.1: delegation names the actor — the actor token's subject — with the subject token's
 * own actor nested inside, so the chain of parties the token passed through stays visible;
 * impersonation (no actor token) keeps the subject token's actor, if it has one.
 */
function actOf(subject: TokenClaims, actor: TokenClaims | null): ActClaim | null {
    if (actor === null) return subject.act ?? null;
    const act: ActClaim = {
        sub: actor.sub, sub_kind: actor.sub_kind,
        ...(actor.client_id ? { client_id: actor.client_id } : {}),
        ...(subject.act ? { act: subject.act } : {}),
    };
    if (depthOf(act) > MAX_ACTORS) throw invalidRequest(`The delegation chain may hold at most ${MAX_ACTORS} actors.`);
    return act;
}

/**
 * RFC 8693 token exchange within one realm: a confidential client holding the permission
 * `token_exchange` trades an active access token of its realm (the subject token) for a new one
 * issued to itself — impersonation, or delegation with `act` when it presents an actor token. The
 * new token never out-scopes (`scope` ⊆ the subject token's, else invalid_scope) nor outlives the
 * subject token, keeps or narrows its audience (`resource` / `audience`, RFC 8707), and lives in
 * a session under the subject token's: revoking that session ends it too. No refresh token, no ID
 * token: the exchange is no authentication of the user to the client.
 */
export const tokenExchangeGrant: Grant = {
    type: TOKEN_EXCHANGE_GRANT_TYPE,
    // §2.1
    parameters: [
        { name: 'subject_token', required: true }, { name: 'subject_token_type', required: true },
        { name: 'actor_token', required: false }, { name: 'actor_token_type', required: false },
        { name: 'requested_token_type', required: false }, { name: 'scope', required: false },
        { name: 'resource', required: false }, { name: 'audience', required: false },
    ],
    // the permission is the authenticated client's: a public client proves nothing
    clientAuthentication: 'required',
    create: (deps) => ({
        async handle(request) {
            const client = required(request.client, 'the authenticated client');
            const { params, realm } = request;
            const allowed = await clientHoldsPermission({ db: request.db, catalog: deps.catalog }, { id: client.row.id, realmId: realm.id, realmName: realm.name }, PermissionName.TOKEN_EXCHANGE, realm.id);
            if (!allowed) throw oauthError(ErrorCode.UNAUTHORIZED_CLIENT, 'The client may not exchange tokens (permission token_exchange).');
            if (params.requested_token_type !== undefined && params.requested_token_type !== ACCESS_TOKEN_TYPE) {
                throw invalidRequest(`Only ${ACCESS_TOKEN_TYPE} can be issued.`);
            }
            if (params.actor_token === undefined && params.actor_token_type !== undefined) {
                throw invalidRequest('actor_token_type must not be sent without an actor_token (RFC 8693 §2.1).');
            }
            const subjectClaims = await activeToken(deps, request, required(params.subject_token, 'subject_token'), params.subject_token_type, 'subject');
            const actorClaims = params.actor_token === undefined ? null : await activeToken(deps, request, params.actor_token, params.actor_token_type, 'actor');
            const scope = narrowedScope(subjectClaims.scope, params.scope, 'The requested scope exceeds the subject token\'s.');
            // RFC 8693 §2.1: resource and audience both name the target; one resource server here
            if (params.resource !== undefined && params.audience !== undefined && params.resource !== params.audience) {
                throw oauthError(ErrorCode.INVALID_TARGET, 'resource and audience name different targets.');
            }
            const audience = await narrowedAudience(request.db, realm.id, params.resource ?? params.audience, narrowedResourceOf(subjectClaims.aud, defaultAudienceOf(deps.tokens.settings.publicUrl, realm)));
            const subject = { id: subjectClaims.sub, kind: subjectClaims.sub_kind, realmId: realm.id, realmName: realm.name };
            await assertClientAdmits(request, subject);
            const act = actOf(subjectClaims, actorClaims);
            const notAfter = Math.min(Math.floor(Date.now() / 1000) + deps.tokens.settings.accessMaxAge, subjectClaims.exp);
            const sessionId = await deps.sessions.create(request.db, {
                subject, clientId: client.row.id, ipAddress: request.ipAddress, userAgent: request.userAgent,
                expiresAt: new Date(notAfter * 1000), parentId: subjectClaims.session_id,
            });
            const grant = { subject, clientId: client.row.id, scope, sessionId };
            const issued = await deps.tokens.issue(request.db, { ...grant, refresh: false, audience, act, notAfter, ...realmAudienceOf(request) });
            const response = await tokenResponse(deps, request, { ...grant, authTime: new Date(), idToken: false }, issued);
            // §2.2.1
            return { ...response, issued_token_type: ACCESS_TOKEN_TYPE };
        },
    }),
};
