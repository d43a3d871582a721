import { DPOP_SIGNING_ALGORITHMS, ErrorCode } from '@realmgate/core';
import { AppError } from '../errors/app-error.js';
import type { TokenClaims } from '../tokens/claims.js';
import type { PresentedAccessToken } from './bearer-header.js';
import type { DpopFailure, DpopPresentation, DpopVerifier } from './dpop-proof.js';

/** How a request presented its access token: as a bearer, or with the DPoP scheme and its proof (RFC 9449 §7.1). */
export type TokenPresentation = { scheme: 'Bearer' } | { scheme: 'DPoP'; request: DpopPresentation };

/** A token presented as a bearer: a channel without a request to prove over (a socket's handshake) presents it so. */
export const AS_BEARER: TokenPresentation = Object.freeze({ scheme: 'Bearer' });

export function presentationOf(presented: PresentedAccessToken, request: DpopPresentation): TokenPresentation {
    return presented.scheme === 'DPoP' ? { scheme: 'DPoP', request } : AS_BEARER;
}

/** RFC 9449 §7.1: the DPoP challenge names the algorithms a proof may use. */
const ALGS = `algs="${DPOP_SIGNING_ALGORITHMS.join(' ')}"`;

/** A refusal on a resource route: 401 with a DPoP challenge (RFC 9449 §7.1, §9); with use_dpop_nonce, the nonce to retry with. */
function dpopRefusal(failure: Pick<DpopFailure, 'code' | 'message' | 'nonce'>): AppError {
    const code = failure.code === 'use_dpop_nonce' ? ErrorCode.USE_DPOP_NONCE : ErrorCode.INVALID_DPOP_PROOF;
    return new AppError(code, failure.message, {
        statusCode: 401,
        challenge: `DPoP ${ALGS}, error="${failure.code}", error_description="${failure.message}"`,
        ...(failure.nonce !== null ? { headers: { 'DPoP-Nonce': failure.nonce } } : {}),
    });
}

function invalidToken(message: string): AppError {
    return new AppError(ErrorCode.INVALID_TOKEN, message, { statusCode: 401, challenge: `DPoP ${ALGS}, error="invalid_token", error_description="${message}"` });
}

/**
 * RFC 9449 §7: a token bound to a key (`cnf.jkt`, §6.1) is accepted only with the DPoP scheme and a
 * proof of that key over this request whose `ath` hashes the token — a stolen bound token is worth
 * nothing without the key, and never as a bearer (§7.2). A token without `cnf` is a bearer token
 * and is refused under the DPoP scheme. Answers the key's thumbprint, or null for a bearer.
 */
export async function checkSenderConstraint(dpop: DpopVerifier, claims: TokenClaims, token: string, presentation: TokenPresentation): Promise<string | null> {
    const bound = claims.cnf?.jkt ?? null;
    if (presentation.scheme === 'Bearer') {
        if (bound !== null) throw invalidToken('The access token is bound to a DPoP key: present it with the DPoP scheme and a proof.');
        return null;
    }
    if (bound === null) throw invalidToken('The access token is not DPoP-bound: present it as a Bearer token.');
    const proof = await dpop.verify(presentation.request, { realmId: claims.realm_id, accessToken: token });
    if (!proof.ok) throw dpopRefusal(proof);
    if (proof.jkt !== bound) throw dpopRefusal({ code: 'invalid_dpop_proof', message: 'The DPoP proof is signed by another key than the token is bound to.', nonce: null });
    return proof.jkt;
}
