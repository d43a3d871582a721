import { sql, type Expression, type ExpressionBuilder, type Kysely, type SelectQueryBuilder, type SqlBool } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { ColumnResolver } from '../list-query/sql-column.js';
import type { TableName } from '../../db/schema.js';
import { withLists } from './lists.js';
import { dynamic, hasRealmColumn, REFERENCED_REALM, type Columns, type ResourceTable, type StoredRow, type TableRow } from './table.js';

/*
 * The engine's row statements: select, find by key, insert, update and delete one row of a
 * resource's table. Realm `referenced` (a junction): reads carry the referenced row's realm under
 * REFERENCED_REALM so decisions and list conditions over `realmId` see it; nothing writes it.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- generic over every table, like DynamicDb
export type AnyExpressionBuilder = ExpressionBuilder<any, any>;
/** A condition over a resource's table (bulk ends, candidates of a row-by-row decision). */
export type RowCondition = (eb: AnyExpressionBuilder) => Expression<SqlBool>;

function referenceOf(table: ResourceTable): { column: string; table: string } {
    if (!table.realmReference) throw new Error(`${table.table}: realm 'referenced' needs realmReference`);
    return table.realmReference;
}

/** The referenced row's realm_id as a correlated subquery over the resource's own table. */
function referencedRealm(eb: AnyExpressionBuilder, table: ResourceTable) {
    const reference = referenceOf(table);
    return eb.selectFrom(`${reference.table} as referenced_row`)
        .select('referenced_row.realm_id')
        .whereRef('referenced_row.id', '=', `${table.table}.${reference.column}`);
}

/** `SELECT <table>.*`, plus the referenced realm for a `referenced` resource. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
function selectRows(db: Kysely<Database>, table: ResourceTable): SelectQueryBuilder<any, any, StoredRow> {
    // every resource table has an id column (db/schema.ts)
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const query = dynamic(db).selectFrom(table.table).selectAll(table.table) as SelectQueryBuilder<any, any, StoredRow>;
    return table.realm === 'referenced' ? query.select((eb) => referencedRealm(eb, table).as(REFERENCED_REALM)) : query;
}

/** Add the referenced realm to a select over the resource's table (nothing for other resources). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function withReferencedRealm<QB extends SelectQueryBuilder<any, any, any>>(query: QB, table: ResourceTable): QB {
    return table.realm === 'referenced' ? query.select((eb) => referencedRealm(eb, table).as(REFERENCED_REALM)) as QB : query;
}

/**
 * A list resolver that also knows `realmId` of a `referenced` resource: a compiled verdict's grant
 * reach targets `realmId` (spec consumer rule 11), here the referenced row's realm, so the
 * decision stays in the SQL query and totals stay exact.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function withReferencedRealmColumn(resolve: ColumnResolver<any, string>, table: ResourceTable): ColumnResolver<any, string> {
    if (table.realm !== 'referenced') return resolve;
    return (field) => (field === 'realmId' ? { ref: (eb) => referencedRealm(eb, table), type: 'uuid' } : resolve(field));
}

/** The realm of the row a `referenced` resource's reference names; undefined when it names none. */
export async function findReferencedRealm(db: Kysely<Database>, table: ResourceTable, id: string): Promise<{ realm_id: string | null } | undefined> {
    const reference = referenceOf(table);
    const row: { realm_id?: string | null } | undefined = await dynamic(db).selectFrom(reference.table).select('realm_id').where('id', '=', id).executeTakeFirst();
    return row ? { realm_id: row.realm_id ?? null } : undefined;
}

/** How a key names a row: by id, or by name within a realm (API.md §1). */
export type RowKey =
    | { id: string }
    | {
        name: string;
        /** the realm the name resolves in; null: among global rows */
        realm: string | null;
    };

/**
 * The row a key names, on a realm mount only a row of that realm; `forUpdate` locks it (server
 * dialects, inside a write transaction).
 */
