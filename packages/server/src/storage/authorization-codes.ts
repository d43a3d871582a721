import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { toDbDate, type DialectName } from '../db/values.js';

/** A new authorization code (spec Authentication 12): only the SHA-256 digest of the code is stored. */
export interface NewAuthorizationCode {
    id: string;
    codeDigest: string;
    realmId: string;
    clientId: string;
    userId: string;
    sessionId: string;
    redirectUri: string;
    scope: string;
    nonce: string | null;
    codeChallenge: string | null;
    codeChallengeMethod: string | null;
    authTime: Date;
    expiresAt: Date;
    /** the `acr` its ID token states; null (or absent) unless the request sent acr_values */
    acr?: string | null;
    /** the resource indicator the request named (RFC 8707 §2); null (or absent) when none */
    resource?: string | null;
    /** the DPoP key thumbprint the request bound the code to (RFC 9449 §10); null (or absent) when none */
    dpopJkt?: string | null;
}

export async function insertAuthorizationCode(db: Kysely<Database>, dialect: DialectName, code: NewAuthorizationCode): Promise<void> {
    await db.insertInto('auth_authorization_codes').values({
        id: code.id, code_digest: code.codeDigest, realm_id: code.realmId, client_id: code.clientId, user_id: code.userId,
        session_id: code.sessionId, redirect_uri: code.redirectUri, scope: code.scope, nonce: code.nonce,
        code_challenge: code.codeChallenge, code_challenge_method: code.codeChallengeMethod,
        auth_time: toDbDate(dialect, code.authTime), expires_at: toDbDate(dialect, code.expiresAt),
        used_at: null, issued_session_id: null, acr: code.acr ?? null, resource: code.resource ?? null, dpop_jkt: code.dpopJkt ?? null, created_at: toDbDate(dialect, new Date()),
    }).execute();
}
