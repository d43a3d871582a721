import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { randomToken, sha256Hex } from '../../secrets/digests.js';
import type { Database } from '../../db/schema.js';
import type { DialectName } from '../../db/values.js';
import { insertAuthorizationCode } from '../../storage/authorization-codes.js';
import { ACR } from '../../tokens/claims.js';
import type { AuthorizationRequest } from './request.js';
import { profileOf } from '../security-profile.js';

/** Who the code is issued for: the user, the session they signed in with and when they authenticated. */
export interface CodeSubject {
    userId: string;
    sessionId: string;
    authTime: Date;
    /** the session's authentication strength (tokens/claims.ts ACR); null when unknown */
    acr: string | null;
}

/**
 * Spec Authentication 12: a 256-bit random code (base64url), stored only as its SHA-256 digest,
 * bound to the client, the redirect URI, the PKCE challenge and method (RFC 7636 §4.4), the nonce
 * (OIDC Core §3.1.2.1), the scope, the session, the authentication time, the DPoP key of `dpop_jkt`
 * (RFC 9449 §10) and, when acr_values was sent, the `acr` its ID token states. Returns the code.
 */
export async function mintCode(db: Kysely<Database>, dialect: DialectName, request: AuthorizationRequest, subject: CodeSubject): Promise<string> {
    const code = randomToken();
    await insertAuthorizationCode(db, dialect, {
        id: randomUUID(),
        codeDigest: sha256Hex(code),
        realmId: request.client.realm.id,
        clientId: request.client.id,
        userId: subject.userId,
        sessionId: subject.sessionId,
        redirectUri: request.redirectUri,
        scope: request.scope,
        nonce: request.nonce,
        codeChallenge: request.codeChallenge,
        codeChallengeMethod: request.codeChallengeMethod,
        authTime: subject.authTime,
        // OIDC Core §3.1.2.1: acr_values is a voluntary request — the ID token states the strength
        // the session has (an unknown one as the weakest), whichever values were asked for
        acr: request.acrValues ? subject.acr ?? ACR.PASSWORD : null,
        // RFC 8707 §2.2: the token request may narrow to this resource, and to no other
        resource: request.resource,
        // RFC 9449 §10: redeemable only with a DPoP proof of this key
        dpopJkt: request.dpopJkt,
        expiresAt: new Date(Date.now() + profileOf(request.client.realm).authorizationCodeLifetimeMs),
    });
    return code;
}
