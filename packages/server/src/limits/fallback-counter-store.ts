import type { CounterStore } from './counter-store.js';

/** What the fallback reports: an outage once when it begins, and its end. */
export interface FallbackReport {
    outage(error: unknown): void;
    recovered(): void;
}

/**
 * Rate limits do not fail open (spec Limits: the failure lockout must hold): while the
 * shared store (Redis) does not answer, counting goes on in process — per replica, so a lockout
 * is no longer shared, but an address still meets its 300-failure limit. Every call tries the
 * primary first (ioredis without an offline queue refuses at once while disconnected), so counting
 * returns to Redis as soon as it answers. The outage is reported once, not per request.
 */
export function createFallbackCounterStore(primary: CounterStore, fallback: CounterStore, report: FallbackReport): CounterStore {
    let down = false;
    const either = async <T>(operation: (store: CounterStore) => Promise<T>): Promise<T> => {
        try {
            const result = await operation(primary);
            if (down) {
                down = false;
                report.recovered();
            }
            return result;
        } catch (error) {
            if (!down) {
                down = true;
                report.outage(error);
            }
            return operation(fallback);
        }
    };
    return {
        incrementAndRead: (key, watched, ttlMs) => either((store) => store.incrementAndRead(key, watched, ttlMs)),
        read: (key) => either((store) => store.read(key)),
        put: (key, value, ttlMs) => either((store) => store.put(key, value, ttlMs)),
        // ready means Redis answers, not that the in-process fallback does
        reachable: () => primary.reachable?.() ?? Promise.resolve(true),
        async close() {
            await Promise.all([primary.close(), fallback.close()]);
        },
    };
}
