import { sql } from 'kysely';
import type { Expression, ExpressionBuilder, RawBuilder, SelectQueryBuilder, SqlBool } from 'kysely';
import type { ConditionScalar } from '@realmgate/access';
import { resolveColumn, sqlValue, valueFits } from './sql-column.js';
import type { ColumnResolver, ResolvedColumn, SqlDialect } from './sql-column.js';
import type { ListQuery, QueryCondition, QueryFieldCondition, SortItem } from '../../query/types.js';

export interface ConditionSqlOptions {
    /** the database the query runs on (config `db.type`): case and padding rules differ by dialect */
    dialect: SqlDialect;
}

type Bool = RawBuilder<SqlBool>;
type Value = Exclude<ConditionScalar, null>;

const TRUE: Bool = sql<SqlBool>`1 = 1`;
const FALSE: Bool = sql<SqlBool>`1 = 0`;

function join(items: Bool[], operator: 'AND' | 'OR'): Bool {
    if (items.length === 0) return operator === 'AND' ? TRUE : FALSE;
    if (items.length === 1) return items[0]!;
    return sql<SqlBool>`(${sql.join(items, sql.raw(` ${operator} `))})`;
}

const not = (item: Bool): Bool => sql<SqlBool>`NOT (${item})`;

/** Guard a test so a NULL column gives FALSE, never UNKNOWN: `NOT` over it then stays two-valued. */
const present = (column: ResolvedColumn, test: Bool): Bool => sql<SqlBool>`(${column.expr} IS NOT NULL AND ${test})`;

/** The column as text for string operators: PostgreSQL has no LIKE or collation on a uuid column. */
function asText(column: ResolvedColumn, dialect: SqlDialect): RawBuilder<unknown> {
    return dialect === 'postgres' && column.type === 'uuid' ? sql`CAST(${column.expr} AS text)` : column.expr;
}

/**
 * Exact equality of a non-null column with values of one JS type. matchCondition compares with
 * `===`; MySQL's default collations fold case and ignore trailing spaces, so a byte comparison is
 * ANDed to the collation one (which can still use an index). SQLite is pinned to BINARY in case a
 * column was declared NOCASE.
 */
function equalsAny(column: ResolvedColumn, values: Value[], dialect: SqlDialect): Bool {
    const list = sql.join(values.map((value) => sqlValue(value, column.type, dialect)));
    if (typeof values[0] !== 'string' || column.type === 'date') return sql<SqlBool>`${column.expr} IN (${list})`;
    if (dialect === 'sqlite') return sql<SqlBool>`${column.expr} COLLATE BINARY IN (${list})`;
    if (dialect === 'postgres') return sql<SqlBool>`${column.expr} IN (${list})`;
    const bytes = sql.join(values.map((value) => sql`CAST(${value} AS BINARY)`));
    return sql<SqlBool>`(${column.expr} IN (${list}) AND CAST(${column.expr} AS BINARY) IN (${bytes}))`;
}

/** `in` over non-null values: one IN per JS type, so a mixed list never compares across types. */
function inList(column: ResolvedColumn, values: ConditionScalar[], dialect: SqlDialect): Bool {
    const parts: Bool[] = [];
    if (values.includes(null)) parts.push(sql<SqlBool>`${column.expr} IS NULL`);
    const fitting = values.filter((value): value is Value => value !== null && valueFits(value, column.type));
    for (const kind of ['string', 'number', 'boolean']) {
        const group = [...new Set(fitting.filter((value) => typeof value === kind))];
        if (group.length > 0) parts.push(present(column, equalsAny(column, group, dialect)));
    }
    return join(parts, 'OR');
}

const ORDER = { gt: '>', gte: '>=', lt: '<', lte: '<=' } as const;

/**
 * Order as matchCondition has it: numbers numerically, strings by code unit (byte order of UTF-8
 * equals it below U+E000), timestamps chronologically (their canonical ISO text sorts the same).
 * Strings therefore compare under a binary collation on every dialect.
 */
function compare(column: ResolvedColumn, operator: keyof typeof ORDER, value: string | number, dialect: SqlDialect): Bool {
    const op = sql.raw(ORDER[operator]);
    const operand = sqlValue(value, column.type, dialect);
    if (typeof value === 'number' || column.type === 'date') return sql<SqlBool>`${column.expr} ${op} ${operand}`;
    if (dialect === 'sqlite') return sql<SqlBool>`${column.expr} ${op} ${operand} COLLATE BINARY`;
    if (dialect === 'postgres') return sql<SqlBool>`${asText(column, dialect)} COLLATE "C" ${op} ${operand}`;
    return sql<SqlBool>`CAST(${column.expr} AS BINARY) ${op} CAST(${operand} AS BINARY)`;
}

/** LIKE wildcards and the escape character itself, escaped with `!` (`\` needs doubling in MySQL literals, `!` nowhere). */
export function escapeLike(value: string): string {
    return value.replace(/[!%_]/g, (char) => `!${char}`);
}

/**
 * Case-sensitive prefix / suffix / substring tests. SQLite's LIKE ignores ASCII case, so it uses
 * instr/substr (character based, binary); PostgreSQL's LIKE is already case-sensitive; MySQL's
 * follows the collation, so it matches bytes (escaped `_` leaves `%` as the only wildcard, and `%`
 * spans any bytes, so byte matching is character matching here).
 */
