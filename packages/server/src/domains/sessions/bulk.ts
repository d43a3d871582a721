import { ErrorCode } from '@realmgate/core';
import type { RequestContext } from '../../authz/request-context.js';
import { forbidden, AppError, issue, validationFailed, type Issue } from '../../errors/app-error.js';
import { parseListQuery } from '../../query/parse.js';
import { QUERY_ISSUE } from '../../query/raw.js';
import type { QueryCondition } from '../../query/types.js';
import { applyCondition } from '../../storage/list-query/sql.js';
import type { Tx, ResourceDefinition } from '../resource/context.js';
import type { ResourceDeps } from '../resource/deps.js';
import { lowerable, rowData } from '../resource/read.js';
import { querySpecOf } from '../resource/query-spec.js';
import { selectRowsWhere, type RowCondition } from '../../storage/resource/rows.js';
import { listColumns, relationVerdicts, type RelationVerdicts } from '../resource/relation-columns.js';
import { writeTransaction } from '../../storage/write-transaction.js';
import { hasRealmColumn } from '../../storage/resource/table.js';
import { permissionFor, realmAttributeOf } from '../resource/spec.js';

/*
 * DELETE /sessions and DELETE /session-tokens (spec "Client, user and session routes"): a filter
 * without a flat target key is self-service over the caller's other sessions; a flat target key
 * makes it the administrative force-logout, decided by the delete permission and its reach. A
 * filter that cannot be applied as written answers 400 — never a silently wider or narrower write.
 */

export interface BulkOptions {
    /** flat filter keys that name whose sessions end (spec: id, sub, subKind, userId, clientId, realmId) */
    targetKeys: readonly string[];
    /** the rows of the caller's own other sessions (self-service) */
    ownRows(ctx: RequestContext): RowCondition;
    /** end the matching rows in `tx`; the number ended */
    apply(tx: Tx, where: RowCondition): Promise<number>;
}

/** Rows a `post` verdict may evaluate in memory; beyond it the request needs a narrower filter. */
const POST_EVALUATION_CAP = 5_000;
/** ids per `IN` list when rows were decided one by one */
const CHUNK = 500;

function fieldsOf(condition: QueryCondition | null, out: string[] = []): string[] {
    if (!condition) return out;
    if ('conditions' in condition) condition.conditions.forEach((item) => fieldsOf(item, out));
    else if ('condition' in condition) fieldsOf(condition.condition, out);
    else out.push(condition.field);
    return out;
}

/** Only `filter` applies to a bulk end: a page, sort or projection would change which rows end. */
function refuseOtherParameters(raw: Record<string, unknown>): void {
    const issues: Issue[] = Object.keys(raw)
        .filter((key) => !/^filter(\[|$)/.test(key))
        .map((key) => issue([key.replace(/\[.*$/, '')], QUERY_ISSUE.unknownParameter, 'Only filter applies to a bulk delete.'));
    if (issues.length > 0) throw validationFailed(issues);
}

/**
 * Each relation the filter reaches through, decided by the related read permission: a relation
 * the caller may not read is a filter it cannot apply (400 here, where a list answers 403).
 */
async function verdictsOf(ctx: RequestContext, definition: ResourceDefinition, fields: string[]): Promise<RelationVerdicts> {
    const verdicts: RelationVerdicts = new Map();
    const issues: Issue[] = [];
    for (const key of fields.filter((field) => field.includes('.'))) {
        const relation = key.slice(0, key.indexOf('.'));
        if (verdicts.has(relation)) continue;
        try {
            const one = await relationVerdicts(ctx, definition, { operator: 'eq', field: key, value: null });
            for (const [name, condition] of one) verdicts.set(name, condition);
        } catch (error) {
            if (!(error instanceof AppError) || error.code !== ErrorCode.PERMISSION_DENIED) throw error;
            issues.push(issue(['filter', key], 'relation_not_permitted', `Your permissions do not cover filtering through ${relation}.`));
        }
    }
    if (issues.length > 0) throw validationFailed(issues);
    return verdicts;
}

/** End the rows a bulk request names; the number ended. */
export async function bulkEnd(
    deps: ResourceDeps,
    definition: ResourceDefinition,
    ctx: RequestContext,
    raw: Record<string, unknown>,
    options: BulkOptions,
): Promise<number> {
    const { spec } = definition;
    refuseOtherParameters(raw);
    // unknown keys, malformed values, empty values (filter[userId]=) and equality on dates: 400
    const { filter } = parseListQuery(raw, querySpecOf(definition));
    const fields = fieldsOf(filter);
    const force = fields.some((field) => options.targetKeys.includes(field));
    const verdicts = await verdictsOf(ctx, definition, fields);
    const authorizer = await ctx.authorizer();

    const columnOf = listColumns(definition, verdicts, deps.handle.dialect);
    const sqlOptions = { dialect: deps.handle.dialect };
    const parts: RowCondition[] = [];
    if (filter) parts.push((eb) => applyCondition(eb, filter, columnOf, sqlOptions));
    if (ctx.routeRealmId !== null && hasRealmColumn(spec)) parts.push((eb) => eb('realm_id', '=', ctx.routeRealmId));

    const permission = permissionFor(spec, 'delete');
    let post = false;
    if (force) {
        const verdict = authorizer.compile(permission, realmAttributeOf(spec));
        if (verdict.type === 'deny') throw forbidden(`Ending another identity's sessions needs ${permission}.`);
        const realmNames = spec.realm === 'referenced' ? ['realmId'] : [];
        post = verdict.type === 'post' || (verdict.type === 'conditional' && !lowerable(verdict.condition, definition.fields, realmNames));
        if (verdict.type === 'conditional' && !post) parts.push((eb) => applyCondition(eb, verdict.condition, columnOf, sqlOptions));
    } else {
        parts.push(options.ownRows(ctx));
    }
    const where: RowCondition = (eb) => eb.and(parts.map((part) => part(eb)));

    // the authorizer was loaded above, before the transaction (writeTransaction preloads it again, a no-op)
    return writeTransaction(deps, { preload: () => ctx.authorizer() }, async (tx: Tx) => {
        if (!post) return options.apply(tx, where);
        const candidates = await selectRowsWhere(tx, spec, where, POST_EVALUATION_CAP + 1);
        if (candidates.length > POST_EVALUATION_CAP) throw forbidden('This request needs a narrower filter: its policies must be evaluated row by row.');
        const ids = candidates.filter((row) => authorizer.allows(permission, rowData(definition, row))).map((row) => row.id);
        let ended = 0;
        for (let start = 0; start < ids.length; start += CHUNK) {
            const chunk = ids.slice(start, start + CHUNK);
            ended += await options.apply(tx, (eb) => eb(`${spec.table}.id`, 'in', chunk));
        }
        return ended;
    });
}