export async function findRowByKey<T extends TableName>(
    db: Kysely<Database>,
    table: ResourceTable<T>,
    key: RowKey,
    options: { routeRealmId: string | null; forUpdate?: boolean },
): Promise<TableRow<T> | undefined> {
    let query = selectRows(db, table);
    if ('id' in key) {
        query = query.where('id', '=', key.id);
    } else {
        query = query.where('name', '=', key.name);
        if (hasRealmColumn(table)) {
            const realm = key.realm;
            query = realm === null ?
                query.where('realm_id', 'is', null) :
                table.realm === 'nullable' ?
                    // a name resolves in the realm first, then among global rows
                    query.where((eb) => eb.or([eb('realm_id', '=', realm), eb('realm_id', 'is', null)]))
                        // the realm's own row first on every dialect (NULLs sort first or last depending on it)
                        .orderBy(sql`CASE WHEN realm_id IS NULL THEN 1 ELSE 0 END`) :
                    query.where('realm_id', '=', realm);
        }
    }
    if (options.routeRealmId !== null && hasRealmColumn(table)) query = query.where('realm_id', '=', options.routeRealmId);
    if (options.forUpdate) query = query.forUpdate();
    // an id names one row; a name may name two (the realm's and a global one), the first wins.
    // No LIMIT on the id lookup: SQLite plans `LIMIT ?` on a primary-key search at about three
    // times the cost of the bare search (test/measure/hot-paths.ts, GET /users/@me)
    const row: StoredRow | undefined = await ('id' in key ? query : query.limit(1)).executeTakeFirst();
    return asTableRow(table, row && (await withLists(db, table, [row]))[0]);
}

/**
 * A row read from table T has T's columns (db/schema.ts): the one place the engine's untyped
 * reads meet the schema's types, so the resources' hooks read typed columns without casts.
 */
function asTableRow<T extends TableName>(_table: ResourceTable<T>, row: object): TableRow<T>;
function asTableRow<T extends TableName>(_table: ResourceTable<T>, row: object | undefined): TableRow<T> | undefined;
function asTableRow<T extends TableName>(_table: ResourceTable<T>, row: object | undefined): TableRow<T> | undefined {
    return row as TableRow<T> | undefined;
}

/** One row by id, as the engine reads it (referenced realm included); throws when it is gone. */
export async function selectRowById<T extends TableName>(db: Kysely<Database>, table: ResourceTable<T>, id: string): Promise<TableRow<T>> {
    const row = await selectRows(db, table).where('id', '=', id).executeTakeFirstOrThrow();
    await withLists(db, table, [row]);
    return asTableRow(table, row);
}

/** The rows matching a condition, at most `limit` (candidates of a row-by-row decision). */
export async function selectRowsWhere<T extends TableName>(db: Kysely<Database>, table: ResourceTable<T>, where: RowCondition, limit: number): Promise<TableRow<T>[]> {
    const rows = await withLists(db, table, await selectRows(db, table).where(where).limit(limit).execute());
    return rows.map((row) => asTableRow(table, row));
}

/** Plain rows of a table by id (the related rows of an `include`). */
export async function selectRowsByIds<T extends TableName>(db: Kysely<Database>, table: ResourceTable<T>, ids: readonly string[]): Promise<TableRow<T>[]> {
    if (ids.length === 0) return [];
    const rows = await dynamic(db).selectFrom(table.table).selectAll().where('id', 'in', ids).execute() as StoredRow[];
    return (await withLists(db, table, rows)).map((row) => asTableRow(table, row));
}

export async function insertRow(db: Kysely<Database>, table: ResourceTable, row: StoredRow): Promise<void> {
    await dynamic(db).insertInto(table.table).values(row).execute();
}

export async function updateRowById(db: Kysely<Database>, table: ResourceTable, id: string, values: Columns): Promise<void> {
    await dynamic(db).updateTable(table.table).set(values).where('id', '=', id).execute();
}

export async function deleteRowById(db: Kysely<Database>, table: ResourceTable, id: string): Promise<void> {
    await dynamic(db).deleteFrom(table.table).where('id', '=', id).execute();
}
