import type { Kysely, Transaction } from 'kysely';
import { classifyDbError } from '../db/errors.js';
import type { Database } from '../db/schema.js';
import type { DialectName } from '../db/values.js';
import { AppError, badRequest, conflict } from '../errors/app-error.js';

/** The transaction a write runs in: every query of the write goes through it. */
export type WriteTx = Transaction<Database>;

/** How to read the row being written: `forUpdate` locks it on the server dialects. */
export interface RowLock {
    forUpdate: boolean;
}

export interface WriteTransactionDeps {
    handle: { dialect: DialectName };
    db: Kysely<Database>;
    catalog: { invalidate(): void };
    /**
     * hears the entity events a committed write recorded (the realtime bus); never of a rollback.
     * Awaited: the write answers once every replica heard them and emptied its caches
     */
    announce?: (events: readonly CommittedEvent[]) => void | Promise<void>;
}

/** An entity event as recorded in the write's transaction (domains/events.ts), announced once committed. */
export interface CommittedEvent {
    name: string;
    refType: string;
    refId: string | null;
    realmId: string | null;
    /** the default-read record: never a withheld column (spec Events 5) */
    data: Record<string, unknown> | null;
    createdAt: Date;
}

export interface WriteTransactionOptions {
    /**
     * Loads what the write's authorization needs outside the transaction (the request's grants
     * and the catalog: `RequestContext.authorizer`). Awaited BEFORE the transaction opens: SQLite
     * has one connection, which the transaction holds, so loading inside it would wait forever.
     */
    preload(): Promise<unknown>;
    /**
     * The write changes what the authorization catalog caches (permissions, policies): the cache
     * is invalidated after the commit — never before (a catalog rebuilt mid-transaction would cache
     * the old definitions) and never after a rollback.
     */
    invalidatesCatalog?: boolean;
}

/** The transactions writeTransaction runs, with the work each defers to its commit. */
const committing = new WeakMap<Kysely<Database>, Array<() => void | Promise<void>>>();
/** The database handle each of those transactions was opened on. */
const roots = new WeakMap<Kysely<Database>, Kysely<Database>>();
/** Per database handle: who hears that grants changed by a write outside the API's ritual (wire.ts: the bus). */
const grantSignals = new WeakMap<Kysely<Database>, () => Promise<void>>();

/**
 * `signal` runs (and is awaited) after the commit of any write that changed an identity's
 * grants without an entity event — an upstream login's role mappings (storage/identity-providers.ts)
 * — so the grants every replica remembers are emptied before that request answers.
 */
export function onGrantsChanged(db: Kysely<Database>, signal: () => Promise<void>): void {
    grantSignals.set(db, signal);
}

/** Called by a write that changed grants outside writeTransaction's entity events: signalled once committed. */
export function grantsChangedAfterCommit(db: Kysely<Database>): void {
    const signal = grantSignals.get(roots.get(db) ?? db);
    if (signal) afterCommit(db, signal);
}
/** The entity events each of those transactions recorded, announced after its commit. */
const announcing = new WeakMap<Kysely<Database>, CommittedEvent[]>();

/**
 * Announces `event` once what `db` wrote is committed (writeTransaction's `announce`), never after
 * a rollback; outside writeTransaction there is no one to tell and the call does nothing.
 */
export function announceAfterCommit(db: Kysely<Database>, event: CommittedEvent): void {
    if (db.isTransaction) announcing.get(db)?.push(event);
}

/**
 * Runs `effect` once what `db` wrote is committed: at once outside a transaction, after the commit
 * of a transaction writeTransaction runs, never after its rollback. For effects outside the
 * database (a back-channel logout must not announce a revocation that is rolled back). A
 * transaction opened elsewhere is not followed: the effect runs at once (best effort).
 */
export function afterCommit(db: Kysely<Database>, effect: () => void | Promise<void>): void {
    const pending = db.isTransaction ? committing.get(db) : undefined;
    if (pending) pending.push(effect);
    else void effect();
}

