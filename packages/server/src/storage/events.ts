import { randomUUID } from 'node:crypto';
import { timeOrderedId } from '../db/time-ordered-id.js';
import { sql, type Insertable, type Kysely, type RawBuilder } from 'kysely';
import { prepareInsert } from './prepared-insert.js';
import type { Database, EventTable } from '../db/schema.js';
import { fromDbDate, toDbDate, type DialectName } from '../db/values.js';
import { outsideRequestScope } from '../db/replication.js';

export type EventRow = Insertable<EventTable>;

/** What an event says (spec Events); the row adds its id and time. */
export interface NewEvent {
    name: string;
    /** `api` for administered writes, `auth` for sign-ins, token issuance and session ends */
    scope: string;
    refType: string;
    refId: string | null;
    realmId: string | null;
    actorType?: string | null;
    actorId?: string | null;
    request?: { ip: string | null; method: string | null; path: string | null } | null;
    /** never a withheld column (spec Events 5): callers pass the default-read record only */
    data?: Record<string, unknown> | null;
}

export function eventRowOf(dialect: DialectName, event: NewEvent, at: Date = new Date()): EventRow {
    return {
        id: timeOrderedId(),
        name: event.name,
        scope: event.scope,
        ref_type: event.refType,
        ref_id: event.refId,
        actor_type: event.actorType ?? null,
        actor_id: event.actorId ?? null,
        realm_id: event.realmId,
        request_ip: event.request?.ip?.slice(0, 64) ?? null,
        request_method: event.request?.method ?? null,
        request_path: event.request?.path ?? null,
        data: event.data ? JSON.stringify(event.data) : null,
        created_at: toDbDate(dialect, at),
    };
}

/** Insert event rows, through the caller's transaction when it writes one. */
export async function insertEvents(db: Kysely<Database>, rows: EventRow[]): Promise<void> {
    if (rows.length > 0) await db.insertInto('auth_events').values(rows).execute();
}

/** rows per multi-row INSERT: 13 columns each, far below every dialect's bound-parameter limit */
const MAX_EVENT_BATCH = 100;

/** The detached log's INSERT: compiled once per row count (db/prepared.ts), as a token answer records three entries. */
const insertEventRows = prepareInsert('auth_events', [
    'id', 'name', 'scope', 'ref_type', 'ref_id', 'actor_type', 'actor_id', 'realm_id',
    'request_ip', 'request_method', 'request_path', 'data', 'created_at',
]);

/**
 * Events written beside a request rather than inside its transaction (sign-ins, failures, token
 * issuance): "writing an event never fails the request that caused it" (spec Events). Entries
 * recorded within DETACHED_EVENT_DELAY_MS of each other share one multi-row INSERT, so a login
 * does not wait on a commit of its own; the request never awaits the write and an error is
 * reported to `onError`, never thrown.
 */
export interface DetachedEventLog {
    record(event: NewEvent): void;
    /** resolves once every entry recorded so far is written or reported (shutdown, tests) */
    settled(): Promise<void>;
}

/**
 * How long a detached entry may wait for others to share its INSERT: a token endpoint serving one
 * request at a time would otherwise pay a commit per request for its entries alone (SQLite: about
 * 150 µs, more than the rest of a client_credentials request's SQL). Entries are best effort
 * (so a token answer waits on no event write): a crash loses at most this window's; a shutdown writes them (settled()).
 */
const DETACHED_EVENT_DELAY_MS = 50;

export function createDetachedEventLog(db: Kysely<Database>, dialect: DialectName, onError: (error: unknown) => void): DetachedEventLog {
    const insert = insertEventRows;
    // one queue and one timer for the log, not a promise per entry: a token answer records three
    let queue: EventRow[] = [];
    let timer: ReturnType<typeof setTimeout> | null = null;
    const writing = new Set<Promise<void>>();
    /** a batch, or when it fails, its rows one by one, so only the row at fault is reported */
    const write = async (rows: EventRow[]): Promise<void> => {
        try {
            await insert(db, rows);
        } catch (batchError) {
            if (rows.length === 1) return onError(batchError);
            for (const row of rows) {
                try {
                    await insert(db, [row]);
                } catch (error) {
                    onError(error);
                }
            }
        }
    };
    const flush = () => {
        if (timer !== null) clearTimeout(timer);
        timer = null;
        const taken = queue;
        queue = [];
        for (let start = 0; start < taken.length; start += MAX_EVENT_BATCH) {
            const written: Promise<void> = write(taken.slice(start, start + MAX_EVENT_BATCH)).finally(() => writing.delete(written));
            writing.add(written);
        }
    };
    return {
        record(event) {
            try {
                queue.push(eventRowOf(dialect, event));
            } catch (error) {
                onError(error);
                return;
            }
            // the batch holds entries of several requests: it is written in none of their scopes
            // (db/replication.ts: on the primary, without marking the request as a writer); a full
            // batch goes at once, whatever the delay
            if (queue.length >= MAX_EVENT_BATCH) outsideRequestScope(flush);
            else if (timer === null) timer = outsideRequestScope(() => setTimeout(flush, DETACHED_EVENT_DELAY_MS));
        },
        async settled() {
            while (queue.length > 0 || writing.size > 0) {
                if (queue.length > 0) outsideRequestScope(flush);
                await Promise.all([...writing]);
            }
        },
    };
}

