import { timingSafeEqual } from 'node:crypto';
import { randomToken, sha256Hex } from '../secrets/digests.js';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { findBrowserSession } from '../storage/console-sessions.js';
import type { Actor } from './actor.js';

/**
 * The console session (spec Authentication 1): a cookie named after the service
 * holding `<session id>.<secret>`, the secret 32 random bytes (base64url) of which only the SHA-256
 * digest is stored on the auth_sessions row. Because it is that row, every way of ending a session
 * (sign-out, DELETE /sessions, a password change, a deactivation) ends the cookie too.
 */
const BASE_NAME = 'realmgate_session';
const CSRF_BASE_NAME = 'realmgate_csrf';
const PENDING_BASE_NAME = 'realmgate_mfa';
const FEDERATED_BASE_NAME = 'realmgate_federated';

/** How the cookies are named and flagged on this deployment. */
export interface CookiePolicy {
    /** `__Host-realmgate_session` on https at the root of its host, else `realmgate_session` */
    sessionName: string;
    /** the double-submit CSRF cookie of the auth forms */
    csrfName: string;
    /** the pending sign-in between the password and the second-factor page (authn/pending-sign-in.ts) */
    pendingName: string;
    /** the state of a pending round trip through an upstream identity provider (its state, nonce and PKCE verifier), binding it to this browser */
    federatedName: string;
    secure: boolean;
    /** the origin of PUBLIC_URL: what a same-origin request's Origin header holds */
    origin: string;
}

/**
 * RFC 6265bis §4.1.3.2: the `__Host-` prefix needs Secure, Path=/ and no Domain, so it is used on
 * https deployments served at the root of their host (behind a path prefix the cookie would be
 * sent to every application on the host, which the prefix exists to rule out).
 */
export function cookiePolicy(publicUrl: string): CookiePolicy {
    const url = new URL(publicUrl);
    const secure = url.protocol === 'https:';
    const prefix = secure && (url.pathname === '/' || url.pathname === '') ? '__Host-' : '';
    return { sessionName: `${prefix}${BASE_NAME}`, csrfName: `${prefix}${CSRF_BASE_NAME}`, pendingName: `${prefix}${PENDING_BASE_NAME}`, federatedName: `${prefix}${FEDERATED_BASE_NAME}`, secure, origin: url.origin };
}

/**
 * Whether a Cookie header may hold a console session (either name): such a request is charged
 * once its caller is known (spec Limits), not to its address as it arrives.
 */
export function mayCarrySession(cookieHeader: string | undefined): boolean {
    return cookieHeader !== undefined && cookieHeader.includes(`${BASE_NAME}=`);
}

/** A new cookie secret and the digest stored for it. */
export function newCookieSecret(): { secret: string; digest: string } {
    const secret = randomToken();
    return { secret, digest: sha256Hex(secret) };
}

export function sessionCookieValue(sessionId: string, secret: string): string {
    return `${sessionId}.${secret}`;
}

/** Constant-time comparison of two strings of equal length (digests, CSRF tokens); false otherwise. */
export function sameSecret(a: string, b: string): boolean {
    const left = Buffer.from(a);
    const right = Buffer.from(b);
    return left.length === right.length && timingSafeEqual(left, right);
}

/** A live console session: the signed-in user and when they authenticated. */
export interface ConsoleSession {
    id: string;
    userId: string;
    userName: string;
    realmId: string;
    realmName: string;
    authTime: Date;
    /** how strongly the user authenticated (tokens/claims.ts ACR); null when unknown */
    acr: string | null;
}

const COOKIE_SHAPE = /^([0-9a-f-]{36})\.([A-Za-z0-9_-]{43})$/;

/**
 * The session a cookie value names, or null: malformed, unknown, a mismatched secret (compared as
 * digests in constant time), revoked, expired, not a browser session (a client's session has no
 * cookie digest), or its user gone or inactive. Anything wrong is simply no session.
 */
export async function verifyConsoleSession(db: Kysely<Database>, value: string | undefined): Promise<ConsoleSession | null> {
    const match = value === undefined ? null : COOKIE_SHAPE.exec(value);
    if (!match) return null;
    const row = await findBrowserSession(db, match[1]!);
    if (!row?.cookieDigest || !sameSecret(row.cookieDigest, sha256Hex(match[2]!))) return null;
    if (row.revokedAt !== null || row.expiresAt.getTime() <= Date.now()) return null;
    if (row.subKind !== 'user' || row.clientId !== null || row.userActive !== true || row.userName === null) return null;
    return { id: row.id, userId: row.sub, userName: row.userName, realmId: row.realmId, realmName: row.realmName, authTime: row.createdAt, acr: row.acr };
}

/**
 * The caller a console session stands for on the API: the user, not narrowed by a client (spec
 * Authentication rule 8), with the session so that `@me` and a password change keep it.
 */
export function consoleSessionActor(session: ConsoleSession): Actor {
    return {
        identity: { id: session.userId, type: 'user', realmId: session.realmId, realmName: session.realmName, clientId: null },
        tokenClientId: null,
        method: 'session',
        sessionId: session.id,
    };
}