function like(column: ResolvedColumn, operator: 'startsWith' | 'endsWith' | 'contains', value: string, dialect: SqlDialect): Bool {
    if (dialect === 'sqlite') {
        if (operator === 'startsWith') return sql<SqlBool>`instr(${column.expr}, ${value}) = 1`;
        if (operator === 'contains') return sql<SqlBool>`instr(${column.expr}, ${value}) > 0`;
        const length = [...value].length;
        return sql<SqlBool>`substr(${column.expr}, ${sql.lit(-length)}) = ${value} COLLATE BINARY`;
    }
    const escaped = escapeLike(value);
    const pattern = operator === 'startsWith' ? `${escaped}%` : operator === 'endsWith' ? `%${escaped}` : `%${escaped}%`;
    if (dialect === 'postgres') return sql<SqlBool>`${asText(column, dialect)} LIKE ${pattern} ESCAPE '!'`;
    return sql<SqlBool>`CAST(${column.expr} AS BINARY) LIKE CAST(${pattern} AS BINARY) ESCAPE '!'`;
}

function fieldSql(condition: QueryFieldCondition, column: ResolvedColumn, dialect: SqlDialect): Bool {
    const { type } = column;
    switch (condition.operator) {
        case 'eq':
        case 'ne': {
            const positive = inList(column, [condition.value], dialect);
            return condition.operator === 'eq' ? positive : not(positive);
        }
        case 'in':
            return inList(column, condition.value, dialect);
        case 'nin':
            return not(inList(column, condition.value, dialect));
        case 'gt':
        case 'gte':
        case 'lt':
        case 'lte': {
            // Any string orders against an id; valueFits is about what can be equal.
            const fits = type === 'uuid' ? typeof condition.value === 'string' : valueFits(condition.value, type);
            if (!fits && type === 'date' && typeof condition.value === 'string') {
                // A lexicographic order against a non-canonical spelling has no SQL form; refuse loudly.
                throw new Error(`condition on ${condition.field}: expected a canonical ISO-8601 timestamp, got ${condition.value}`);
            }
            if (!fits) return FALSE;
            return present(column, compare(column, condition.operator, condition.value, dialect));
        }
        case 'exists':
            return sql<SqlBool>`${column.expr} ${sql.raw(condition.value ? 'IS NOT NULL' : 'IS NULL')}`;
        case 'startsWith':
        case 'endsWith':
        case 'contains': {
            if (type === 'date') throw new Error(`condition on ${condition.field}: text operators do not apply to a timestamp column`);
            if (type !== undefined && type !== 'string' && type !== 'uuid') return FALSE;
            if (condition.value === '') return sql<SqlBool>`${column.expr} IS NOT NULL`;
            return present(column, like(column, condition.operator, condition.value, dialect));
        }
        default:
            throw new Error(`unknown condition operator ${(condition as { operator: string }).operator}`);
    }
}

/**
 * Translate a condition to a WHERE expression with exactly matchCondition's semantics: two-valued
 * and null-safe (spec consumer rule 11 ANDs it into row and count queries). Each field test is
 * guarded so it is TRUE or FALSE, never UNKNOWN, which keeps NOT, `ne` and `nin` true for NULL
 * rows as matchCondition has them. `columnOf` returning null is a programming error: the parser
 * and the compile step only emit fields the route maps.
 */
export function applyCondition<DB, TB extends keyof DB>(
    eb: ExpressionBuilder<DB, TB>,
    condition: QueryCondition,
    columnOf: ColumnResolver<DB, TB>,
    options: ConditionSqlOptions,
): Expression<SqlBool> {
    const walk = (node: QueryCondition): Bool => {
        switch (node.operator) {
            case 'and':
                return join(node.conditions.map(walk), 'AND');
            case 'or':
                return join(node.conditions.map(walk), 'OR');
            case 'not':
                return not(walk(node.condition));
            default: {
                const target = columnOf(node.field);
                if (target === null) throw new Error(`condition names field ${node.field}, which has no column`);
                return fieldSql(node, resolveColumn(eb, target), options.dialect);
            }
        }
    };
    return walk(condition);
}

/**
 * ORDER BY the requested keys, then the id (when mapped) so pages are stable under equal keys.
 * The order of text follows the database's collation (a human order, unlike filters).
 */
export function applySort<DB, TB extends keyof DB, O>(
    qb: SelectQueryBuilder<DB, TB, O>,
    sort: readonly SortItem[],
    columnOf: ColumnResolver<DB, TB>,
): SelectQueryBuilder<DB, TB, O> {
    const items = sort.some((item) => item.field === 'id') || columnOf('id') === null ? sort : [...sort, { field: 'id', direction: 'asc' as const }];
    let result = qb;
    for (const item of items) {
        const target = columnOf(item.field);
        if (target === null) throw new Error(`sort names field ${item.field}, which has no column`);
        result = result.orderBy((eb) => resolveColumn(eb, target).expr, item.direction);
    }
    return result;
}

export function applyPage<DB, TB extends keyof DB, O>(qb: SelectQueryBuilder<DB, TB, O>, page: ListQuery['page']): SelectQueryBuilder<DB, TB, O> {
    return qb.limit(page.limit).offset(page.offset);
}
