import { ErrorCode } from '@realmgate/core';
import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import { AppError } from '../errors/app-error.js';
import { failedAuthentication } from '../limits/failed-authentication.js';
import type { SecondFactorAttempts } from '../limits/second-factor-attempts.js';
import type { DetachedEventLog } from '../storage/events.js';
import { recordPasskeyUse } from '../storage/passkeys.js';
import { AUTH_EVENT, type AuthEventRequest } from '../tokens/auth-events.js';
import { verifyAssertion, type AssertionOutcome, type CeremonyDeps } from './passkey-ceremonies.js';
import { recordSecondFactorLock, secondFactorLocked, type LiveTicket, type TicketFactorOutcome } from './ticket-factor.js';
import { consumeMfaTicket } from '../storage/authenticators.js';

/**
 * A passkey assertion under the limits of every second factor (limits/second-factor-attempts.ts):
 * a locked user verifies nothing, a failed assertion on a known credential counts toward its user's
 * limit (and the pending sign-in's, when there is one), a counter that did not grow is refused and
 * evented as a possibly cloned authenticator (WebAuthn §6.1.1, §7.2 step 21), and a use is
 * evented. The one check the passkey sign-in and the passkey second factor share.
 */
export interface PasskeyAssertionDeps extends CeremonyDeps {
    attempts: SecondFactorAttempts;
    events: DetachedEventLog;
}

export type PasskeyAssertionResult =
    { ok: true; userId: string; authenticatorId: string } |
    /** refused; `error` is marked a failed authentication when it should count toward the address */
    { ok: false; reason: 'invalid' | 'cloned' | 'locked'; error: AppError; ticketSpent: boolean };

function invalidPasskey(): AppError {
    return failedAuthentication(new AppError(ErrorCode.INVALID_CREDENTIALS, 'The passkey could not be verified.', { statusCode: 401 }));
}

/**
 * `expected`: the user and pending sign-in a second factor is for; null for a discoverable sign-in
 * (the credential names the user).
 */
export async function assertPasskey(
    deps: PasskeyAssertionDeps, realmId: string, expected: { userId: string; ticketId: string } | null,
    response: AuthenticationResponseJSON | null, request: AuthEventRequest | null,
): Promise<PasskeyAssertionResult> {
    if (expected) {
        const lockedFor = await deps.attempts.lockedFor(expected.userId);
        if (lockedFor !== null) return { ok: false, reason: 'locked', error: secondFactorLocked(lockedFor), ticketSpent: false };
    }
    const outcome: AssertionOutcome = response === null ? { ok: false, reason: 'invalid', credential: null } :
        await verifyAssertion(deps, realmId, expected?.userId ?? null, response);
    // a failure counts toward the user the credential names, or the one a second factor is for
    const userId = outcome.credential?.userId ?? expected?.userId ?? null;
    if (outcome.ok) {
        const lockedFor = await deps.attempts.lockedFor(outcome.credential.userId);
        if (lockedFor !== null) return { ok: false, reason: 'locked', error: secondFactorLocked(lockedFor), ticketSpent: false };
        // two assertions judged against one stored counter: only the first to record it signs in
        if (await recordPasskeyUse(deps.db, deps.dialect, outcome.credential.id, outcome.credential.signCount, outcome.newCounter)) {
            deps.events.record({
                name: AUTH_EVENT.passkeyUsed, scope: 'auth', refType: 'user_authenticator', refId: outcome.credential.id, realmId,
                actorType: 'user', actorId: outcome.credential.userId, request, data: { secondFactor: expected !== null },
            });
            return { ok: true, userId: outcome.credential.userId, authenticatorId: outcome.credential.id };
        }
    } else if (outcome.reason === 'cloned') {
        deps.events.record({
            name: AUTH_EVENT.passkeyCloneSuspected, scope: 'auth', refType: 'user_authenticator', refId: outcome.credential.id, realmId,
            actorType: 'user', actorId: outcome.credential.userId, request,
            data: { storedCounter: outcome.credential.signCount, presentedCounter: outcome.newCounter },
        });
    }
    if (userId === null) return { ok: false, reason: 'invalid', error: invalidPasskey(), ticketSpent: false };
    const counted = await deps.attempts.failed(expected?.ticketId ?? null, userId);
    if (counted.lock) {
        recordSecondFactorLock(deps.events, { userId, realmId }, counted.lock, request);
        return { ok: false, reason: 'locked', error: failedAuthentication(secondFactorLocked(counted.lock.seconds)), ticketSpent: counted.ticketSpent };
    }
    return { ok: false, reason: outcome.ok ? 'invalid' : outcome.reason, error: invalidPasskey(), ticketSpent: counted.ticketSpent };
}

/**
 * A passkey as the second factor of a sign-in ticket (the browser's pending sign-in): the outcome
 * of authn/ticket-factor.ts's code check, so the second-factor page treats both alike; a ticket
 * spent by wrong factors is removed. `response` null: the page sent something that is not an answer.
 */
export async function verifyTicketPasskey(
    deps: PasskeyAssertionDeps, ticket: LiveTicket, response: AuthenticationResponseJSON | null, request: AuthEventRequest | null,
): Promise<TicketFactorOutcome> {
    const result = await assertPasskey(deps, ticket.realmId, { userId: ticket.userId, ticketId: ticket.id }, response, request);
    if (result.ok) return { ok: true };
    if (result.ticketSpent) await consumeMfaTicket(deps.db, ticket.id, ticket.userId);
    if (result.reason === 'locked') return { ok: false, reason: 'locked', error: result.error };
    return { ok: false, reason: 'wrong', error: result.error, ticketSpent: result.ticketSpent };
}
