import type { Condition } from '@realmgate/access';
import { sql } from 'kysely';
import type { ColumnResolver, SqlDialect } from '../../storage/list-query/sql-column.js';
import { columnsFromSpec } from '../../storage/list-query/sql-column.js';
import { applyCondition } from '../../storage/list-query/sql.js';
import { querySpecOf } from './read.js';
import type { QueryCondition } from '../../query/types.js';
import type { RequestContext } from '../../authz/request-context.js';
import { forbidden } from '../../errors/app-error.js';
import type { ResourceDefinition } from './context.js';
import { permissionFor, realmAttributeOf } from './spec.js';

/** The related resource's read decision, compiled once per filtered relation. */
export type RelationVerdicts = Map<string, Condition | null>;

/**
 * `filter[relation.field]` (API.md §2): the related row's column as a correlated scalar subquery,
 * `(SELECT r.col FROM related r WHERE r.id = base.fk AND <caller may read r>)`. A related row the
 * caller may not read yields NULL, so a filter never reveals anything about it; the filter
 * composes with the authorization condition and the count stays exact. The alias keeps a
 * self-relation (a folder's parent) unambiguous.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the generic repository spans every table
export function withRelationColumns(resolve: ColumnResolver<any, string>, definition: ResourceDefinition, verdicts: RelationVerdicts, dialect: SqlDialect): ColumnResolver<any, string> {
    const { spec } = definition;
    return (field) => {
        const dot = field.indexOf('.');
        if (dot === -1) return resolve(field);
        const name = field.slice(0, dot);
        const relation = spec.relations?.[name];
        const related = definition.related?.get(name);
        if (!relation || !related || !verdicts.has(name)) return null;
        const alias = `rel_${name}`;
        // eslint-disable-next-line @typescript-eslint/no-explicit-any
        const relatedColumns = columnsFromSpec<any, string>(querySpecOf(related, false), alias);
        const target = relatedColumns(field.slice(dot + 1));
        if (target === null || typeof target !== 'object' || !('ref' in target)) return null;
        const condition = verdicts.get(name) ?? null;
        return {
            ref: (eb) => {
                let query = eb.selectFrom(`${related.spec.table} as ${alias}`)
                    .select(sql.ref(String(target.ref)).as('value'))
                    .whereRef(`${alias}.id`, '=', `${spec.table}.${relation.column}`);
                if (condition) query = query.where((inner) => applyCondition(inner, condition, relatedColumns, { dialect }));
                return query.limit(1);
            },
            ...(target.type ? { type: target.type } : {}),
        };
    };
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
