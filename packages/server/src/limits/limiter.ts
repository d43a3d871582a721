import type { CounterStore } from './counter-store.js';

/** Spec Limits: every limit counts in fixed one-minute windows. */
export const WINDOW_MS = 60_000;

/** Keys outlive their window a little, so a replica whose clock runs behind still finds them. */
const KEY_GRACE_MS = 5_000;

export interface LimitSettings {
    /** failed authentications per address and window before the address is refused (spec: 300) */
    failureMax: number;
    /** requests per identity and window (RATE_LIMIT_USER_MAX, RATE_LIMIT_CLIENT_MAX) */
    userMax: number;
    clientMax: number;
    /** requests without credentials per address and window (RATE_LIMIT_ANONYMOUS_MAX) */
    anonymousMax: number;
}

/** Who a request is charged to after authentication; null charges the source address. */
export type Chargeable = { kind: 'user' | 'client'; id: string } | null;

export type Decision =
    { allowed: true; limit: number; remaining: number; resetSeconds: number } |
    { allowed: false; reason: 'address' | 'budget'; limit: number; retryAfter: number };

export interface RateLimiter {
    /**
     * Stage one, before authentication and without I/O: the seconds an address stays refused as a
     * whole, or null. Known from this replica's own failure counts and from every charge, which
     * reads the address's shared failure count in the same operation.
     */
    refusal(address: string): number | null;
    /** Stage two, after authentication: one counter operation charging the request's budget. */
    charge(subject: Chargeable, address: string): Promise<Decision>;
    /** a failed authentication from the address (spec Limits lists which failures count) */
    recordFailure(address: string): Promise<void>;
    /** whether the counter store answers (GET /health/ready) */
    storeReachable(): Promise<boolean>;
    close(): Promise<void>;
}

export interface LimiterOptions {
    store: CounterStore;
    settings: LimitSettings;
    /** distinguishes deployments (and parallel test runs) sharing one Redis */
    prefix: string;
    clock?: () => number;
    /** a store failure: the request is let through (the limiter fails open) and this reports it */
    onStoreError?: (error: unknown) => void;
}

export function createRateLimiter(options: LimiterOptions): RateLimiter {
    const { store, settings, prefix } = options;
    const clock = options.clock ?? Date.now;
    const report = options.onStoreError ?? (() => undefined);
    let reportedAt = -Infinity;
    // an unreachable store fails every request: reported every ten seconds, not every request
    const onStoreError = (error: unknown) => {
        const now = Date.now();
        if (now - reportedAt < 10_000) return;
        reportedAt = now;
        report(error);
    };
    /** address → end of the window it is refused for */
    const refused = new Map<string, number>();

    const windowOf = (now: number) => {
        const index = Math.floor(now / WINDOW_MS);
        const end = (index + 1) * WINDOW_MS;
        return { index, end, ttl: end - now + KEY_GRACE_MS, seconds: Math.max(1, Math.ceil((end - now) / 1000)) };
    };
    const failureKey = (address: string, index: number) => `${prefix}f:${address}:${index}`;

    const refuse = (address: string, end: number, now: number) => {
        if (refused.size > 10_000) for (const [key, until] of refused) if (until <= now) refused.delete(key);
        refused.set(address, end);
    };

    return {
        refusal(address) {
            const until = refused.get(address);
            if (until === undefined) return null;
            const now = clock();
            if (until <= now) {
                refused.delete(address);
                return null;
            }
            return Math.max(1, Math.ceil((until - now) / 1000));
        },
        async charge(subject, address) {
            const now = clock();
            const window = windowOf(now);
            const limit = subject === null ? settings.anonymousMax : subject.kind === 'user' ? settings.userMax : settings.clientMax;
            const key = subject === null ? `${prefix}a:${address}:${window.index}` : `${prefix}${subject.kind[0]}:${subject.id}:${window.index}`;
            let count: number;
            let failures: number;
            try {
                [count, failures] = await store.incrementAndRead(key, failureKey(address, window.index), window.ttl);
            } catch (error) {
                onStoreError(error);
                return { allowed: true, limit, remaining: limit, resetSeconds: window.seconds };
            }
            if (failures >= settings.failureMax) {
                refuse(address, window.end, now);
                return { allowed: false, reason: 'address', limit, retryAfter: window.seconds };
            }
            if (count > limit) return { allowed: false, reason: 'budget', limit, retryAfter: window.seconds };
            return { allowed: true, limit, remaining: limit - count, resetSeconds: window.seconds };
        },
        async recordFailure(address) {
            const now = clock();
            const window = windowOf(now);
            try {
                const [failures] = await store.incrementAndRead(failureKey(address, window.index), null, window.ttl);
                if (failures >= settings.failureMax) refuse(address, window.end, now);
            } catch (error) {
                onStoreError(error);
            }
        },
        storeReachable: () => store.reachable?.() ?? Promise.resolve(true),
        close: () => store.close(),
    };
}