/** Unique and foreign-key violations are the client's doing: 409 and 400, on every dialect. */
function mapWriteError(error: unknown): never {
    const classified = classifyDbError(error);
    // the constraint and columns name what collided for the log; values never (they may be personal data)
    const detail = classified ? `${classified.kind} violation: ${classified.constraint ?? (classified.columns ?? []).join(',')}` : undefined;
    if (classified?.kind === 'unique') throw conflict(undefined, detail);
    if (classified?.kind === 'foreign_key') {
        const path = classified.columns?.[0] ? [classified.columns[0].replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase())] : ['body'];
        throw badRequest('A referenced entity does not exist (or is still referenced).', [{ path, code: 'invalid_reference', message: 'references no existing entity' }], detail);
    }
    if (classified?.kind === 'not_null' || classified?.kind === 'check') {
        throw badRequest('A required value is missing or invalid.', [{ path: classified.columns?.length ? classified.columns : ['body'], code: 'invalid_value', message: 'is missing or invalid' }], detail);
    }
    throw error;
}

/**
 * A write inside a larger one that writeTransaction runs (a provisioning run applies a whole set
 * of files as one transaction, so nothing is half-applied): it runs in that transaction, and its
 * effects and catalog invalidation wait for that commit, like the larger write's own.
 */
async function joinTransaction<T>(
    deps: WriteTransactionDeps,
    options: WriteTransactionOptions,
    tx: WriteTx,
    lock: RowLock,
    work: (tx: WriteTx, lock: RowLock) => Promise<T>,
): Promise<T> {
    let result: T;
    try {
        result = await work(tx, lock);
    } catch (error) {
        if (error instanceof AppError) throw error;
        return mapWriteError(error);
    }
    if (options.invalidatesCatalog) afterCommit(tx, () => deps.catalog.invalidate());
    return result;
}

/**
 * The one way the administrative API writes (queries live in the storage layer): preload, open the transaction, hand
 * `work` the transaction and the row lock of the dialect (spec beta.64 item 2: writes run under a
 * row lock on PostgreSQL and MySQL; SQLite serialises writers anyway), map constraint violations
 * (db/errors.ts) to 409/400 while an AppError passes as thrown, and invalidate the catalog only
 * once the commit succeeded.
 */
export async function writeTransaction<T>(
    deps: WriteTransactionDeps,
    options: WriteTransactionOptions,
    work: (tx: WriteTx, lock: RowLock) => Promise<T>,
): Promise<T> {
    await options.preload();
    const lock: RowLock = { forUpdate: deps.handle.dialect !== 'sqlite' };
    if (deps.db.isTransaction && committing.has(deps.db)) return joinTransaction(deps, options, deps.db as WriteTx, lock, work);
    let result: T;
    const effects: Array<() => void | Promise<void>> = [];
    const events: CommittedEvent[] = [];
    try {
        result = await deps.db.transaction().execute((tx) => {
            committing.set(tx, effects);
            roots.set(tx, deps.db);
            announcing.set(tx, events);
            return work(tx, lock);
        });
    } catch (error) {
        if (error instanceof AppError) throw error;
        return mapWriteError(error);
    }
    if (options.invalidatesCatalog) deps.catalog.invalidate();
    for (const effect of effects) await effect();
    if (events.length > 0) await deps.announce?.(events);
    return result;
}

/**
 * The protocol's own multi-row writes (a code redemption's session, spent code and refresh token):
 * one transaction, so they commit together — or not at all — and pay one commit instead of one per
 * row (a commit costs several times a row on a disk-backed SQLite file; see
 * `packages/server/test/measure/hot-paths.ts`). No authorization preload and no catalog: the token
 * endpoint authorizes by its own rules. Effects deferred with afterCommit run after the commit, never
 * after a rollback. Inside a transaction already, `work` joins it.
 */
export async function protocolTransaction<T>(db: Kysely<Database>, work: (tx: Kysely<Database>) => Promise<T>): Promise<T> {
    if (db.isTransaction) return work(db);
    const effects: Array<() => void | Promise<void>> = [];
    const result = await db.transaction().execute((tx) => {
        committing.set(tx, effects);
        roots.set(tx, db);
        return work(tx);
    });
    for (const effect of effects) await effect();
    return result;
}