/**
 * The realm's own created and deleted entries outlive it as deployment-wide entries (spec Events
 * 3): released from the realm before its row (and with it, by cascade, its other events and its
 * aggregates) is deleted.
 */
export async function releaseRealmOwnEvents(tx: Kysely<Database>, realmId: string): Promise<void> {
    // counted again, deployment-wide (aggregated = 0): its count under the realm goes with the realm's aggregates
    await tx.updateTable('auth_events').set({ realm_id: null, aggregated: 0 })
        .where('realm_id', '=', realmId).where('ref_type', '=', 'realm').where('ref_id', '=', realmId)
        .where('name', 'in', ['realm.created', 'realm.deleted'])
        .execute();
}

/** `YYYY-MM-DD` (day) or `YYYY-MM-DDTHH` (hour) of created_at, in UTC (the sessions are pinned to UTC). */
export function createdAtBucket(dialect: DialectName, unit: 'day' | 'hour', column = 'created_at'): RawBuilder<string> {
    const ref = sql.ref(column);
    // literals, not parameters: GROUP BY must repeat the SELECT expression exactly (PostgreSQL
    // does not equate two bound parameters)
    if (dialect === 'sqlite') return sql<string>`substr(${ref}, 1, ${sql.lit(unit === 'day' ? 10 : 13)})`;
    if (dialect === 'postgres') return sql<string>`to_char(${ref}, ${sql.lit(unit === 'day' ? 'YYYY-MM-DD' : 'YYYY-MM-DD"T"HH24')})`;
    return sql<string>`date_format(${ref}, ${sql.lit(unit === 'day' ? '%Y-%m-%d' : '%Y-%m-%dT%H')})`;
}

/** One count of the aggregate table (spec Events 1): day, realm, scope, event name, entity type. */
export interface EventCount {
    day: string;
    realmId: string | null;
    scope: string;
    name: string;
    refType: string;
    count: number;
}

/** Counts of the raw events in [from, to) already marked aggregated, per day and aggregate dimension. */
async function countMarkedEventsByDay(db: Kysely<Database>, dialect: DialectName, from: Date, to: Date): Promise<EventCount[]> {
    const day = createdAtBucket(dialect, 'day');
    const rows = await db.selectFrom('auth_events')
        .where(sql<boolean>`aggregated = ${sql.lit(1)}`)
        .select([day.as('day'), 'realm_id', 'scope', 'name', 'ref_type', (eb) => eb.fn.countAll<number | string | bigint>().as('count')])
        .where('created_at', '>=', toDbDate(dialect, from)).where('created_at', '<', toDbDate(dialect, to))
        .groupBy([day, 'realm_id', 'scope', 'name', 'ref_type'])
        .execute();
    return rows.map((row) => ({ day: row.day, realmId: row.realm_id, scope: row.scope, name: row.name, refType: row.ref_type, count: Number(row.count) }));
}

/** `aggregated = 0` as a literal: the partial index of migration 0012 matches only a literal predicate. */
const PENDING = sql<boolean>`aggregated = ${sql.lit(0)}`;

const aggregateKey = ['day', 'realm_key', 'scope', 'name', 'ref_type'] as const;

/**
 * Add `counts` to their days' aggregates (UPSERT; the unique key is day, realm_key, scope, name,
 * ref_type). `counts` holds each key once (PostgreSQL refuses to update a row twice in one statement).
 */
async function addAggregates(tx: Kysely<Database>, dialect: DialectName, counts: readonly EventCount[]): Promise<void> {
    for (let start = 0; start < counts.length; start += 200) {
        const insert = tx.insertInto('auth_event_aggregates').values(counts.slice(start, start + 200).map((count) => ({
            id: randomUUID(), day: count.day, realm_id: count.realmId, scope: count.scope, name: count.name, ref_type: count.refType, count: count.count,
        })));
        if (dialect === 'mysql') {
            await insert.onDuplicateKeyUpdate({ count: sql<number>`count + values(count)` }).execute();
        } else {
            // realm_key is the generated column the unique index is over (migration 0001), not in the row type
            await insert.onConflict((conflict) => conflict.columns(aggregateKey as unknown as Array<'day'>)
                .doUpdateSet({ count: sql<number>`auth_event_aggregates.count + excluded.count` })).execute();
        }
    }
}

/**
 * Replace the aggregates of the days [from, to) by a count of their raw events, in one
 * transaction (no half-filled day is ever read), marking the events counted first and counting
 * the marked ones: an event committed between the two statements stays unmarked and is added by
 * a later incremental pass, never counted twice nor lost.
 */
