import { issue, validationFailed, type Issue } from '../../errors/app-error.js';
import type { RequestContext } from '../../authz/request-context.js';
import { collectEntries, QUERY_ISSUE } from '../../query/raw.js';
import { parseFilter } from '../../query/parse-filter.js';
import type { CollectionQuerySpec, QueryCondition } from '../../query/types.js';
import { selectEventStats, STAT_DIMENSIONS, type StatDimension, type StatsSelection, type TimeBound } from '../../storage/event-stats.js';
import type { ResourceDefinition } from '../resource/context.js';
import type { ResourceDeps } from '../resource/deps.js';
import { permissionFor, realmMatchOf } from '../resource/spec.js';

/**
 * The thirteen collections with a statistic (spec v1.0.0-beta.67 item 1, "Schema and statistics
 * facets"): the event log itself, and the administered entities whose creations it counts. The
 * spec does not list them; these are the realm and its realm-bound entities with created entries
 * (sessions: `session.created` at each login), not the junctions.
 */
export const STATISTIC_COLLECTIONS: ReadonlySet<string> = new Set([
    'realms', 'users', 'clients', 'roles', 'permissions', 'policies', 'scopes', 'paths', 'keys', 'sessions',
    'user-attributes', 'role-attributes', 'events',
]);

const GROUP = /^bucket\(\s*createdAt\s*,\s*(hour|day|month)\s*\)((?:\s*,\s*[A-Za-z]+)*)$/;

export interface StatBucket {
    bucket: string;
    count: number;
    [dimension: string]: string | number | null;
}

export interface StatsResult {
    data: StatBucket[];
    meta: { total: number; group: string[]; aggregate: 'count' };
}

/** The event log filters and groups by every aggregate dimension; an entity's statistic by realm only. */
function dimensionsOf(definition: ResourceDefinition): StatDimension[] {
    return definition.spec.collection === 'events' ? Object.keys(STAT_DIMENSIONS) as StatDimension[] : ['realmId'];
}

function querySpec(dimensions: readonly StatDimension[]): CollectionQuerySpec {
    const fields: CollectionQuerySpec['fields'] = { createdAt: { column: 'created_at', type: 'date' } };
    for (const dimension of dimensions) {
        fields[dimension] = dimension === 'realmId' ? { column: 'realm_id', type: 'uuid', nullable: true } : { column: STAT_DIMENSIONS[dimension], type: 'string' };
    }
    return { fields };
}

interface ParsedStats {
    unit: 'hour' | 'day' | 'month';
    groups: StatDimension[];
    from: TimeBound | null;
    to: TimeBound | null;
    condition: QueryCondition | null;
}

function bound(value: string | number, inclusive: boolean): TimeBound {
    return { at: new Date(value), inclusive };
}

