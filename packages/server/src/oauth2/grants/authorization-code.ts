import { createHash } from 'node:crypto';
import { sha256Hex } from '../../secrets/digests.js';
import { secretsEqual } from '../../secrets/secret-box.js';
import {
    consumeAuthorizationCode, findAuthorizationCodeByDigest, issuedSessionOfCode, type StoredAuthorizationCode,
} from '../../storage/authorization-code-redemption.js';
import { invalidGrant, invalidRequest } from '../errors.js';
import { assertClientAdmits } from './access-policy.js';
import { realmAudienceOf, senderConstraintOf, tokenResponse, type Grant, type GrantDeps, type GrantRequest } from './contract.js';
import { narrowedAudience } from '../resource-indicators.js';

/** RFC 7636 §4.1: code_verifier = 43*128unreserved (ALPHA / DIGIT / "-" / "." / "_" / "~"). */
const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;

/**
 * RFC 7636 §4.6 (S256 only, §4.2; `plain` is never minted): BASE64URL(SHA256(ASCII(verifier)))
 * must equal the bound challenge, compared in constant time. A verifier for a code bound to no
 * challenge is refused too (RFC 9700 §4.8.2: PKCE downgrade), and a public client always needs one
 * (RFC 9700 §2.1.1; its code was minted with a challenge).
 */
function assertPkce(code: StoredAuthorizationCode, verifier: string | undefined, publicClient: boolean): void {
    if (code.codeChallenge === null) {
        if (verifier !== undefined) throw invalidGrant('A code_verifier was sent for a code bound to no code_challenge.');
        if (publicClient) throw invalidGrant('A public client must use PKCE.');
        return;
    }
    if (verifier === undefined) throw invalidGrant('The code_verifier is missing.');
    if (code.codeChallengeMethod !== 'S256') throw invalidGrant('The code_challenge_method is not supported.');
    if (!VERIFIER.test(verifier)) throw invalidGrant('The code_verifier is malformed (RFC 7636 §4.1).');
    const computed = createHash('sha256').update(verifier, 'ascii').digest('base64url');
    if (!secretsEqual(computed, code.codeChallenge)) throw invalidGrant('The code_verifier does not match the code_challenge.');
}

/**
 * A replayed code (RFC 6749 §4.1.2: the server "SHOULD revoke (when possible) all tokens
 * previously issued based on that authorization code"; RFC 9700 §4.5): the session the first
 * redemption created ends, and with it its access and refresh tokens (spec States).
 */
async function replayed(deps: GrantDeps, request: GrantRequest, codeId: string, issuedSessionId: string | null): Promise<never> {
    const issued = issuedSessionId ?? await issuedSessionOfCode(request.db, codeId);
    if (issued !== null) await deps.sessions.revoke(request.db, issued);
    throw invalidGrant('The authorization code was already used; what it issued has been revoked.');
}

/**
 * Every check that leaves the code unspent when it fails (a refused request is no
 * redemption, so the honest retry still works), each an RFC 6749 §5.2 invalid_grant.
 */
function assertRedeemable(code: StoredAuthorizationCode, request: GrantRequest, clientId: string, publicClient: boolean): void {
    const now = Date.now();
    if (code.expiresAt.getTime() <= now) throw invalidGrant('The authorization code has expired.');
    // RFC 6749 §4.1.3: issued to this client, and the redirect_uri identical to the one bound
    if (code.clientId !== clientId || code.realmId !== request.realm.id) throw invalidGrant('The authorization code was issued to another client.');
    if (request.params.redirect_uri !== code.redirectUri) throw invalidGrant('The redirect_uri does not match the authorization request.');
    assertPkce(code, request.params.code_verifier, publicClient);
    // spec Authentication 12: minted before a sign-out, password change or deactivation → unusable
    if (code.sessionRevoked || code.sessionExpiresAt === null || code.sessionExpiresAt.getTime() <= now) {
        throw invalidGrant('The session the code was issued in has ended.');
    }
    if (code.userActive !== true || code.userRealmId !== request.realm.id) throw invalidGrant('The user is inactive.');
    // RFC 9449 §10: a code bound to a DPoP key by dpop_jkt is redeemed only with a proof of that key
    if (code.dpopJkt != null && request.dpopJkt !== code.dpopJkt) {
        throw invalidGrant(request.dpopJkt === null ? 'The authorization code is bound to a DPoP key: send a DPoP proof of it.' : 'The DPoP proof\'s key is not the one the authorization code is bound to.');
    }
}

