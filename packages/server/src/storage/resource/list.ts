import { sql, type Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { ListQuery, QueryCondition } from '../../query/types.js';
import { applyCondition, applySort } from '../list-query/sql.js';
import type { ColumnResolver, SqlDialect } from '../list-query/sql-column.js';
import { withReferencedRealm } from './rows.js';
import { withLists } from './lists.js';
import type { TableName } from '../../db/schema.js';
import { dynamic, hasRealmColumn, type ResourceTable, type TableRow } from './table.js';

/** A list read of a resource's table: the route realm, the caller's filter and the compiled read verdict. */
export interface ListSelection<T extends TableName = TableName> {
    table: ResourceTable<T>;
    routeRealmId: string | null;
    /** every condition must hold (the filter, a lowerable verdict); each goes into the WHERE */
    conditions: readonly QueryCondition[];
    sort: ListQuery['sort'];
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- generic over every table
    columnOf: ColumnResolver<any, string>;
    dialect: SqlDialect;
}

/** Rows read from table T have T's columns (db/schema.ts), like rows.ts reads. */
function asTableRows<T extends TableName>(_list: ListSelection<T>, rows: object[]): TableRow<T>[] {
    return rows as TableRow<T>[];
}

/** A page's rows with their junction lists (lists.ts), one query per list for the whole page. */
async function completed<T extends TableName>(db: Kysely<Database>, list: ListSelection<T>, rows: object[]): Promise<TableRow<T>[]> {
    return withLists(db, list.table, asTableRows(list, rows));
}

function selection(db: Kysely<Database>, list: ListSelection) {
    let base = dynamic(db).selectFrom(list.table.table);
    if (list.routeRealmId !== null && hasRealmColumn(list.table)) base = base.where('realm_id', '=', list.routeRealmId);
    for (const condition of list.conditions) base = base.where((eb) => applyCondition(eb, condition, list.columnOf, { dialect: list.dialect }));
    return base;
}

function sortedRows(db: Kysely<Database>, list: ListSelection) {
    return applySort(withReferencedRealm(selection(db, list).selectAll(), list.table), list.sort, list.columnOf);
}

/** Sorted rows up to `limit`, for a verdict evaluated row by row before paging. */
export async function listCandidates<T extends TableName>(db: Kysely<Database>, list: ListSelection<T>, limit: number): Promise<TableRow<T>[]> {
    return completed(db, list, await sortedRows(db, list).limit(limit).execute());
}

/** The window column carrying the total on every row of a page; never a field name (those are camelCase columns in snake_case). */
const TOTAL_COLUMN = '__list_total';

function countRows(db: Kysely<Database>, list: ListSelection): Promise<number> {
    return selection(db, list).select((eb) => eb.fn.countAll().as('total')).executeTakeFirst().then((row) => Number(row?.total ?? 0));
}

/**
 * One page and the exact total, the verdict being part of the WHERE. On PostgreSQL and MySQL 8 /
 * MariaDB 10.2+ in one statement: `count(*) over ()` is evaluated over every row the WHERE keeps,
 * before ORDER BY / LIMIT / OFFSET, so each row of the page carries the total and the request
 * saves a round trip. Only a page that comes back empty past the first row (offset > 0) has no
 * row to carry it; then a COUNT still answers it (API.md §1: the total is exact on every page).
 * SQLite runs in process, so there is no round trip to save, and its window materializes every
 * matching row where COUNT reads an index and the page stops at LIMIT: measured with
 * test/measure/catalog-and-lists.ts, the window cost about 1 ms more CPU per 1,000-row list, so
 * SQLite keeps the two statements.
 */
export async function listPage<T extends TableName>(db: Kysely<Database>, list: ListSelection<T>, page: { limit: number; offset: number }): Promise<{ rows: TableRow<T>[]; total: number }> {
    if (list.dialect === 'sqlite') {
        const [total, rows] = await Promise.all([countRows(db, list), sortedRows(db, list).limit(page.limit).offset(page.offset).execute()]);
        return { rows: await completed(db, list, rows), total };
    }
    const rows: Record<string, unknown>[] = await sortedRows(db, list)
        .select(sql<number | string | bigint>`count(*) over ()`.as(TOTAL_COLUMN))
        .limit(page.limit).offset(page.offset).execute();
    let total: number;
    if (rows.length > 0) {
        total = Number(rows[0]![TOTAL_COLUMN]);
        for (const row of rows) delete row[TOTAL_COLUMN];
    } else total = page.offset > 0 || page.limit < 1 ? await countRows(db, list) : 0;
    return { rows: await completed(db, list, rows), total };
}
