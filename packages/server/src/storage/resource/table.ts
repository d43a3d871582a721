import type { Kysely, Selectable } from 'kysely';
import type { Database, TableName } from '../../db/schema.js';

/*
 * The generic resource engine (domains/resource) names its table at run time, from a resource
 * spec. Kysely's schema types follow a literal table name, not a value, so the engine's statements
 * are built here over an untyped view of the same connection, and nowhere else.
 */

/** A row as the engine handles it: every resource row has an id; other columns by name. */
export interface StoredRow {
    id: string;
    [column: string]: unknown;
}

/** A row of table T as read: its schema types for the known columns (db/schema.ts), by name for the rest. */
export type TableRow<T extends TableName> = Selectable<Database[T]> & StoredRow;

/** Column values to write: the engine's defaults and the resource's own (prepareCreate/prepareUpdate). */
export type Columns = Record<string, unknown>;

/**
 * A list of ids a row holds in a junction table rather than in a column of its own (a realm's
 * default roles): reads carry it under `column`, as if it were one, and the engine writes it.
 */
export interface JunctionList {
    /** the key the list takes in a row as read (never a column of the resource's table) */
    column: string;
    table: TableName;
    /** the junction's column naming the owning row */
    owner: string;
    /** the junction's column naming each id of the list */
    value: string;
}

/** What the SQL of a resource depends on: its table, where its realm lives, its junction lists. */
export interface ResourceTable<T extends TableName = TableName> {
    table: T;
    /** `required`/`nullable`: a realm_id column; `referenced`: the realm of the row `realmReference` names */
    realm: 'required' | 'nullable' | 'none' | 'self' | 'referenced';
    realmReference?: { column: string; table: TableName };
    lists?: readonly JunctionList[];
}

/** The alias under which reads of a `referenced` resource carry the referenced row's realm. */
export const REFERENCED_REALM = '__referenced_realm_id';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- table names known only at run time
export type DynamicDb = Kysely<any>;

/** The same connection (or transaction), seen without the schema's per-table types. */
export function dynamic(db: Kysely<Database>): DynamicDb {
    return db as unknown as DynamicDb;
}

export function hasRealmColumn(table: Pick<ResourceTable, 'realm'>): boolean {
    return table.realm === 'required' || table.realm === 'nullable';
}
