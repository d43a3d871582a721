import type { Condition } from '@realmgate/access';
import { columnsFromSpec, type SqlDialect } from '../../storage/list-query/sql-column.js';
import { withRelationColumns, type RelationTarget } from '../../storage/resource/relation-columns.js';
import { withReferencedRealmColumn } from '../../storage/resource/rows.js';
import { querySpecOf } from './query-spec.js';
import type { QueryCondition } from '../../query/types.js';
import type { RequestContext } from '../../authz/request-context.js';
import { forbidden } from '../../errors/app-error.js';
import type { ResourceDefinition } from './context.js';
import { permissionFor, realmAttributeOf } from './spec.js';

/** The related resource's read decision, compiled once per filtered relation. */
export type RelationVerdicts = Map<string, Condition | null>;

/**
 * The columns a list or bulk filter may name: the resource's own, its referenced realm, and the
 * related rows' columns reached through relations, each guarded by the reader's verdict on them.
 */
export function listColumns(definition: ResourceDefinition, verdicts: RelationVerdicts, dialect: SqlDialect): ReturnType<typeof withRelationColumns> {
    const { spec } = definition;
    const own = withReferencedRealmColumn(columnsFromSpec(querySpecOf(definition, false)), spec);
    return withRelationColumns(own, spec.table, (name): RelationTarget | undefined => {
        const relation = spec.relations?.[name];
        const related = definition.related?.get(name);
        if (!relation || !related || !verdicts.has(name)) return undefined;
        return { table: related.spec.table, foreignKey: relation.column, querySpec: querySpecOf(related, false), condition: verdicts.get(name) ?? null };
    }, dialect);
}

function relationsOf(condition: QueryCondition | null, out = new Set<string>()): Set<string> {
    if (!condition) return out;
    if ('conditions' in condition) condition.conditions.forEach((item) => relationsOf(item, out));
    else if ('condition' in condition) relationsOf(condition.condition, out);
    else if (condition.field.includes('.')) out.add(condition.field.slice(0, condition.field.indexOf('.')));
    return out;
}

/**
 * Compile the related read permission of every relation the filter reaches through: deny refuses
 * the filter, a row condition goes into the subquery, post (unlowerable) is refused too.
 */
export async function relationVerdicts(ctx: RequestContext, definition: ResourceDefinition, filter: QueryCondition | null): Promise<RelationVerdicts> {
    const verdicts: RelationVerdicts = new Map();
    const names = relationsOf(filter);
    if (names.size === 0) return verdicts;
    const authorizer = await ctx.authorizer();
    for (const name of names) {
        const related = definition.related?.get(name);
        if (!related) continue;
        const verdict = authorizer.compile(permissionFor(related.spec, 'read'), realmAttributeOf(related.spec));
        if (verdict.type === 'deny' || verdict.type === 'post') {
            throw forbidden(`You may not filter through ${name}.`);
        }
        verdicts.set(name, verdict.type === 'conditional' ? verdict.condition : null);
    }
    return verdicts;
}
