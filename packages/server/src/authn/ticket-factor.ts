import { ErrorCode } from '@realmgate/core';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { AppError } from '../errors/app-error.js';
import { failedAuthentication, isFailedAuthentication } from '../limits/failed-authentication.js';
import type { SecondFactorAttempts, SecondFactorLock } from '../limits/second-factor-attempts.js';
import { consumeMfaTicket } from '../storage/authenticators.js';
import type { DetachedEventLog } from '../storage/events.js';
import { AUTH_EVENT, type AuthEventRequest } from '../tokens/auth-events.js';
import { verifySecondFactor, type SecondFactorDeps, type SecondFactorInput } from './second-factor.js';

/**
 * The second factor of a sign-in ticket (an auth_mfa_tickets row: the password grant's mfa_token
 * or the browser's pending sign-in), with the limits of limits/second-factor-attempts.ts: a
 * locked account verifies nothing, a wrong factor is counted on the ticket and on the user, the
 * ticket dies at its limit, and the user's lock begins at its own (logged as an event). The one
 * place both sign-in forms verify a factor, so they cannot drift apart.
 */
export interface TicketFactorDeps extends SecondFactorDeps {
    attempts: SecondFactorAttempts;
    events: DetachedEventLog;
}

/** A ticket its caller found live (unexpired, not used): its id and the user it is for. */
export interface LiveTicket {
    id: string;
    userId: string;
    realmId: string;
}

export type TicketFactorOutcome =
    { ok: true } |
    /** a wrong or replayed factor (a counted failed authentication); `ticketSpent`: the ticket is gone */
    { ok: false; reason: 'wrong'; error: AppError; ticketSpent: boolean } |
    /** the user's second factor is locked (429 with Retry-After): nothing was verified, or this wrong factor began the lock */
    { ok: false; reason: 'locked'; error: AppError };

export function secondFactorLocked(seconds: number): AppError {
    return new AppError(ErrorCode.LOGIN_ATTEMPT_THROTTLED, 'Too many wrong one-time codes for this account: its second factor is locked for now.', {
        retryAfter: seconds,
    });
}

/** The lock's event: never the code sent (spec Events 5), who and for how long. */
export function recordSecondFactorLock(events: DetachedEventLog, user: { userId: string; realmId: string }, lock: SecondFactorLock, request: AuthEventRequest | null): void {
    events.record({
        name: AUTH_EVENT.secondFactorLocked, scope: 'auth', refType: 'user', refId: user.userId, realmId: user.realmId,
        request, data: { lockSeconds: lock.seconds, lock: lock.level },
    });
}

export async function verifyTicketFactor(
    deps: TicketFactorDeps, db: Kysely<Database>, ticket: LiveTicket, input: SecondFactorInput, request: AuthEventRequest | null,
): Promise<TicketFactorOutcome> {
    const lockedFor = await deps.attempts.lockedFor(ticket.userId);
    // refused before any code is looked at: a recovery code sent meanwhile is not used up
    if (lockedFor !== null) return { ok: false, reason: 'locked', error: secondFactorLocked(lockedFor) };
    try {
        await verifySecondFactor(deps, db, ticket.userId, input);
        return { ok: true };
    } catch (error) {
        if (!isFailedAuthentication(error) || !(error instanceof AppError)) throw error;
        const counted = await deps.attempts.failed(ticket.id, ticket.userId);
        if (counted.ticketSpent) await consumeMfaTicket(db, ticket.id, ticket.userId);
        if (counted.lock) {
            recordSecondFactorLock(deps.events, ticket, counted.lock, request);
            // the wrong factor that began the lock still counts toward its address (spec Limits)
            return { ok: false, reason: 'locked', error: failedAuthentication(secondFactorLocked(counted.lock.seconds)) };
        }
        return { ok: false, reason: 'wrong', error, ticketSpent: counted.ticketSpent };
    }
}
