import { ErrorCode } from '@realmgate/core';
import type { Kysely } from 'kysely';
import type { Actor } from './actor.js';
import type { Database } from '../db/schema.js';
import { GLOBAL_SCOPE, hasScope } from '../tokens/claims.js';
import type { TokenService } from '../tokens/service.js';
import { AppError } from '../errors/app-error.js';
import { failedAuthentication } from '../limits/failed-authentication.js';
import type { DpopVerifier } from './dpop-proof.js';
import { AS_BEARER, checkSenderConstraint, type TokenPresentation } from './sender-constraint.js';

export interface BearerDeps {
    db: Kysely<Database>;
    tokens: TokenService;
    /** DPoP proofs of sender-constrained tokens (RFC 9449 §7) */
    dpop: DpopVerifier;
}

const CODES = {
    invalid_token: ErrorCode.INVALID_TOKEN,
    expired_token: ErrorCode.EXPIRED_TOKEN,
    inactive_token: ErrorCode.INACTIVE_TOKEN,
} as const;

/**
 * `Authorization: Bearer <access token>` (RFC 6750 §2.1; spec Authentication rules 1, 2): the token
 * is verified on every request, its session included. Through a client-issued token the caller's
 * grants are narrowed to that client (rule 8); without scope `global` authorization sees no identity
 * data (consumer rule 12), while the caller stays identified for `@me`. A DPoP-bound token needs the
 * DPoP scheme and a proof of its key (RFC 9449 §7; `presentation`).
 */
export async function authenticateBearer(deps: BearerDeps, token: string, presentation: TokenPresentation = AS_BEARER): Promise<Actor> {
    const verified = await deps.tokens.verifyAccessToken(deps.db, token);
    if (!verified.ok) {
        // RFC 6750 §3.1: every refusal of a presented token is error="invalid_token"
        const challenge = `Bearer realm="realmgate", error="invalid_token", error_description="${verified.message}"`;
        const error = new AppError(CODES[verified.code], verified.message, { statusCode: 401, challenge });
        // spec Limits: only a token this deployment did not sign counts as a failed authentication
        throw verified.unsigned ? failedAuthentication(error) : error;
    }
    const claims = verified.claims;
    const jkt = await checkSenderConstraint(deps.dpop, claims, token, presentation);
    const actor: Actor = {
        identity: {
            id: claims.sub,
            type: claims.sub_kind,
            realmId: claims.realm_id,
            realmName: claims.realm_name,
            // consumer rule 1: clientId is the subject id when sub_kind is client
            clientId: claims.sub_kind === 'client' ? claims.sub : null,
        },
        tokenClientId: claims.client_id ?? null,
        method: 'bearer',
        sessionId: claims.session_id,
    };
    if (jkt !== null) actor.dpopJkt = jkt;
    if (!hasScope(claims.scope, GLOBAL_SCOPE)) actor.identityWithheld = true;
    if (verified.ok && verified.ownRow && claims.sub_kind === 'user') actor.ownRow = verified.ownRow;
    return actor;
}
