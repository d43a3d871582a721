/**
 * Fixed-window counters for the request limits (spec Limits). A key names one counter of one
 * window; it lives until `ttlMs` after its first increment, so a finished window costs nothing.
 */
export interface CounterStore {
    /**
     * Adds one to `key` and reads `watched` in one operation (one Redis round trip): the limiter
     * charges a budget and learns the address's failure count together.
     */
    incrementAndRead(key: string, watched: string | null, ttlMs: number): Promise<[count: number, watched: number]>;
    /** the value of `key` (0 when absent or expired), without changing it */
    read(key: string): Promise<number>;
    /** sets `key` to `value` for `ttlMs` (a lock's end): replaces any value and lifetime it had */
    put(key: string, value: number, ttlMs: number): Promise<void>;
    /** whether the store answers now (GET /health/ready); an in-process store always does */
    reachable?(): Promise<boolean>;
    close(): Promise<void>;
}

interface Counter {
    count: number;
    expiresAt: number;
}

/** How often expired counters are swept out of the in-process map. */
const SWEEP_INTERVAL_MS = 60_000;

/** The in-process store (REDIS_URL unset): one map, swept of expired counters once a minute. */
export function createMemoryCounterStore(clock: () => number = Date.now): CounterStore {
    const counters = new Map<string, Counter>();
    let nextSweep = clock() + SWEEP_INTERVAL_MS;

    const live = (key: string, now: number): Counter | undefined => {
        const counter = counters.get(key);
        if (counter && counter.expiresAt <= now) {
            counters.delete(key);
            return undefined;
        }
        return counter;
    };

    return {
        incrementAndRead(key, watched, ttlMs) {
            const now = clock();
            if (now >= nextSweep) {
                for (const [name, counter] of counters) if (counter.expiresAt <= now) counters.delete(name);
                nextSweep = now + SWEEP_INTERVAL_MS;
            }
            let counter = live(key, now);
            if (!counter) {
                counter = { count: 0, expiresAt: now + ttlMs };
                counters.set(key, counter);
            }
            counter.count += 1;
            const other = watched === null ? 0 : (live(watched, now)?.count ?? 0);
            return Promise.resolve([counter.count, other]);
        },
        read: (key) => Promise.resolve(live(key, clock())?.count ?? 0),
        put(key, value, ttlMs) {
            counters.set(key, { count: value, expiresAt: clock() + ttlMs });
            return Promise.resolve();
        },
        close: () => Promise.resolve(),
    };
}
