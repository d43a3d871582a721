import { BoundedCache, type CacheStats } from './bounded-cache.js';

/**
 * Every cache of the process in one place, so none is unbounded or invisible: /metrics reports each one's size,
 * bound and counters from here, and a resync (the bus lost messages) empties them all at once.
 */
export interface CacheRegistry {
    /** a new bounded cache, registered; names are unique (they label the metrics) */
    create<V>(name: string, bound: number, options?: CacheOptions): BoundedCache<V>;
    /** every registered cache's figures, for /metrics */
    stats(): CacheStats[];
    /** forget everything (a bus resync, a lost subscription) */
    invalidateAll(): void;
}

/**
 * A cache of what the database does not hold (a document fetched from a URL): the bus cannot vouch
 * for its entries, so it answers whether the bus is up or not, with a lifetime of its own. The bus
 * still empties it (a resync, or the writes its owner names).
 */
export interface CacheOptions {
    independentOfBus: true;
    ttlMs: number;
    clock?: () => number;
}

/**
 * @param enabled asked on every read and write of every cache: whether the bus can vouch for the
 *   entries right now (cache/policy.ts)
 */
export function createCacheRegistry(enabled: () => boolean = () => true, ttlMs = Infinity): CacheRegistry {
    const caches = new Map<string, BoundedCache<unknown>>();
    return {
        create<V>(name: string, bound: number, options?: CacheOptions): BoundedCache<V> {
            if (caches.has(name)) throw new Error(`cache ${name} is registered twice`);
            const cache = options ?
                new BoundedCache<V>(name, bound, () => true, options.ttlMs, options.clock) :
                new BoundedCache<V>(name, bound, enabled, ttlMs);
            caches.set(name, cache as BoundedCache<unknown>);
            return cache;
        },
        stats: () => [...caches.values()].map((cache) => cache.stats()),
        invalidateAll() {
            for (const cache of caches.values()) cache.invalidate();
        },
    };
}
