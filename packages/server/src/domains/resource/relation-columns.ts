import type { ColumnResolver } from '../../http/query/sql-column.js';
import { columnsFromSpec } from '../../http/query/sql-column.js';
import type { QueryCondition } from '../../http/query/index.js';
import type { RequestContext } from '../../http/context.js';
import { forbidden } from '../../http/errors.js';
import type { ResourceDefinition } from './context.js';
import { permissionFor, realmAttributeOf } from './spec.js';

/**
 * `filter[relation.field]` (API.md §2): the related row's column as a correlated scalar subquery,
 * `(SELECT r.col FROM related r WHERE r.id = base.fk)`, so the filter composes with the
 * authorization condition and the count stays exact. The alias keeps a self-relation (a folder's
 * parent) unambiguous.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the generic repository spans every table
export function withRelationColumns(resolve: ColumnResolver<any, string>, definition: ResourceDefinition): ColumnResolver<any, string> {
    const { spec } = definition;
    return (field) => {
        const dot = field.indexOf('.');
        if (dot === -1) return resolve(field);
        const name = field.slice(0, dot);
        const relation = spec.relations?.[name];
        const related = definition.related?.get(name);
        if (!relation || !related) return null;
        // eslint-disable-next-line @typescript-eslint/no-explicit-any
        const target = columnsFromSpec<any, string>({ fields: Object.fromEntries(related.fields.map((f) => [f.name, {
            column: f.column,
            type: f.type === 'integer' ? 'number' : f.type === 'stringList' || f.type === 'json' ? 'string' : f.type,
        }])) })(field.slice(dot + 1));
        if (target === null || typeof target !== 'object' || !('ref' in target)) return null;
        const alias = `rel_${name}`;
        return {
            ref: (eb) => eb.selectFrom(`${related.spec.table} as ${alias}`)
                .select(`${alias}.${String(target.ref)}`)
                .whereRef(`${alias}.id`, '=', `${spec.table}.${relation.column}`)
                .limit(1),
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

/** Filtering through a relation reveals something of the related rows: the caller must be able to read some. */
export async function assertRelationFilters(ctx: RequestContext, definition: ResourceDefinition, filter: QueryCondition | null): Promise<void> {
    const names = relationsOf(filter);
    if (names.size === 0) return;
    const authorizer = await ctx.authorizer();
    for (const name of names) {
        const related = definition.related?.get(name);
        if (!related) continue;
        if (authorizer.compile(permissionFor(related.spec, 'read'), realmAttributeOf(related.spec)).type === 'deny') {
            throw forbidden(`You may not filter through ${name}: you cannot read any ${related.spec.entity}.`);
        }
    }
}