/** `filter[...]`, `group=bucket(createdAt, hour|day|month)[,dimension…]`, `aggregate=count` (spec "Schema and statistics facets"). */
function parseStatsQuery(raw: Record<string, unknown>, dimensions: readonly StatDimension[]): ParsedStats {
    const issues: Issue[] = [];
    const filters: Record<string, unknown> = {};
    let group: unknown;
    let aggregate: unknown = 'count';
    for (const [key, value] of Object.entries(raw)) {
        if (key === 'group') group = value;
        else if (key === 'aggregate') aggregate = value;
        else if (key === 'filter' || key.startsWith('filter[')) filters[key] = value;
        else issues.push(issue([key], QUERY_ISSUE.unknownParameter, 'A statistic takes filter, group and aggregate.'));
    }
    if (aggregate !== 'count') issues.push(issue(['aggregate'], 'invalid_aggregate', 'The aggregate is count.'));
    const match = typeof group === 'string' ? GROUP.exec(group) : null;
    const groups: StatDimension[] = [];
    if (!match) {
        issues.push(issue(['group'], 'invalid_group', 'The first group is bucket(createdAt, hour|day|month).'));
    } else {
        for (const name of match[2]!.split(',').map((part) => part.trim()).filter(Boolean)) {
            if (!(dimensions as readonly string[]).includes(name)) issues.push(issue(['group'], 'invalid_group', `${name} is not a group of this statistic (${dimensions.join(', ')}).`));
            else if (!groups.includes(name as StatDimension)) groups.push(name as StatDimension);
        }
    }
    const condition = parseFilter(collectEntries(filters, issues).filter((entry) => entry.parameter === 'filter'), querySpec(dimensions), issues);
    // the filter is an AND of field conditions: the createdAt bounds apart, the rest to SQL
    const parts = condition === null ? [] : condition.operator === 'and' ? condition.conditions : [condition];
    let from: TimeBound | null = null;
    let to: TimeBound | null = null;
    const rest: QueryCondition[] = [];
    for (const part of parts) {
        if (!('field' in part) || part.field !== 'createdAt') {
            rest.push(part);
            continue;
        }
        if (part.operator === 'gt' || part.operator === 'gte') {
            const next = bound(part.value, part.operator === 'gte');
            if (!from || next.at > from.at) from = next;
        } else if (part.operator === 'lt' || part.operator === 'lte') {
            const next = bound(part.value, part.operator === 'lte');
            if (!to || next.at < to.at) to = next;
        }
    }
    if (!from && issues.length === 0) issues.push(issue(['filter', 'createdAt'], 'missing_lower_bound', 'A statistic needs a lower bound on createdAt (> or >=).'));
    if (issues.length > 0) throw validationFailed(issues);
    return {
        unit: match![1] as ParsedStats['unit'],
        groups,
        from,
        to,
        condition: rest.length === 0 ? null : rest.length === 1 ? rest[0]! : { operator: 'and', conditions: rest },
    };
}

/**
 * `GET /<collection>/@stats` (spec "Schema and statistics facets", Events 1): counts per bucket of
 * createdAt — of the collection's created entries, or of the event log's entries — read from the
 * raw events (hour) or the daily aggregates (day, month). Realm-gated like a list: counts of a
 * realm the caller may not read the collection in are left out, never answered 403 (a foreign
 * realm's statistic is simply empty to it).
 */
export async function statsOf(deps: ResourceDeps, definition: ResourceDefinition, ctx: RequestContext, raw: Record<string, unknown>): Promise<StatsResult> {
    const { spec } = definition;
    const parsed = parseStatsQuery(raw, dimensionsOf(definition));
    const selection: StatsSelection = {
        unit: parsed.unit,
        from: parsed.from!,
        to: parsed.to,
        condition: parsed.condition,
        groups: parsed.groups,
        created: spec.collection === 'events' ? null : { name: `${spec.entity}.created`, refType: spec.entity },
        realmId: ctx.routeRealmId,
    };
    const rows = await selectEventStats(deps.db, deps.handle.dialect, selection);
    const authorizer = await ctx.authorizer();
    const permission = permissionFor(spec, 'read');
    const allowed = new Map<string | null, boolean>();
    const merged = new Map<string, StatBucket>();
    for (const row of rows) {
        if (!allowed.has(row.realmId)) allowed.set(row.realmId, authorizer.allows(permission, realmMatchOf(row.realmId)));
        if (!allowed.get(row.realmId)) continue;
        const dimensions: Record<string, string | null> = { ...row.dimensions };
        if (parsed.groups.includes('realmId')) dimensions.realmId = row.realmId;
        const key = JSON.stringify([row.bucket, ...parsed.groups.map((group) => dimensions[group])]);
        const entry = merged.get(key) ?? { bucket: bucketLabel(parsed.unit, row.bucket), ...dimensions, count: 0 };
        entry.count += row.count;
        merged.set(key, entry);
    }
    const data = [...merged.values()].sort((a, b) => a.bucket.localeCompare(b.bucket) || JSON.stringify(a).localeCompare(JSON.stringify(b)));
    return { data, meta: { total: data.length, group: [`bucket(createdAt,${parsed.unit})`, ...parsed.groups], aggregate: 'count' } };
}

/** ISO 8601: an hour bucket as its start instant, a day as `YYYY-MM-DD`, a month as `YYYY-MM`. */
function bucketLabel(unit: ParsedStats['unit'], bucket: string): string {
    return unit === 'hour' ? `${bucket}:00:00.000Z` : bucket;
}
