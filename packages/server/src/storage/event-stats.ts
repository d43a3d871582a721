import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { toDbDate, type DialectName } from '../db/values.js';
import type { CollectionQuerySpec, QueryCondition } from '../query/types.js';
import { createdAtBucket } from './events.js';
import { applyCondition } from './list-query/sql.js';
import { columnsFromSpec } from './list-query/sql-column.js';

/** The dimensions a statistic may filter and group by: the aggregate table's (spec Events 1). */
export const STAT_DIMENSIONS = {
    realmId: 'realm_id',
    scope: 'scope',
    name: 'name',
    refType: 'ref_type',
} as const;
export type StatDimension = keyof typeof STAT_DIMENSIONS;

export interface TimeBound {
    at: Date;
    inclusive: boolean;
}

export interface StatsSelection {
    unit: 'hour' | 'day' | 'month';
    from: TimeBound;
    to: TimeBound | null;
    /** the dimension conditions (the parser's, over STAT_DIMENSIONS' names) */
    condition: QueryCondition | null;
    /** the dimensions grouped after the bucket; realmId is always grouped (the caller authorizes per realm) */
    groups: readonly StatDimension[];
    /** the collection's own events: `<entity>.created` of its entity type; null for the event log itself */
    created: { name: string; refType: string } | null;
    /** a realm mount (`/realms/:realmId/<collection>/@stats`) */
    realmId: string | null;
}

export interface StatRow {
    bucket: string;
    realmId: string | null;
    dimensions: Partial<Record<StatDimension, string | null>>;
    count: number;
}

const DIMENSION_SPEC: CollectionQuerySpec = {
    fields: {
        realmId: { column: 'realm_id', type: 'uuid', nullable: true },
        scope: { column: 'scope', type: 'string' },
        name: { column: 'name', type: 'string' },
        refType: { column: 'ref_type', type: 'string' },
    },
};

const dayOf = (date: Date) => date.toISOString().slice(0, 10);

/**
 * Day and month buckets read the daily aggregates (spec Events 1), so their time bounds apply at
 * day granularity: a day is counted when any part of it is inside the range.
 */
function dayBounds(selection: StatsSelection): { from: string; to: string | null; toInclusive: boolean } {
    const to = selection.to;
    if (!to) return { from: dayOf(selection.from.at), to: null, toInclusive: true };
    const midnight = to.at.getTime() % 86_400_000 === 0;
    return { from: dayOf(selection.from.at), to: dayOf(to.at), toInclusive: to.inclusive || !midnight };
}

/** The request's dimension filter, the collection's own entries and the realm mount, as one condition over both tables. */
function dimensionCondition(selection: StatsSelection): QueryCondition {
    const conditions: QueryCondition[] = selection.condition ? [selection.condition] : [];
    if (selection.created) {
        conditions.push({ operator: 'eq', field: 'name', value: selection.created.name }, { operator: 'eq', field: 'refType', value: selection.created.refType });
    }
    if (selection.realmId !== null) conditions.push({ operator: 'eq', field: 'realmId', value: selection.realmId });
    return { operator: 'and', conditions };
}

/**
 * Counts per bucket, realm and the grouped dimensions: hour buckets from the raw events, day and
 * month buckets from auth_event_aggregates (spec Events 1).
 */
export async function selectEventStats(db: Kysely<Database>, dialect: DialectName, selection: StatsSelection): Promise<StatRow[]> {
    const dims = selection.groups.filter((group) => group !== 'realmId').map((group) => STAT_DIMENSIONS[group]);
    const columnOf = columnsFromSpec<Database, 'auth_events' | 'auth_event_aggregates'>(DIMENSION_SPEC);
    type Raw = Record<string, unknown> & { bucket: string; realm_id: string | null; count: number | string | bigint };
    const condition = dimensionCondition(selection);
    let rows: Raw[];
    if (selection.unit === 'hour') {
        const bucket = createdAtBucket(dialect, 'hour');
        let query = db.selectFrom('auth_events')
            .select([bucket.as('bucket'), 'realm_id', ...dims, (eb) => eb.fn.countAll<number>().as('count')])
            .where('created_at', selection.from.inclusive ? '>=' : '>', toDbDate(dialect, selection.from.at))
            .where((eb) => applyCondition(eb, condition, columnOf, { dialect }));
        if (selection.to) query = query.where('created_at', selection.to.inclusive ? '<=' : '<', toDbDate(dialect, selection.to.at));
        rows = await query.groupBy([bucket, 'realm_id', ...dims]).execute() as Raw[];
    } else {
        const bucket = selection.unit === 'day' ? sql<string>`day` : sql<string>`substr(day, 1, 7)`;
        const bounds = dayBounds(selection);
        let query = db.selectFrom('auth_event_aggregates')
            .select([bucket.as('bucket'), 'realm_id', ...dims, (eb) => eb.fn.sum<number>('count').as('count')])
            .where('day', '>=', bounds.from)
            .where((eb) => applyCondition(eb, condition, columnOf, { dialect }));
        if (bounds.to !== null) query = query.where('day', bounds.toInclusive ? '<=' : '<', bounds.to);
        rows = await query.groupBy([bucket, 'realm_id', ...dims]).execute() as Raw[];
    }
    return rows.map((row) => ({
        bucket: row.bucket,
        realmId: row.realm_id,
        dimensions: Object.fromEntries(selection.groups.filter((group) => group !== 'realmId')
            .map((group) => [group, (row[STAT_DIMENSIONS[group]] as string | null) ?? null])),
        count: Number(row.count),
    }));
}
