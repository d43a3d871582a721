import { ErrorCode } from '@realmgate/core';
import { AppError } from '../errors/app-error.js';
import type { CounterStore } from './counter-store.js';
import { WINDOW_MS } from './limiter.js';

/**
 * Wrong user codes per window and key (an address, a session) before user-code entry is refused
 * for the rest of the window (RFC 8628 §5.1: the user code's entropy is small, so verification
 * attempts must be rate limited). A person mistyping a few codes stays well below it.
 */
export const DEVICE_VERIFICATION_MAX = 10;

/**
 * The key every anonymous lookup (the `/device` page before a session: no user, no session to
 * count by) is counted under as well, so a guesser rotating addresses — X-Forwarded-For under
 * TRUST_PROXY — still meets one bound for the whole deployment (RFC 8628 §5.1).
 */
export const ANONYMOUS_ENTRY = 'anonymous';

/**
 * Wrong user codes per window of all anonymous entry together: far above the typing mistakes of a
 * deployment's people in a minute, while a guesser's chance of hitting one of the pending codes
 * (RFC 8628 §6.1: 20^8 codes of 8 base-20 characters) stays negligible. A browser signed in to
 * the realm is counted per session instead, so it can still enter a code while this one is spent.
 */
const DEVICE_VERIFICATION_ANONYMOUS_MAX = 100;

/** Keys outlive their window a little, as the limiter's do. */
const KEY_GRACE_MS = 5_000;

/**
 * The throttle of user-code entry (spec Errors: 429 `device_verification_throttled` with
 * Retry-After), counted in the counter store of the request limits — Redis when configured — so
 * every replica sees the same misses.
 */
export interface DeviceVerificationThrottle {
    /** before a code is looked at: throws the 429 when one of the keys has too many misses in this window */
    admit(keys: readonly string[]): Promise<void>;
    /** a code that named no pending request: one miss for each key */
    miss(keys: readonly string[]): Promise<void>;
}

export function createDeviceVerificationThrottle(
    store: CounterStore, prefix: string, clock: () => number, max = DEVICE_VERIFICATION_MAX, anonymousMax = DEVICE_VERIFICATION_ANONYMOUS_MAX,
): DeviceVerificationThrottle {
    const maxOf = (key: string) => (key === ANONYMOUS_ENTRY ? anonymousMax : max);
    const windowOf = () => {
        const now = clock();
        const index = Math.floor(now / WINDOW_MS);
        const end = (index + 1) * WINDOW_MS;
        return { index, ttl: end - now + KEY_GRACE_MS, seconds: Math.max(1, Math.ceil((end - now) / 1000)) };
    };
    const missKey = (key: string, index: number) => `${prefix}dv:m:${key}:${index}`;
    return {
        async admit(keys) {
            const window = windowOf();
            for (const key of keys) {
                // the store reads a counter only with an increment: the attempt counter is the one charged
                const [, misses] = await store.incrementAndRead(`${prefix}dv:a:${key}:${window.index}`, missKey(key, window.index), window.ttl);
                if (misses >= maxOf(key)) {
                    throw new AppError(ErrorCode.DEVICE_VERIFICATION_THROTTLED, 'Too many wrong user codes; try again when the minute ends.', {
                        retryAfter: window.seconds,
                    });
                }
            }
        },
        async miss(keys) {
            const window = windowOf();
            for (const key of keys) await store.incrementAndRead(missKey(key, window.index), null, window.ttl);
        },
    };
}
