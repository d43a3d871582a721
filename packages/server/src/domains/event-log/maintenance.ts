import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { DialectName } from '../../db/values.js';
import {
    countEventsByDay, deleteAggregatesBefore, deleteEventsBefore, earliestAggregateDay, latestEventBefore, replaceAggregates,
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
 * Fill `auth_event_aggregates` (spec Events 1–2; the worker runs it every minute): recompute today
 * and yesterday from the raw events, and backfill seven older days per call. A day is replaced as
 * a whole in one transaction, so a deleted realm's rows (gone with the realm) and its own entries
 * counted again as deployment-wide (spec Events 3) show on the days recomputed. `now` is the
 * caller's clock. Returns the days written.
 */
export async function fillEventAggregates(deps: EventMaintenanceDeps, now: Date): Promise<string[]> {
    const { db } = deps;
    const dialect = deps.handle.dialect;
    const today = startOfDay(now);
    const yesterday = addDays(today, -1);
    const earliest = await earliestAggregateDay(db);
    const floor = earliest !== null && earliest < dayOf(yesterday) ? new Date(`${earliest}T00:00:00.000Z`) : yesterday;
    const backfill = await backfillRange(deps, now, floor);

    const days = daysBetween(yesterday, today);
    const counts = await countEventsByDay(db, dialect, yesterday, addDays(today, 1));
    if (backfill) {
        days.push(...daysBetween(backfill.from, backfill.to));
        counts.push(...await countEventsByDay(db, dialect, backfill.from, addDays(backfill.to, 1)));
    }
    await replaceAggregates(db, days, counts);
    return days;
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
