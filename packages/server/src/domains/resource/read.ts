import { BuiltInPolicyType, matchCondition, type AuthorizationCompileResult, type Condition } from '@realmgate/access';
import type { PolicyData } from '@realmgate/access';
import { forbidden } from '../../errors/app-error.js';
import type { RequestContext } from '../../authz/request-context.js';
import { defaultFields } from '../../query/parse-fields.js';
import { parseListQuery } from '../../query/parse.js';
import type { ListQuery, QueryCondition } from '../../query/types.js';
import { querySpecOf } from './query-spec.js';
import { listCandidates, listPage, type ListSelection } from '../../storage/resource/list.js';
import { selectRowsByIds } from '../../storage/resource/rows.js';
import type { ResourceDefinition } from './context.js';
import type { ResourceDeps } from './deps.js';
import { recordOf, type EntityRecord, type Row } from './records.js';
import { getRow } from './resolve.js';
import { listColumns, relationVerdicts } from './relation-columns.js';
import { permissionFor, realmAttributeOf, realmMatchOf, realmOfRow, type FieldSpec } from './spec.js';

/** Rows a `post` verdict may evaluate in memory before paging; beyond it the read is refused. */
const POST_EVALUATION_CAP = 5_000;

function conditionFields(condition: QueryCondition, out: string[] = []): string[] {
    if ('conditions' in condition) condition.conditions.forEach((item) => conditionFields(item as QueryCondition, out));
    else if ('condition' in condition) conditionFields(condition.condition as QueryCondition, out);
    else out.push(condition.field);
    return out;
}

/** Evaluation data for a decision about one stored row: its realm (never forgotten) and its record. */
export function rowData(definition: ResourceDefinition, row: Row): PolicyData {
    return {
        ...realmMatchOf(realmOfRow(definition.spec, row)),
        [BuiltInPolicyType.ATTRIBUTES]: recordOf(definition, row),
    };
}

/** Whether a verdict's condition speaks only of this resource's columns (else it must be post-evaluated). */
export function lowerable(condition: Condition, fields: readonly FieldSpec[], extra: readonly string[] = []): boolean {
    const names = new Set([...fields.map((field) => field.name), ...extra]);
    return conditionFields(condition).every((name) => names.has(name));
}

async function withheldAllowed(ctx: RequestContext, definition: ResourceDefinition, field: FieldSpec, row: Row): Promise<boolean> {
    if (definition.hooks.canReadWithheld) return definition.hooks.canReadWithheld(ctx, field, row);
    if (ctx.actor.identity?.id === row.id) return true;
    const authorizer = await ctx.authorizer();
    return authorizer.allows(permissionFor(definition.spec, 'update'), rowData(definition, row));
}

function project(record: EntityRecord, query: ListQuery, definition: ResourceDefinition): EntityRecord {
    if (query.fields.base.length === 0) return record;
    const keep = new Set([...query.fields.base, ...query.fields.added]);
    // members a resource adds beyond its fields (decorateRecord) come with the default projection only
    const fields = new Set(definition.fields.map((field) => field.name));
    const whole = defaultFields(querySpecOf(definition)).every((name) => keep.has(name));
    return Object.fromEntries(Object.entries(record).filter(([key]) => keep.has(key) || (whole && !fields.has(key))));
}

async function shape(ctx: RequestContext, definition: ResourceDefinition, row: Row, query: ListQuery, strict: boolean): Promise<EntityRecord> {
    const withheld: string[] = [];
    for (const name of query.fields.added) {
        const field = definition.fields.find((candidate) => candidate.name === name)!;
        if (await withheldAllowed(ctx, definition, field, row)) withheld.push(name);
        // a foreign row answers 403 on a single read and is redacted in a list (spec client routes)
        else if (strict) throw forbidden(`You may not read ${name} of this ${definition.spec.entity}.`);
    }
    const record = recordOf(definition, row, withheld);
    const reveal = definition.hooks.revealWithheld;
    if (reveal) {
        for (const name of withheld) record[name] = await reveal(definition.fields.find((field) => field.name === name)!, row);
    }
    return project(record, query, definition);
}

/** A row the caller reaches by other means (`@me`: it is the caller), shaped like a single read. */
export async function shapeRow(ctx: RequestContext, definition: ResourceDefinition, row: Row, rawQuery: Record<string, unknown>): Promise<EntityRecord> {
    const query = parseListQuery(pick(rawQuery, ['fields']), querySpecOf(definition, false));
    return shape(ctx, definition, row, query, true);
}

/**
 * `include=relation`: the related record of every row, loaded in one query per relation and each
 * decided by the related resource's own read permission — a related row the caller may not read
 * is included as null, never leaked.
 */
