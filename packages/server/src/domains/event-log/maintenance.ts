import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { DialectName } from '../../db/values.js';
import {
    aggregatePendingEvents, deleteAggregatesBefore, deleteEventsBefore, earliestAggregateDay, latestEventBefore, replaceAggregatesOfDays,
    type BeforeMark,
} from '../../storage/events.js';

/** What the worker's event sweeps need: the database and the two retentions (spec Events 3). */
export interface EventMaintenanceDeps {
    db: Kysely<Database>;
    handle: { dialect: DialectName };
    config: { eventLogRetentionDays: number; eventLogAggregateRetentionDays: number | undefined };
}

const DAY = 86_400_000;
/** older days backfilled per pass (spec Events 2: seven days per minute) */
const BACKFILL_DAYS = 7;
/**
 * Events one incremental transaction counts: about 12 ms of CPU on SQLite (6 µs an event,
 * test/measure/event-aggregates.ts), so it holds the writer and the event loop only briefly.
 */
const AGGREGATE_BATCH = 2_000;
/**
 * Transactions one pass runs at most: 300,000 events, above a minute of the heaviest load
 * profiled (3,800 events/s); a larger backlog is worked off over several passes.
 */
const AGGREGATE_MAX_BATCHES = 150;

/** How one pass steps (tests shrink the batch and inject a failure). */
export interface AggregateOptions {
    batch?: number;
    maxBatches?: number;
    beforeMark?: BeforeMark;
}

const dayOf = (date: Date): string => date.toISOString().slice(0, 10);
const startOfDay = (date: Date): Date => new Date(Math.floor(date.getTime() / DAY) * DAY);
const addDays = (date: Date, days: number): Date => new Date(date.getTime() + days * DAY);

/** The days [from, to] (start-of-day dates), as `YYYY-MM-DD`. */
function daysBetween(from: Date, to: Date): string[] {
    const days: string[] = [];
    for (let at = from.getTime(); at <= to.getTime(); at += DAY) days.push(dayOf(new Date(at)));
    return days;
}

/**
 * The older days one pass backfills: the seven days ending at the latest raw event before the
 * earliest aggregated day (gaps without events are skipped), never a day the raw retention has
 * already cut into (it would be recounted short) nor one the aggregate retention would drop.
 */
async function backfillRange(deps: EventMaintenanceDeps, now: Date, floor: Date): Promise<{ from: Date; to: Date } | null> {
    const latest = await latestEventBefore(deps.db, deps.handle.dialect, floor);
    if (!latest) return null;
    const to = startOfDay(latest);
    let from = addDays(to, -(BACKFILL_DAYS - 1));
    const rawCut = addDays(startOfDay(addDays(now, -deps.config.eventLogRetentionDays)), 1);
    if (from < rawCut) from = rawCut;
    const aggregateDays = deps.config.eventLogAggregateRetentionDays;
    if (aggregateDays !== undefined) {
        const aggregateCut = startOfDay(addDays(now, -aggregateDays));
        if (from < aggregateCut) from = aggregateCut;
    }
    return from <= to ? { from, to } : null;
}

/**
 * Fill `auth_event_aggregates` (spec Events 1–2; the worker runs it every minute, under its lease).
 *
 * Incremental: each raw event carries `aggregated` (migration 0012), 0 when written. A pass adds
 * the unmarked events created since the floor (the earliest aggregated day, or yesterday) to their
 * days' counts and marks them, in bounded transactions that each add and mark together — so its
 * cost is the events written since the last pass, not the day's traffic, and a crash or a failed
 * statement rolls both back (counted exactly once). A flag rather than a watermark: event ids are
 * random UUIDs (no order), and created_at is no commit order either (the detached writer inserts a
 * batch ~50 ms after its entries' times, two replicas write concurrently), so any "newer than"
 * watermark would need a guessed lag window to be safe; the flag is exact whatever the delay.
 *
 * Older days (before the floor, with no aggregates yet) are backfilled seven per call as whole
 * days, their events marked in the same transaction. A deleted realm's rows go with it; its own
 * entries, released deployment-wide (spec Events 3), are unmarked and counted again. `now` is the
 * caller's clock. Returns the days whose aggregates the pass brought up to date.
 */
export async function fillEventAggregates(deps: EventMaintenanceDeps, now: Date, options: AggregateOptions = {}): Promise<string[]> {
    const { db } = deps;
    const dialect = deps.handle.dialect;
    const today = startOfDay(now);
    const yesterday = addDays(today, -1);
    const earliest = await earliestAggregateDay(db);
    const floor = earliest !== null && earliest < dayOf(yesterday) ? new Date(`${earliest}T00:00:00.000Z`) : yesterday;
    const backfill = await backfillRange(deps, now, floor);

    const days = new Set(daysBetween(yesterday, today));
    const batch = options.batch ?? AGGREGATE_BATCH;
    for (let round = 0; round < (options.maxBatches ?? AGGREGATE_MAX_BATCHES); round++) {
        const step = await aggregatePendingEvents(db, dialect, floor, batch, options.beforeMark);
        for (const day of step.days) days.add(day);
        if (step.events < batch) break;
    }
    if (backfill) {
        const backfilled = daysBetween(backfill.from, backfill.to);
        await replaceAggregatesOfDays(db, dialect, backfilled, backfill.from, addDays(backfill.to, 1));
        for (const day of backfilled) days.add(day);
    }
    return [...days].sort();
}

/**
 * Retention (spec Events 3; a worker sweep): raw events older than EVENT_LOG_RETENTION_DAYS, and
 * aggregates of days older than EVENT_LOG_AGGREGATE_RETENTION_DAYS when it is set (forever
 * otherwise). `now` is the caller's clock. Returns the rows deleted.
 */
export async function sweepEventRetention(deps: EventMaintenanceDeps, now: Date): Promise<{ events: number; aggregates: number }> {
    const events = await deleteEventsBefore(deps.db, deps.handle.dialect, addDays(now, -deps.config.eventLogRetentionDays));
    const aggregateDays = deps.config.eventLogAggregateRetentionDays;
    const aggregates = aggregateDays === undefined ? 0 : await deleteAggregatesBefore(deps.db, dayOf(startOfDay(addDays(now, -aggregateDays))));
    return { events, aggregates };
}
