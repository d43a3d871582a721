import { isOperationNodeSource, sql } from 'kysely';
import type { ExpressionBuilder, ReferenceExpression, RawBuilder } from 'kysely';
import type { ConditionScalar } from '@realmgate/access';
import type { CollectionQuerySpec, QueryFieldType } from '../../query/types.js';

export type SqlDialect = 'sqlite' | 'postgres' | 'mysql';

/**
 * What the column holds, as the REST row (and so matchCondition) sees it. With a type, a value of
 * another JS type is settled without the database (it can never be equal), exactly as
 * matchCondition's typeof checks settle it, and the database never sees a value it would reject
 * (PostgreSQL answers `'abc'` against an integer or uuid column with an error, not false).
 */
export type ColumnType = 'string' | 'uuid' | 'number' | 'boolean' | 'date';

export interface ColumnRef<DB, TB extends keyof DB> {
    ref: ReferenceExpression<DB, TB>;
    type?: ColumnType;
}

/** A bare reference (`'auth_users.name'`, an expression) or one with its type (exact semantics). */
export type ColumnTarget<DB, TB extends keyof DB> = ReferenceExpression<DB, TB> | ColumnRef<DB, TB>;

export type ColumnResolver<DB, TB extends keyof DB> = (field: string) => ColumnTarget<DB, TB> | null;

export interface ResolvedColumn {
    expr: RawBuilder<unknown>;
    type: ColumnType | undefined;
}

function isColumnRef<DB, TB extends keyof DB>(target: ColumnTarget<DB, TB>): target is ColumnRef<DB, TB> {
    return typeof target === 'object' && target !== null && 'ref' in target && !isOperationNodeSource(target);
}

export function resolveColumn<DB, TB extends keyof DB>(eb: ExpressionBuilder<DB, TB>, target: ColumnTarget<DB, TB>): ResolvedColumn {
    const ref = isColumnRef(target) ? target.ref : target;
    const type = isColumnRef(target) ? target.type : undefined;
    // A string is a column name, never a value: route it through a reference, not a parameter.
    const node = typeof ref === 'string' ? sql.ref(ref) : typeof ref === 'function' ? ref(eb) : ref;
    return { expr: sql`${node}`, type };
}

const FIELD_COLUMN_TYPES: Record<QueryFieldType, ColumnType> = {
    string: 'string',
    enum: 'string',
    uuid: 'uuid',
    number: 'number',
    boolean: 'boolean',
    date: 'date',
};

/** Typed columns for a collection's own fields (`table.column`); relation fields are the route's to map. */
export function columnsFromSpec<DB, TB extends keyof DB>(spec: CollectionQuerySpec, table?: string): ColumnResolver<DB, TB> {
    return (field) => {
        const found = Object.hasOwn(spec.fields, field) ? spec.fields[field] : undefined;
        if (!found) return null;
        const ref = (table ? `${table}.${found.column}` : found.column) as ReferenceExpression<DB, TB>;
        return { ref, type: FIELD_COLUMN_TYPES[found.type] };
    };
}

const UUID_LOWER = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function isCanonicalDate(value: string): boolean {
    const time = Date.parse(value);
    return !Number.isNaN(time) && new Date(time).toISOString() === value;
}

/**
 * Whether a non-null value can ever equal a stored value of the column type. Rows carry ids in
 * lower case and timestamps in the canonical toISOString form, so other spellings never match.
 */
export function valueFits(value: Exclude<ConditionScalar, null>, type: ColumnType | undefined): boolean {
    switch (type) {
        case undefined:
            return true;
        case 'string':
            return typeof value === 'string';
        case 'uuid':
            return typeof value === 'string' && UUID_LOWER.test(value);
        case 'date':
            return typeof value === 'string' && isCanonicalDate(value);
        case 'number':
            return typeof value === 'number';
        case 'boolean':
            return typeof value === 'boolean';
    }
}

/**
 * A value as SQL. Numbers and booleans go in as literals: they are validated finite numbers or
 * booleans (no injection), PostgreSQL would otherwise type an untyped parameter from the column
 * (an integer column rejects '2.5'), and better-sqlite3 cannot bind a boolean. TRUE/FALSE compare
 * as 1/0 with SQLite and MySQL integer columns. Strings are parameters; a timestamp for MySQL is
 * sent in its DATETIME form (UTC session, DESIGN.md §5), which it would not parse from `…T…Z`.
 */
export function sqlValue(value: Exclude<ConditionScalar, null>, type: ColumnType | undefined, dialect: SqlDialect): RawBuilder<unknown> {
    if (typeof value !== 'string') return sql.lit(value);
    if (type === 'date' && dialect === 'mysql') return sql`${value.replace('T', ' ').replace('Z', '')}`;
    return sql`${value}`;
}
