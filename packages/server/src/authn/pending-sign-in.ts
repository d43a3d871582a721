import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { DialectName } from '../db/values.js';
import { randomToken, sha256Hex } from '../secrets/digests.js';
import { consumeMfaTicket, findLiveMfaTicket, insertMfaTicket } from '../storage/authenticators.js';

/**
 * The browser's sign-in between its two pages (multi-factor sign-in with TOTP; RFC 6238): the password was right, the
 * second factor is pending. The state is an auth_mfa_tickets row — the table of the password
 * grant's mfa_token — held server-side, short-lived and single use; the browser holds only a
 * 256-bit secret in an HttpOnly cookie. The row's id is derived from the secret's SHA-256 digest,
 * so the database never holds the secret itself (spec Authentication 12, as for codes and
 * cookies), and nothing the page posts (no hidden user id) names the user.
 */

/** Five minutes, as an mfa_token: long enough to open an authenticator app. */
export const PENDING_SIGN_IN_MAX_AGE = 300;

const SECRET_SHAPE = /^[A-Za-z0-9_-]{43}$/;

/** The ticket id of a secret: the first 128 bits of its SHA-256 digest, in the UUID layout of the id column. */
function ticketIdOf(secret: string): string {
    const hex = sha256Hex(secret);
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/** Opens a pending sign-in for the user of the realm; answers the cookie secret. */
export async function startPendingSignIn(db: Kysely<Database>, dialect: DialectName, user: { id: string; realmId: string }): Promise<string> {
    const secret = randomToken();
    await insertMfaTicket(db, dialect, {
        id: ticketIdOf(secret), userId: user.id, realmId: user.realmId, expiresAt: new Date(Date.now() + PENDING_SIGN_IN_MAX_AGE * 1000),
    });
    return secret;
}

/** A live pending sign-in: the user it is for and the secret that consumes it. */
export interface PendingSignIn {
    /** the auth_mfa_tickets row (wrong codes are counted on it: authn/ticket-factor.ts) */
    ticketId: string;
    userId: string;
    realmId: string;
    /** removes the ticket; false when another request did first (single use) */
    consume(): Promise<boolean>;
}

/** The pending sign-in a cookie secret names, if unexpired and not used yet (anything wrong is none). */
export async function findPendingSignIn(db: Kysely<Database>, dialect: DialectName, secret: string | undefined): Promise<PendingSignIn | null> {
    if (secret === undefined || !SECRET_SHAPE.test(secret)) return null;
    const id = ticketIdOf(secret);
    const ticket = await findLiveMfaTicket(db, dialect, id);
    if (!ticket) return null;
    return { ...ticket, ticketId: id, consume: () => consumeMfaTicket(db, id, ticket.userId) };
}