async function attachIncludes(deps: ResourceDeps, definition: ResourceDefinition, ctx: RequestContext, rows: Row[], records: EntityRecord[], query: ListQuery): Promise<void> {
    if (query.include.length === 0 || rows.length === 0) return;
    const authorizer = await ctx.authorizer();
    for (const name of query.include) {
        const relation = definition.spec.relations?.[name];
        const related = definition.related?.get(name);
        if (!relation || !related) continue;
        const ids = [...new Set(rows.map((row) => row[relation.column]).filter((id): id is string => typeof id === 'string'))];
        const relatedRows = await selectRowsByIds(deps.db, related.spec, ids);
        // `fields[client]=+secret` on junction collections (spec "Other resource fields"): the
        // related record's withheld fields, each under the related resource's own rule
        const relatedQuery: ListQuery = { ...query, fields: { base: [], added: query.perRelationFields?.[name]?.added ?? [] }, include: [] };
        const byId = new Map<string, EntityRecord | null>();
        for (const relatedRow of relatedRows) {
            const allowed = relation.readableWithOwner === true ||
                authorizer.allows(permissionFor(related.spec, 'read'), rowData(related, relatedRow));
            byId.set(relatedRow.id, allowed ? await shape(ctx, related, relatedRow, relatedQuery, false) : null);
        }
        rows.forEach((row, index) => {
            const id = row[relation.column];
            records[index]![name] = typeof id === 'string' ? byId.get(id) ?? null : null;
        });
    }
}

export async function readEntity(deps: ResourceDeps, definition: ResourceDefinition, ctx: RequestContext, key: string, rawQuery: Record<string, unknown>): Promise<EntityRecord> {
    const query = parseListQuery(pick(rawQuery, ['fields', 'include']), querySpecOf(definition));
    const row = await getRow(deps.db, definition.spec, ctx, key);
    const authorizer = await ctx.authorizer();
    const own = definition.hooks.ownRows?.(ctx) ?? null;
    if (!own || !matchCondition(own, recordOf(definition, row))) await authorizer.assert(permissionFor(definition.spec, 'read'), rowData(definition, row));
    const record = await shape(ctx, definition, row, query, true);
    await attachIncludes(deps, definition, ctx, [row], [record], query);
    return record;
}

function pick(raw: Record<string, unknown>, keys: string[]): Record<string, unknown> {
    return Object.fromEntries(Object.entries(raw).filter(([key]) => keys.some((allowed) => key === allowed || key.startsWith(`${allowed}[`))));
}

/** A read verdict OR the caller's own rows: deny becomes the own rows, a condition gains them, post stays post (checked per row). */
function widenVerdict(verdict: AuthorizationCompileResult, own: Condition): AuthorizationCompileResult {
    if (verdict.type === 'deny') return { type: 'conditional', condition: own };
    if (verdict.type === 'conditional') return { ...verdict, condition: { operator: 'or', conditions: [verdict.condition, own] } };
    return verdict;
}

export interface ListResult {
    data: EntityRecord[];
    meta: { total: number; limit: number; offset: number };
}

/**
 * A realm-gated list (spec Authentication rule 9): the read permission is compiled into the query,
 * so `total` and pagination stay exact after authorization (API.md §1).
 */
export async function listEntities(deps: ResourceDeps, definition: ResourceDefinition, ctx: RequestContext, rawQuery: Record<string, unknown>): Promise<ListResult> {
    const { spec } = definition;
    const query = parseListQuery(rawQuery, querySpecOf(definition));
    const { limit, offset } = query.page;
    const authorizer = await ctx.authorizer();
    const compiled = authorizer.compile(permissionFor(spec, 'read'), realmAttributeOf(spec));
    // rows the caller reads as their owner (ownRows) widen the read permission's verdict
    const own = definition.hooks.ownRows?.(ctx) ?? null;
    const verdict = own ? widenVerdict(compiled, own) : compiled;
    if (verdict.type === 'deny') return { data: [], meta: { total: 0, limit, offset } };
    // a `referenced` resource's realmId is the referenced row's realm, resolved by withReferencedRealmColumn
    const realmNames = spec.realm === 'referenced' ? ['realmId'] : [];
    const post = verdict.type === 'post' || (verdict.type === 'conditional' && !lowerable(verdict.condition, definition.fields, realmNames));
    const verdicts = await relationVerdicts(ctx, definition, query.filter);
    const columnOf = listColumns(definition, verdicts, deps.handle.dialect);
    const selection: ListSelection = {
        table: spec,
        routeRealmId: ctx.routeRealmId,
        conditions: [...(query.filter ? [query.filter] : []), ...(verdict.type === 'conditional' && !post ? [verdict.condition] : [])],
        sort: query.sort,
        columnOf,
        dialect: deps.handle.dialect,
    };

    if (post) {
        const candidates = await listCandidates(deps.db, selection, POST_EVALUATION_CAP + 1);
        if (candidates.length > POST_EVALUATION_CAP) throw forbidden('This read needs a narrower filter: its policies must be evaluated row by row.');
        const allowed = candidates.filter((row) => (own !== null && matchCondition(own, recordOf(definition, row)))
            || authorizer.allows(permissionFor(spec, 'read'), rowData(definition, row)));
        const page = allowed.slice(offset, offset + limit);
        const data = await Promise.all(page.map((row) => shape(ctx, definition, row, query, false)));
        await attachIncludes(deps, definition, ctx, page, data, query);
        return { data, meta: { total: allowed.length, limit, offset } };
    }

    const { rows: pageRows, total } = await listPage(deps.db, selection, { limit, offset });
    const data = await Promise.all(pageRows.map((row) => shape(ctx, definition, row, query, false)));
    await attachIncludes(deps, definition, ctx, pageRows, data, query);
    return { data, meta: { total, limit, offset } };
}
