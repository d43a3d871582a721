import type { Kysely } from 'kysely';
import type { Database, TableName } from '../../db/schema.js';

/*
 * The generic resource engine (domains/resource) names its table at run time, from a resource
 * spec. Kysely's schema types follow a literal table name, not a value, so the engine's statements
 * are built here over an untyped view of the same connection, and nowhere else.
 */

/** A row as the engine handles it: column name to stored value. */
export type StoredRow = Record<string, unknown>;

/** What the SQL of a resource depends on: its table and where its realm lives. */
export interface ResourceTable {
    table: TableName;
    /** `required`/`nullable`: a realm_id column; `referenced`: the realm of the row `realmReference` names */
    realm: 'required' | 'nullable' | 'none' | 'self' | 'referenced';
    realmReference?: { column: string; table: TableName };
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
