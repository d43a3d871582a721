/**
 * The list-query module's entry point (API.md §2): parse a request's query against a collection's
 * allow-lists, and translate the result to Kysely with matchCondition's semantics.
 */
export { parseListQuery } from './parse.js';
export { QUERY_ISSUE, QUERY_PARAMETERS } from './raw.js';
export { DEFAULT_LIMIT, DEFAULT_MAX_LIMIT } from './parse-page.js';
export { defaultFields } from './parse-fields.js';
export { andConditions, matchQueryCondition } from './match.js';
export { applyCondition, applyPage, applySort, escapeLike } from './sql.js';
export type { ConditionSqlOptions } from './sql.js';
export { columnsFromSpec } from './sql-column.js';
export type { ColumnRef, ColumnResolver, ColumnTarget, ColumnType, SqlDialect } from './sql-column.js';
export type {
    CollectionQuerySpec,
    ContainsCondition,
    ListQuery,
    QueryCondition,
    QueryFieldCondition,
    QueryFieldSpec,
    QueryFieldType,
    RelationQuerySpec,
    SortItem,
} from './types.js';
