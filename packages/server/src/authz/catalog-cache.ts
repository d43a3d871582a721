import type { AuthorizationCatalog } from '@realmgate/access';
import type { Kysely } from 'kysely';
import type { BoundedCache } from '../cache/bounded-cache.js';
import type { Database } from '../db/schema.js';
import { buildCatalog } from './catalog.js';
import type { GrantRows } from './grants.js';

/**
 * One catalog per process, rebuilt after a definition-layer write in this process, when the bus
 * tells of one on another replica (`announce` publishes, `invalidateLocally`
 * hears), and at most `ttlMs` after a write whose announcement was lost (asked at each read when a
 * function: short while the bus does not hear, wire.ts). Building is
 * O(definitions + policies); requests pay only for their own grants. A rebuild that finds nothing
 * changed hands out the same object.
 */
export class CatalogCache {
    private current: { catalog: AuthorizationCatalog; builtAt: number; version: number } | null = null;

    private pending: Promise<AuthorizationCatalog> | null = null;

    private version = 0;

    private fingerprint: string | null = null;

    constructor(
        private readonly db: Kysely<Database>,
        private readonly ttlMs: number | (() => number) = 2_000,
        private readonly clock: () => number = Date.now,
        private readonly announce: () => void = () => undefined,
        /**
         * the identities' grant rows (fewer database round trips on the hot paths), beside the definitions they name: every
         * decision reaches both through this object; emptied with the catalog and by the bus (wire.ts)
         */
        readonly grants?: BoundedCache<GrantRows>,
    ) {}

    async get(): Promise<AuthorizationCatalog> {
        const { current } = this;
        const ttlMs = typeof this.ttlMs === 'function' ? this.ttlMs() : this.ttlMs;
        if (current && current.version === this.version && this.clock() - current.builtAt < ttlMs) {
            return current.catalog;
        }
        if (!this.pending) {
            const version = this.version;
            const builtAt = this.clock();
            this.pending = buildCatalog(this.db)
                .then((built) => {
                    // an unchanged rebuild keeps the previous object, so everything derived from it
                    // and cached by identity (evaluator projections, serialized catalog bodies) survives
                    const fingerprint = JSON.stringify(built);
                    const catalog = current && this.fingerprint === fingerprint ? current.catalog : built;
                    this.fingerprint = fingerprint;
                    this.current = { catalog, builtAt, version };
                    return catalog;
                })
                .finally(() => {
                    this.pending = null;
                });
        }
        return this.pending;
    }

    /** Call after any write to permissions, policies or permission-policies: here and, through the bus, on every replica. */
    invalidate(): void {
        this.version++;
        this.grants?.invalidate();
        this.announce();
    }

    /** What the bus calls when another replica (or a resync) says the definitions changed. */
    invalidateLocally(): void {
        this.version++;
        this.grants?.invalidate();
    }
}
