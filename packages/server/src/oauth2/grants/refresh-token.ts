import { ErrorCode } from '@realmgate/core';
import { invalidGrant, invalidRequest, oauthError } from '../errors.js';
import { unverifiedRealmOf } from '../../tokens/jws.js';
import { assertClientAdmits } from './access-policy.js';
import { realmAudienceOf, tokenResponse, type Grant } from './contract.js';
import { narrowedScope } from './scope.js';
import { narrowedAudience } from '../resource-indicators.js';

/**
 * RFC 9449 §5: a refresh token bound to a DPoP key (a public client's) is redeemed only with a
 * proof of that key — without one the grant is refused (invalid_grant), with another key's the
 * proof is (invalid_dpop_proof). Its successor stays bound to the same key; an unbound one stays unbound.
 */
function refreshBinding(bound: string | null, proven: string | null): string | null {
    if (bound === null) return null;
    if (proven === null) throw invalidGrant('The refresh token is bound to a DPoP key: the request needs a DPoP proof of that key.');
    if (proven !== bound) throw oauthError(ErrorCode.INVALID_DPOP_PROOF, 'The DPoP proof is signed by another key than the refresh token is bound to.');
    return bound;
}

/**
 * RFC 6749 §6 with rotation (RFC 9700 §4.14.2): every use removes the presented refresh token's
 * row and issues a new one in the same session, once every check has passed. A token whose row is already gone is a replay: the
 * session is revoked (spec Versioning "refresh-token replay reaction", States), ending every token
 * of it. A deactivated or foreign subject answers invalid_grant (spec Errors, Authentication rule 2).
 */
export const refreshTokenGrant: Grant = {
    type: 'refresh_token',
    // §6
    parameters: [{ name: 'refresh_token', required: true }, { name: 'scope', required: false }, { name: 'resource', required: false }],
    // §6: a public client refreshes too; a confidential one authenticates
    clientAuthentication: 'optional',
    create: (deps) => ({
        // a token this process signed or verified names its realm without being parsed again
        realmHint: (params) => (params.refresh_token === undefined ? undefined : deps.tokens.rememberedRealmOf(params.refresh_token) ?? unverifiedRealmOf(params.refresh_token)),
        async handle(request) {
            const token = request.params.refresh_token;
            if (!token) throw invalidRequest('The refresh_token grant needs refresh_token.');
            const verified = await deps.tokens.verifyRefreshToken(request.db, token);
            if (!verified.ok) throw invalidGrant(`The refresh token is not valid: ${verified.message}`);
            const claims = verified.claims;
            if (claims.realm_id !== request.realm.id) throw invalidGrant('The refresh token belongs to another realm.');
            // RFC 6749 §6: the token was issued to the client making the request (or to none)
            if ((claims.client_id ?? null) !== (request.client?.row.id ?? null)) throw invalidGrant('The refresh token was issued to another client.');
            // the session and the subject came with the token's verification, in one query
            const session = verified.state;
            if (!session || session.sub !== claims.sub || session.realmId !== claims.realm_id) throw invalidGrant('The session does not exist.');
            if (session.revoked || session.expiresAt.getTime() <= Date.now()) throw invalidGrant('The session has ended.');
            const refreshJkt = refreshBinding(claims.cnf?.jkt ?? null, request.dpopJkt);
            const scope = narrowedScope(claims.scope, request.params.scope, 'The requested scope exceeds the original grant.');
            // RFC 8707 §2.2: any resource the original grant allowed, narrowed again by this request
            const grantResource = claims.resource ?? null;
            const audience = await narrowedAudience(request.db, request.realm.id, request.params.resource, grantResource);
            if (session.subjectRealmId === null || session.subjectRealmId !== claims.realm_id) throw invalidGrant('The subject does not exist.');
            if (!session.subjectActive) throw invalidGrant('The subject is inactive.');
            const tokenSubject = { id: claims.sub, kind: claims.sub_kind, realmId: request.realm.id, realmName: request.realm.name };
            // the client's access policy is asked again at every issuance: set since the login, it ends the refreshes
            await assertClientAdmits(request, tokenSubject);
            const grant = {
                subject: tokenSubject,
                clientId: claims.client_id ?? null,
                scope,
                sessionId: claims.session_id,
            };
            const narrowing = { audience, grantResource, ...realmAudienceOf(request) };
            // spent last: a request refused above leaves the token usable, so its honest retry is
            // no replay (a refused refresh does not burn the token). The chain's row names the successor and the session is
            // extended to its expiry when due, in one commit (storage/session-tokens.ts rotateRefreshToken)
            const issued = await deps.tokens.rotate(request.db, { ...grant, ...narrowing, spentJti: claims.jti, accessJkt: request.dpopJkt, refreshJkt, session });
            if (!issued) {
                await deps.sessions.revoke(request.db, claims.session_id);
                throw invalidGrant('The refresh token was already used; the session has been revoked.');
            }
            // OpenID Connect Core §12.2: a refreshed ID token keeps the original authentication time
            return tokenResponse(deps, request, { ...grant, authTime: session.createdAt, ...(claims.sub_kind === 'user' ? { profile: session.profile } : {}) }, issued);
        },
    }),
};
