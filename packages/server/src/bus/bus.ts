/**
 * The realtime bus: what one replica tells the others and its own listeners — an administered
 * entity changed (after its commit), or the authorization definitions changed so every cached
 * catalog must be rebuilt. Over Redis when REDIS_URL is set (redis-bus.ts), else over PostgreSQL's
 * LISTEN/NOTIFY on PostgreSQL (postgres-bus.ts), so every replica of a deployment hears every
 * change; in process otherwise (setup.ts).
 */

/** An entity event as the bus carries it: never a column withheld from default reads (spec Events 5). */
export interface EntityEvent {
    /** `<entity>.created|updated|deleted`, `client.secretRotated`… (the event log's name) */
    name: string;
    /** the entity type (the resource's `entity`, e.g. `user`) */
    entity: string;
    /** the row's id */
    id: string | null;
    /** the realm the row belongs to; null for a global row or a realm's own entries (spec Events 3) */
    realmId: string | null;
    /** the default-read record of the row after the change (before it, for a delete) */
    data: Record<string, unknown> | null;
    /** ISO 8601 */
    createdAt: string;
}

export type BusMessage =
    | { kind: 'entity'; event: EntityEvent }
    /** the authorization definitions changed: rebuild the catalog before the next decision */
    | { kind: 'catalog' }
    /** the shared bus was away and may have lost messages: drop every cache that listens to it */
    | { kind: 'resync' }
    /** an identity's grants changed without an entity event (an upstream login's role mappings): drop remembered grants */
    | { kind: 'grants' };

export type BusListener = (message: BusMessage) => void;

export interface Bus {
    /** true when the messages reach the other replicas (Redis, PostgreSQL), false in process only */
    readonly shared: boolean;
    /**
     * whether this process hears every message now: always in process; over Redis or PostgreSQL,
     * false from a lost subscription until its resync (caches serve nothing meanwhile, cache/registry.ts)
     */
    readonly live: boolean;
    /** delivered to this process's listeners at once and, when shared, to every other replica; never throws */
    publish(message: BusMessage): void;
    /**
     * `publish`, settled once every replica subscribed when it was sent has delivered it to its
     * listeners (a write answers only after every replica forgot what it cached), or
     * after a bounded wait for one that does not answer (reported). In process: at once. Never rejects.
     */
    publishSettled(message: BusMessage): Promise<void>;
    /** returns the unsubscribe function */
    subscribe(listener: BusListener): () => void;
    close(): Promise<void>;
}

/** The listeners of one process; a throwing listener is reported and does not stop the others. */
export function createListeners(report: (error: unknown) => void) {
    const listeners = new Set<BusListener>();
    return {
        add(listener: BusListener): () => void {
            listeners.add(listener);
            return () => listeners.delete(listener);
        },
        deliver(message: BusMessage): void {
            for (const listener of listeners) {
                try {
                    listener(message);
                } catch (error) {
                    report(error);
                }
            }
        },
        clear(): void {
            listeners.clear();
        },
    };
}

/** The bus of a single process (SQLite, or MySQL without REDIS_URL): its own listeners only. */
export function createMemoryBus(report: (error: unknown) => void = () => undefined): Bus {
    const listeners = createListeners(report);
    return {
        shared: false,
        live: true,
        publish: (message) => listeners.deliver(message),
        async publishSettled(message) {
            listeners.deliver(message);
        },
        subscribe: (listener) => listeners.add(listener),
        async close() {
            listeners.clear();
        },
    };
}