export async function replaceAggregatesOfDays(db: Kysely<Database>, dialect: DialectName, days: readonly string[], from: Date, to: Date): Promise<void> {
    if (days.length === 0) return;
    await db.transaction().execute(async (tx) => {
        await tx.updateTable('auth_events').set({ aggregated: 1 })
            .where('created_at', '>=', toDbDate(dialect, from)).where('created_at', '<', toDbDate(dialect, to)).where(PENDING)
            .execute();
        const counts = await countMarkedEventsByDay(tx, dialect, from, to);
        await tx.deleteFrom('auth_event_aggregates').where('day', 'in', [...days]).execute();
        await addAggregates(tx, dialect, counts);
    });
}

/** A hook inside the incremental transaction, after the counts are added and before the events are marked (tests: a crash there). */
export type BeforeMark = (tx: Kysely<Database>) => Promise<void>;

/**
 * One incremental step (spec Events 1): up to `limit` events not yet aggregated, created at or
 * after `floor`, oldest first, are added to their days' counts and marked aggregated in ONE
 * transaction, so a failure anywhere leaves both untouched and the next pass counts them again.
 * The mark is conditional (`aggregated = 0`): when it does not mark exactly the events read (a
 * concurrent pass despite the lease, or a realm deletion that released or removed one of them),
 * the transaction is rolled back rather than count an event twice or under a deleted realm.
 * Returns the events counted and their days.
 */
export async function aggregatePendingEvents(
    db: Kysely<Database>, dialect: DialectName, floor: Date, limit: number, beforeMark?: BeforeMark,
): Promise<{ events: number; days: string[] }> {
    return db.transaction().execute(async (tx) => {
        const day = createdAtBucket(dialect, 'day');
        // SQLite: the rowid, which the covering index of migration 0012 holds (the text id is in the table only)
        const key = dialect === 'sqlite' ? sql<string>`rowid` : sql<string>`id`;
        const rows = await tx.selectFrom('auth_events')
            .select([key.as('key'), day.as('day'), 'realm_id', 'scope', 'name', 'ref_type'])
            .where(PENDING).where('created_at', '>=', toDbDate(dialect, floor))
            .orderBy('created_at').limit(limit)
            .execute();
        if (rows.length === 0) return { events: 0, days: [] };
        const counts = new Map<string, EventCount>();
        for (const row of rows) {
            const key = JSON.stringify([row.day, row.realm_id, row.scope, row.name, row.ref_type]);
            const count = counts.get(key);
            if (count) count.count++;
            else counts.set(key, { day: row.day, realmId: row.realm_id, scope: row.scope, name: row.name, refType: row.ref_type, count: 1 });
        }
        await addAggregates(tx, dialect, [...counts.values()]);
        if (beforeMark) await beforeMark(tx);
        let marked = 0;
        for (let start = 0; start < rows.length; start += 500) {
            const keys = rows.slice(start, start + 500).map((row) => row.key);
            const result = await tx.updateTable('auth_events').set({ aggregated: 1 }).where(key, 'in', keys).where(PENDING).executeTakeFirst();
            marked += Number(result.numUpdatedRows);
        }
        if (marked !== rows.length) throw new Error(`event aggregates: marked ${marked} of ${rows.length} events read; rolled back`);
        return { events: rows.length, days: [...new Set(rows.map((row) => row.day))] };
    });
}

/** The earliest day the aggregate table holds, or null. */
export async function earliestAggregateDay(db: Kysely<Database>): Promise<string | null> {
    const row = await db.selectFrom('auth_event_aggregates').select((eb) => eb.fn.min('day').as('day')).executeTakeFirst();
    return row?.day ?? null;
}

/** The time of the latest raw event before `before`, or null. */
export async function latestEventBefore(db: Kysely<Database>, dialect: DialectName, before: Date): Promise<Date | null> {
    const row = await db.selectFrom('auth_events').select('created_at').where('created_at', '<', toDbDate(dialect, before))
        .orderBy('created_at', 'desc').limit(1).executeTakeFirst();
    return row ? fromDbDate(row.created_at) : null;
}

/** Retention (spec Events 3): raw events older than `before`; the number deleted. */
export async function deleteEventsBefore(db: Kysely<Database>, dialect: DialectName, before: Date): Promise<number> {
    const result = await db.deleteFrom('auth_events').where('created_at', '<', toDbDate(dialect, before)).executeTakeFirst();
    return Number(result.numDeletedRows);
}

/** Retention (spec Events 3): aggregates of days before `day` (`YYYY-MM-DD`); the number deleted. */
export async function deleteAggregatesBefore(db: Kysely<Database>, day: string): Promise<number> {
    const result = await db.deleteFrom('auth_event_aggregates').where('day', '<', day).executeTakeFirst();
    return Number(result.numDeletedRows);
}
