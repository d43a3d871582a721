import type { CounterStore } from './counter-store.js';

/**
 * How many wrong second factors (TOTP codes, recovery codes) one sign-in and one account may
 * send. The per-address limit (spec Limits, 300 failures a minute) does not bound a guesser who
 * picks its source address (X-Forwarded-For under TRUST_PROXY), and a 6-digit code falls to
 * about 10^6 / 2 guesses (RFC 6238 §5.1: the verifier should throttle attempts; RFC 4226 §7.3:
 * lock out after a small number of failed attempts). So wrong factors are counted per ticket
 * (the mfa_token's or the pending browser sign-in's auth_mfa_tickets row) and per user id —
 * never per address — in the counter store, shared by every replica through Redis when set.
 */
export interface SecondFactorLimits {
    /** wrong factors a ticket survives: the one that reaches it spends the ticket */
    ticketMax: number;
    /** wrong factors per user within `userWindowMs` of the first one before the user's second factor is locked */
    userMax: number;
    userWindowMs: number;
    /** the first lock; each further lock within `lockMemoryMs` of the first doubles it, up to `lockMaxMs` */
    lockMs: number;
    lockMaxMs: number;
    lockMemoryMs: number;
}

export const SECOND_FACTOR_LIMITS: SecondFactorLimits = {
    ticketMax: 5,
    userMax: 10,
    userWindowMs: 15 * 60_000,
    lockMs: 15 * 60_000,
    lockMaxMs: 24 * 60 * 60_000,
    lockMemoryMs: 24 * 60 * 60_000,
};

/** A ticket lives 5 minutes (oauth2/grants/second-factor.ts, authn/pending-sign-in.ts); its counter a little longer. */
const TICKET_COUNTER_MS = 10 * 60_000;

/** The lock a wrong factor began: how long, and which lock of the day it is (1, 2, …). */
export interface SecondFactorLock {
    seconds: number;
    level: number;
}

export interface SecondFactorAttempts {
    /** the seconds the user's second factor stays locked, or null when it is not */
    lockedFor(userId: string): Promise<number | null>;
    /**
     * A wrong factor sent with a ticket (null: without one, as the fresh proof of a change of
     * one's own authenticators): `ticketSpent` when the ticket reached its limit (the caller
     * removes it), `lock` when the user's count reached its limit and the lock began.
     */
    failed(ticketId: string | null, userId: string): Promise<{ ticketSpent: boolean; lock: SecondFactorLock | null }>;
}

export function createSecondFactorAttempts(
    store: CounterStore, prefix: string, clock: () => number, limits: SecondFactorLimits = SECOND_FACTOR_LIMITS,
): SecondFactorAttempts {
    const ticketKey = (ticketId: string) => `${prefix}mfa:t:${ticketId}`;
    const userKey = (userId: string) => `${prefix}mfa:u:${userId}`;
    const levelKey = (userId: string) => `${prefix}mfa:l:${userId}`;
    /** the lock's end (ms since the epoch), kept as long as the lock lasts */
    const lockKey = (userId: string) => `${prefix}mfa:x:${userId}`;

    return {
        async lockedFor(userId) {
            const left = await store.read(lockKey(userId)) - clock();
            return left > 0 ? Math.max(1, Math.ceil(left / 1000)) : null;
        },
        async failed(ticketId, userId) {
            const [onTicket] = ticketId === null ? [0] : await store.incrementAndRead(ticketKey(ticketId), null, TICKET_COUNTER_MS);
            // the window starts with the user's first wrong factor and ends userWindowMs later
            const [onUser] = await store.incrementAndRead(userKey(userId), null, limits.userWindowMs);
            let lock: SecondFactorLock | null = null;
            if (onUser >= limits.userMax) {
                // backoff: each lock within lockMemoryMs of the first doubles the next
                const [level] = await store.incrementAndRead(levelKey(userId), null, limits.lockMemoryMs);
                const lockMs = Math.min(limits.lockMaxMs, limits.lockMs * 2 ** Math.min(level - 1, 30));
                await store.put(lockKey(userId), clock() + lockMs, lockMs);
                // after the lock the count starts again: userMax more wrong factors before the next, longer one
                await store.put(userKey(userId), 0, 1);
                lock = { seconds: Math.ceil(lockMs / 1000), level };
            }
            return { ticketSpent: ticketId !== null && onTicket >= limits.ticketMax, lock };
        },
    };
}
