import { randomUUID } from 'node:crypto';
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
        id: randomUUID(),
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
 * issuance): "writing an event never fails the request that caused it" (issue 15). Entries
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
 * (issue 15): a crash loses at most this window's; a shutdown writes them (settled()).
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
    await tx.updateTable('auth_events').set({ realm_id: null })
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

/** Counts of the raw events in [from, to), per day and aggregate dimension. */
export async function countEventsByDay(db: Kysely<Database>, dialect: DialectName, from: Date, to: Date): Promise<EventCount[]> {
    const day = createdAtBucket(dialect, 'day');
    const rows = await db.selectFrom('auth_events')
        .select([day.as('day'), 'realm_id', 'scope', 'name', 'ref_type', (eb) => eb.fn.countAll<number | string | bigint>().as('count')])
        .where('created_at', '>=', toDbDate(dialect, from)).where('created_at', '<', toDbDate(dialect, to))
        .groupBy([day, 'realm_id', 'scope', 'name', 'ref_type'])
        .execute();
    return rows.map((row) => ({ day: row.day, realmId: row.realm_id, scope: row.scope, name: row.name, refType: row.ref_type, count: Number(row.count) }));
}

/** Replace the aggregates of the given days by `counts`, in one transaction (no half-filled day is ever read). */
export async function replaceAggregates(db: Kysely<Database>, days: readonly string[], counts: readonly EventCount[]): Promise<void> {
    if (days.length === 0) return;
    await db.transaction().execute(async (tx) => {
        await tx.deleteFrom('auth_event_aggregates').where('day', 'in', [...days]).execute();
        for (let start = 0; start < counts.length; start += 200) {
            await tx.insertInto('auth_event_aggregates').values(counts.slice(start, start + 200).map((count) => ({
                id: randomUUID(), day: count.day, realm_id: count.realmId, scope: count.scope, name: count.name, ref_type: count.refType, count: count.count,
            }))).execute();
        }
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
