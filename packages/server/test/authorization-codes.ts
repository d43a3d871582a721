import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { toDbDate } from '../src/db/values.js';
import type { TestApp } from './app.js';

/*
 * Authorization codes written straight into auth_authorization_codes, as the authorization
 * endpoint mints them (spec Authentication 12: 256-bit, stored as the SHA-256 hex digest only), so
 * the redemption side is tested on its own. The end-to-end suites mint them through /authorize.
 */

export interface CodeFixture {
    realmId: string;
    clientId: string;
    userId: string;
    /** the session the user signed in with */
    sessionId: string;
    redirectUri: string;
    scope?: string;
    nonce?: string | null;
    /** the PKCE challenge bound to the code (S256), or none */
    codeChallenge?: string | null;
    authTime?: Date;
    expiresAt?: Date;
}

/** RFC 7636 §4.1–4.2: a verifier of 32 random octets and its S256 challenge. */
export function pkcePair(): { verifier: string; challenge: string } {
    const verifier = randomBytes(32).toString('base64url');
    return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** A fresh code bound as the fixture says; returns the code's value (never stored). */
export async function insertAuthorizationCode(app: TestApp, fixture: CodeFixture): Promise<string> {
    const dialect = app.deps.handle.dialect;
    const code = randomBytes(32).toString('base64url');
    const now = new Date();
    await app.deps.db.insertInto('auth_authorization_codes').values({
        id: randomUUID(),
        code_digest: createHash('sha256').update(code).digest('hex'),
        realm_id: fixture.realmId,
        client_id: fixture.clientId,
        user_id: fixture.userId,
        session_id: fixture.sessionId,
        redirect_uri: fixture.redirectUri,
        scope: fixture.scope ?? 'openid',
        nonce: fixture.nonce ?? null,
        code_challenge: fixture.codeChallenge ?? null,
        code_challenge_method: fixture.codeChallenge ? 'S256' : null,
        auth_time: toDbDate(dialect, fixture.authTime ?? now),
        expires_at: toDbDate(dialect, fixture.expiresAt ?? new Date(now.getTime() + 5 * 60_000)),
        used_at: null,
        issued_session_id: null,
        created_at: toDbDate(dialect, now),
    }).execute();
    return code;
}
