import { timeOrderedId } from '../../db/time-ordered-id.js';
import type { Kysely } from 'kysely';
import { newCookieSecret, sessionCookieValue } from '../../authn/console-session.js';
import type { Database } from '../../db/schema.js';
import type { DialectName } from '../../db/values.js';
import { insertBrowserSession } from '../../storage/console-sessions.js';
import type { Acr } from '../../tokens/claims.js';

/** A session the user just authenticated in: its id, its authentication time and, for a browser, the cookie. */
export interface NewBrowserSession {
    id: string;
    authTime: Date;
    /** `<id>.<secret>`; null for a session without a cookie (the API form with Basic) */
    cookie: string | null;
    /** seconds the session (and its cookie) lives */
    maxAge: number;
}

/**
 * A new browser session (the parent of the application sessions it signs in): an auth_sessions row of the user without a
 * client, created_at the authentication time; with `cookie`, the SHA-256 digest of a fresh cookie
 * secret is stored on it. It lives as long as a refresh token (TOKEN_REFRESH_MAX_AGE).
 */
export async function createBrowserSession(
    db: Kysely<Database>,
    dialect: DialectName,
    session: { userId: string; realmId: string; ipAddress: string | null; userAgent: string | null; maxAge: number; cookie: boolean; acr: Acr },
): Promise<NewBrowserSession> {
    const id = timeOrderedId();
    const authTime = new Date();
    const secret = session.cookie ? newCookieSecret() : null;
    await insertBrowserSession(db, dialect, {
        id, subjectId: session.userId, subjectKind: 'user', clientId: null, realmId: session.realmId,
        ipAddress: session.ipAddress, userAgent: session.userAgent?.slice(0, 512) ?? null,
        expiresAt: new Date(authTime.getTime() + session.maxAge * 1000), createdAt: authTime,
        cookieDigest: secret?.digest ?? null, acr: session.acr,
    });
    return { id, authTime, cookie: secret ? sessionCookieValue(id, secret.secret) : null, maxAge: session.maxAge };
}
