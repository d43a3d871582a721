import { sql } from 'kysely';
import type { CollectionQuerySpec, QueryCondition } from '../../query/types.js';
import { applyCondition } from '../list-query/sql.js';
import { columnsFromSpec, type ColumnResolver, type SqlDialect } from '../list-query/sql-column.js';
import type { TableName } from '../../db/schema.js';

/** A relation a filter reaches through: the related table, the local foreign key and the reader's verdict on it. */
export interface RelationTarget {
    table: TableName;
    /** the local column holding the related row's id */
    foreignKey: string;
    /** the related resource's fields, as list queries know them */
    querySpec: CollectionQuerySpec;
    /** the related read permission as a row condition; null: every related row is readable */
    condition: QueryCondition | null;
}

/**
 * `filter[relation.field]` (API.md §2): the related row's column as a correlated scalar subquery,
 * `(SELECT r.col FROM related r WHERE r.id = base.fk AND <caller may read r>)`. A related row the
 * caller may not read yields NULL, so a filter never reveals anything about it; the filter
 * composes with the authorization condition and the count stays exact. The alias keeps a
 * self-relation (a folder's parent) unambiguous.
 */
export function withRelationColumns(
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the generic repository spans every table
    resolve: ColumnResolver<any, string>,
    table: TableName,
    relationOf: (name: string) => RelationTarget | undefined,
    dialect: SqlDialect,
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
): ColumnResolver<any, string> {
    return (field) => {
        const dot = field.indexOf('.');
        if (dot === -1) return resolve(field);
        const name = field.slice(0, dot);
        const relation = relationOf(name);
        if (!relation) return null;
        const alias = `rel_${name}`;
        // eslint-disable-next-line @typescript-eslint/no-explicit-any
        const relatedColumns = columnsFromSpec<any, string>(relation.querySpec, alias);
        const target = relatedColumns(field.slice(dot + 1));
        if (target === null || typeof target !== 'object' || !('ref' in target)) return null;
        const { condition } = relation;
        return {
            ref: (eb) => {
                let query = eb.selectFrom(`${relation.table} as ${alias}`)
                    .select(sql.ref(String(target.ref)).as('value'))
                    .whereRef(`${alias}.id`, '=', `${table}.${relation.foreignKey}`);
                if (condition) query = query.where((inner) => applyCondition(inner, condition, relatedColumns, { dialect }));
                return query.limit(1);
            },
            ...(target.type ? { type: target.type } : {}),
        };
    };
}
