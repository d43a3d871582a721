import { ErrorCode } from '@realmgate/core';
import type { Kysely } from 'kysely';
import { accessTokenOf } from '../authn/bearer-header.js';
import type { DpopPresentation, DpopVerifier } from '../authn/dpop-proof.js';
import { AS_BEARER, checkSenderConstraint, presentationOf, type TokenPresentation } from '../authn/sender-constraint.js';
import type { Database } from '../db/schema.js';
import { AppError } from '../errors/app-error.js';
import { failedAuthentication } from '../limits/failed-authentication.js';
import { hasScope, type TokenClaims } from '../tokens/claims.js';
import type { TokenService } from '../tokens/service.js';
import type { UserProfile } from '../storage/users.js';
import { claimsOfProfile, releasedClaims, userClaims, type EmailClaims, type ProfileClaims } from '../tokens/user-claims.js';

const OPENID_SCOPE = 'openid';
/** RFC 6750 §3: the challenge's realm, as on every other bearer route (authn/bearer.ts) */
const REALM = 'realm="realmgate"';

export interface UserinfoDeps {
    db: Kysely<Database>;
    tokens: TokenService;
    /** DPoP proofs of sender-constrained tokens (RFC 9449 §7) */
    dpop: DpopVerifier;
}

/** What the UserInfo endpoint receives of a request, without its transport. */
export interface UserinfoRequest {
    authorization: string | undefined;
    /** the body of a POST (RFC 6750 §2.2); undefined for GET */
    body: unknown;
    /** whether the body is application/x-www-form-urlencoded, the only encoding §2.2 allows */
    formEncoded: boolean;
    query: unknown;
    /** the request's DPoP header, method and path: a DPoP-bound token is proven over them (RFC 9449 §7) */
    dpop: DpopPresentation;
}

/** OpenID Connect Core §5.3.2: `sub` always, the other claims as the access token's scope releases them. */
export type UserinfoResponse = { sub: string } & ProfileClaims & EmailClaims;

/** A bearer refusal (RFC 6750 §3.1): the challenge names the error; without any token, none (§3.1 last paragraph). */
function bearerError(status: 400 | 401 | 403, code: ErrorCode, message: string, error?: string, extra = ''): AppError {
    const challenge = `Bearer ${REALM}${error ? `, error="${error}", error_description="${message}"${extra}` : ''}`;
    return new AppError(code, message, { statusCode: status, challenge });
}

/**
 * The access token of the request: the Authorization header (RFC 6750 §2.1) or, on POST, the form
 * member `access_token` (§2.2) — never both (§2: "MUST NOT use more than one method"), never the
 * query string (§2.3 is not offered: a token in a URL ends up in logs).
 */
function presentedToken(request: UserinfoRequest): { token: string; presentation: TokenPresentation } {
    const query = request.query as Record<string, unknown> | undefined;
    if (query && typeof query === 'object' && query.access_token !== undefined) {
        throw bearerError(400, ErrorCode.INVALID_REQUEST, 'The access token must not be sent in the query string.', 'invalid_request');
    }
    const body = request.body as Record<string, unknown> | undefined;
    const inBody = body && typeof body === 'object' ? body.access_token : undefined;
    if (inBody !== undefined && (typeof inBody !== 'string' || !request.formEncoded)) {
        throw bearerError(400, ErrorCode.INVALID_REQUEST, 'access_token must be a form-encoded string (RFC 6750 §2.2).', 'invalid_request');
    }
    if (request.authorization !== undefined) {
        if (inBody !== undefined) throw bearerError(400, ErrorCode.INVALID_REQUEST, 'Send the access token in one place only.', 'invalid_request');
        const presented = accessTokenOf(request.authorization);
        if (presented === null) throw bearerError(401, ErrorCode.INVALID_TOKEN, 'The UserInfo endpoint takes a Bearer or DPoP access token.', 'invalid_token');
        return { token: presented.token, presentation: presentationOf(presented, request.dpop) };
    }
    if (inBody) return { token: inBody, presentation: AS_BEARER };
    throw bearerError(401, ErrorCode.INVALID_TOKEN, 'An access token is required.');
}

/**
 * `GET` and `POST /userinfo` (OpenID Connect Core §5.3) without their transport: `authenticate`
 * verifies the access token (signature, key, session and subject, as for any bearer: spec States)
 * so the transport can charge its user; `claims` answers them by the token's scope. Only an
 * access token of a user that carries `openid` is accepted: a refresh or ID token is no bearer
 * (invalid_token), and without `openid` the token was not issued for this (insufficient_scope, 403).
 */
export function createUserinfoEndpoint(deps: UserinfoDeps) {
    /**
     * The user's profile read with the token's state (one round trip), handed from
     * `authenticate` to `claims` of the same request: keyed by the claims object that request got
     * back — a fresh object per request, since the verifier's remembered claims are shared.
     */
    const profiles = new WeakMap<TokenClaims, UserProfile>();
    return {
        async authenticate(request: UserinfoRequest): Promise<TokenClaims> {
            const { token, presentation } = presentedToken(request);
            const verified = await deps.tokens.verifyAccessToken(deps.db, token);
            if (!verified.ok) {
                const error = bearerError(401, ErrorCode.INVALID_TOKEN, verified.message, 'invalid_token');
                // spec Limits: only a token this deployment did not sign counts as a failed authentication
                throw verified.unsigned ? failedAuthentication(error) : error;
            }
            // RFC 9449 §7: a bound token only with its key's proof, never as a bearer (a form member included)
            await checkSenderConstraint(deps.dpop, verified.claims, token, presentation);
            const claims = { ...verified.claims };
            if (verified.profile) profiles.set(claims, verified.profile);
            if (claims.sub_kind !== 'user') throw bearerError(401, ErrorCode.INVALID_TOKEN, 'The access token does not name a user.', 'invalid_token');
            if (!hasScope(claims.scope, OPENID_SCOPE)) {
                throw bearerError(403, ErrorCode.PERMISSION_DENIED, 'The access token lacks the openid scope.', 'insufficient_scope', `, scope="${OPENID_SCOPE}"`);
            }
            return claims;
        },
        async claims(token: TokenClaims): Promise<UserinfoResponse> {
            const profile = profiles.get(token);
            const found = profile ? claimsOfProfile(profile) : await userClaims(deps.db, token.sub);
            // verified a moment ago: a user deleted since is a token that no longer names anyone
            if (!found) throw bearerError(401, ErrorCode.INVALID_TOKEN, 'The user does not exist.', 'invalid_token');
            // the profile claims first, so none of them can replace `sub`
            return { ...releasedClaims(token.scope, found), sub: token.sub };
        },
    };
}

export type UserinfoEndpoint = ReturnType<typeof createUserinfoEndpoint>;
