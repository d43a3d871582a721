/**
 * A size-bounded map with least-recently-used eviction (no unbounded cache) and
 * the counters /metrics reports. One job: remember values under string keys, forget the least
 * recently used one past the bound, and forget on demand (`invalidate`). What a value means, and
 * when it must be forgotten, is its owner's business (cache/registry.ts wires owners to the bus).
 */
export interface CacheStats {
    name: string;
    size: number;
    bound: number;
    hits: number;
    misses: number;
    evictions: number;
    invalidations: number;
}

export class BoundedCache<V> {
    /** a Map iterates in insertion order: re-inserting on a hit makes its first key the least recently used */
    private readonly entries = new Map<string, { value: V; storedAt: number }>();

    private hits = 0;

    private misses = 0;

    private evictions = 0;

    private invalidations = 0;

    /** bumped by every invalidation: a value read from the database before it must not be stored after it */
    private generation = 0;

    /**
     * @param name the metric label (`realmgate_cache_*{cache="…"}`)
     * @param bound the most entries kept; 0 keeps nothing (the cache is off)
     * @param enabled asked on every read and write: false while the bus cannot vouch for the
     *   entries (a lost Redis or PostgreSQL subscription), so nothing is served nor stored meanwhile
     * @param ttlMs how long an entry may serve at most: the safety net under the bus, for an
     *   invalidation a replica never heard (cache/registry.ts)
     */
    constructor(
        readonly name: string,
        readonly bound: number,
        private readonly enabled: () => boolean = () => true,
        private readonly ttlMs = Infinity,
        private readonly clock: () => number = Date.now,
    ) {
        if (!Number.isInteger(bound) || bound < 0) throw new Error(`cache ${name}: the bound must be a non-negative integer`);
    }

    get(key: string): V | undefined {
        if (this.bound === 0 || !this.enabled()) {
            this.misses++;
            return undefined;
        }
        const entry = this.entries.get(key);
        if (entry === undefined || this.clock() - entry.storedAt >= this.ttlMs) {
            if (entry !== undefined) this.entries.delete(key);
            this.misses++;
            return undefined;
        }
        this.hits++;
        this.entries.delete(key);
        this.entries.set(key, entry);
        return entry.value;
    }

    /**
     * The generation to hand back to `set` with a value read after this call: an invalidation in
     * between (a write committed while the read was in flight) makes that `set` a no-op.
     */
    mark(): number {
        return this.generation;
    }

    set(key: string, value: V, generation = this.generation): void {
        if (this.bound === 0 || !this.enabled() || generation !== this.generation) return;
        this.entries.delete(key);
        this.entries.set(key, { value, storedAt: this.clock() });
        while (this.entries.size > this.bound) {
            this.entries.delete(this.entries.keys().next().value!);
            this.evictions++;
        }
    }

    /** The value under `key`, loaded (and remembered unless an invalidation raced the load) on a miss. */
    async through(key: string, load: () => Promise<V | undefined>): Promise<V | undefined> {
        const cached = this.get(key);
        if (cached !== undefined) return cached;
        const generation = this.mark();
        const loaded = await load();
        if (loaded !== undefined) this.set(key, loaded, generation);
        return loaded;
    }

    /** Forget one key, or (no key) everything; every invalidation also voids the loads in flight. */
    invalidate(key?: string): void {
        this.generation++;
        this.invalidations++;
        if (key === undefined) this.entries.clear();
        else this.entries.delete(key);
    }

    /** Forget every key `matches` accepts (a realm's entries, an identity's). */
    invalidateWhere(matches: (key: string) => boolean): void {
        this.generation++;
        this.invalidations++;
        for (const key of [...this.entries.keys()]) if (matches(key)) this.entries.delete(key);
    }

    stats(): CacheStats {
        return {
            name: this.name, size: this.entries.size, bound: this.bound,
            hits: this.hits, misses: this.misses, evictions: this.evictions, invalidations: this.invalidations,
        };
    }
}