/**
 * RFC 6749 §4.1.3 with PKCE (RFC 7636 §4.5–4.6): a code minted at the authorization endpoint is
 * exchanged, once, for an access token, a refresh token and — with `openid` — an ID token, in a
 * new application session (client = the client, parent = the session the user signed in with,
 * created_at = the authentication time). A confidential client authenticates (the client
 * authentication step refuses its bare client_id); a public one names itself with client_id.
 */
export const authorizationCodeGrant: Grant = {
        type: 'authorization_code',
        // §4.1.3; RFC 7636 §4.5
        parameters: [
            { name: 'code', required: true }, { name: 'redirect_uri', required: true }, { name: 'code_verifier', required: false },
            // RFC 8707 §2.2
            { name: 'resource', required: false },
        ],
        // §3.2.1: confidential clients authenticate, public ones only identify themselves — checked below
        clientAuthentication: 'optional',
        create: (deps) => ({
            async handle(request) {
                const client = request.client;
                if (!client) throw invalidRequest('The authorization_code grant needs client_id (RFC 6749 §4.1.3).');
                const presented = request.params.code;
                if (!presented) throw invalidGrant('The authorization code is invalid.');
                const code = await findAuthorizationCodeByDigest(request.db, sha256Hex(presented));
                if (!code) throw invalidGrant('The authorization code is invalid.');
                if (code.usedAt !== null) return replayed(deps, request, code.id, code.issuedSessionId);
                // public: a client that did not authenticate (a private_key_jwt client has no secret, yet proves itself)
                assertRedeemable(code, request, client.row.id, !client.authenticated);
                // RFC 8707 §2.2: among the authorization request's resources; refused before the code is spent
                const audience = await narrowedAudience(request.db, request.realm.id, request.params.resource, code.resource ?? null);
                const subject = { id: code.userId, kind: 'user' as const, realmId: request.realm.id, realmName: request.realm.name };
                await assertClientAdmits(request, subject);
                const { accessMaxAge, refreshMaxAge } = deps.tokens.settings;
                // No transaction, an order (one commit per redemption cost more than the rest of its SQL
                // on SQLite, measured): the session first, then the code spent naming it, then
                // the tokens. From the moment the code is spent its session exists, so a replay finds
                // it to revoke (RFC 6749 §4.1.2); a crash in between leaves a session without tokens,
                // which expires, or a spent code, which the user replaces by signing in again.
                const sessionId = await deps.sessions.create(request.db, {
                    subject, clientId: client.row.id, ipAddress: request.ipAddress, userAgent: request.userAgent,
                    expiresAt: new Date(Date.now() + 1000 * Math.max(refreshMaxAge, accessMaxAge)),
                    parentId: code.sessionId, authTime: code.authTime,
                });
                if (!(await consumeAuthorizationCode(request.db, deps.dialect, code.id, sessionId))) {
                    // a concurrent redemption spent it first: this one's session never held a token; the other's is revoked
                    await deps.sessions.discard(request.db, sessionId);
                    return replayed(deps, request, code.id, null);
                }
                const grant = { subject, clientId: client.row.id, scope: code.scope, sessionId };
                const issued = await deps.tokens.issue(request.db, { ...grant, refresh: true, audience, grantResource: code.resource ?? null, ...realmAudienceOf(request), ...senderConstraintOf(request) });
                return tokenResponse(deps, request, { ...grant, authTime: code.authTime, nonce: code.nonce, acr: code.acr ?? null, profile: code.profile }, issued);
            },
        }),
};
