import { sql } from 'kysely';
import type { ColumnDataType, CreateTableBuilder, Kysely } from 'kysely';
import type { DialectName } from '../values.js';

/** What a migration knows beyond the connection: one set of migrations serves three dialects. */
export interface MigrationContext {
    dialect: DialectName;
}

export interface DialectMigration {
    up(db: Kysely<unknown>, context: MigrationContext): Promise<void>;
    down(db: Kysely<unknown>, context: MigrationContext): Promise<void>;
}

export type TableBuilder = CreateTableBuilder<string, string>;

export type ReferentialAction = 'cascade' | 'set null';

export const ID = 'varchar(36)';

/** timestamptz keeps the instant on PostgreSQL; datetime(3) is UTC by the pin; SQLite stores ISO text. */
export function timestampType(context: MigrationContext): ColumnDataType {
    if (context.dialect === 'postgres') return 'timestamptz';
    if (context.dialect === 'mysql') return 'datetime(3)';
    return 'text';
}

/*
 * MySQL/MariaDB DDL is not transactional: each CREATE commits at once, so a boot killed in the
 * middle of a migration leaves part of it built and the migration unrecorded, and the next boot
 * runs it again from the top ("Table 'auth_realms' already exists"). There every
 * step is create-if-missing, so the rerun resumes where the crash left it. Each step is one
 * statement (a table with its foreign keys, or one index), which MySQL 8 and MariaDB apply
 * atomically. PostgreSQL and SQLite run a migration in one transaction and need none of this.
 */

/**
 * Starts a table. MySQL/MariaDB get InnoDB (foreign keys) and a binary utf8mb4 collation, so names
 * compare case- and accent-sensitively exactly as on PostgreSQL and SQLite, whatever the server's
 * default character set; and IF NOT EXISTS, so a rerun after a crash resumes (above).
 */
export function createTable(db: Kysely<unknown>, context: MigrationContext, name: string): TableBuilder {
    const builder = db.schema.createTable(name) as unknown as TableBuilder;
    if (context.dialect !== 'mysql') return builder;
    return builder.ifNotExists().modifyEnd(sql`engine = InnoDB default charset = utf8mb4 collate = utf8mb4_bin`);
}

/** Whether an index exists on MySQL/MariaDB (MySQL has no CREATE INDEX IF NOT EXISTS). */
async function mysqlIndexExists(db: Kysely<unknown>, table: string, name: string): Promise<boolean> {
    const { rows } = await sql<{ found: number }>`select 1 as found from information_schema.statistics
        where table_schema = database() and table_name = ${table} and index_name = ${name} limit 1`.execute(db);
    return rows.length > 0;
}

export function withTimestamps(builder: TableBuilder, context: MigrationContext): TableBuilder {
    return builder
        .addColumn('created_at', timestampType(context), (col) => col.notNull())
        .addColumn('updated_at', timestampType(context), (col) => col.notNull());
}

/** A table-level foreign key (MySQL ignores inline column REFERENCES) named `<table>_<column>_fk`. */
export function foreignKey(builder: TableBuilder, table: string, column: string, target: string, onDelete: ReferentialAction): TableBuilder {
    return builder.addForeignKeyConstraint(`${table}_${column}_fk`, [column], target, ['id'], (fk) => fk.onDelete(onDelete));
}

/**
 * `<key>` = COALESCE(<source>, '') so a unique index also catches two global rows (NULL realm or
 * client), which plain unique indexes treat as distinct (spec beta.65 item 3). PostgreSQL only
 * has STORED generated columns. MySQL 8 refuses CASCADE/SET NULL foreign keys on the base column
 * of a STORED generated column, but accepts them for an indexed VIRTUAL one (MariaDB takes both),
 * so MySQL gets VIRTUAL. The application never writes these columns (they are not in schema.ts).
 */
export function coalescedKey(builder: TableBuilder, context: MigrationContext, key: string, source: string): TableBuilder {
    return builder.addColumn(key, ID, (col) => {
        const generated = col.generatedAlwaysAs(sql`coalesce(${sql.ref(source)}, '')`);
        return context.dialect === 'mysql' ? generated : generated.stored();
    });
}

/** Creates `<table>_<columns>_idx` (or `_unique`), or the name given; on MySQL only when missing (above). */
export async function createIndex(
    db: Kysely<unknown>,
    context: MigrationContext,
    table: string,
    columns: string[],
    options: { unique?: boolean; name?: string } = {},
): Promise<void> {
    const name = options.name ?? `${table}_${columns.join('_')}_${options.unique ? 'unique' : 'idx'}`;
    if (context.dialect === 'mysql' && await mysqlIndexExists(db, table, name)) return;
    let builder = db.schema.createIndex(name).on(table).columns(columns);
    if (options.unique) builder = builder.unique();
    await builder.execute();
}

/** Whether a column exists on MySQL/MariaDB (MySQL 8 has no ADD COLUMN IF NOT EXISTS). */
async function mysqlColumnExists(db: Kysely<unknown>, table: string, column: string): Promise<boolean> {
    const { rows } = await sql<{ found: number }>`select 1 as found from information_schema.columns
        where table_schema = database() and table_name = ${table} and column_name = ${column} limit 1`.execute(db);
    return rows.length > 0;
}

/** Adds a column to an existing table; on MySQL only when missing, so a rerun after a crash resumes (above). */
export async function addColumn(
    db: Kysely<unknown>,
    context: MigrationContext,
    table: string,
    column: string,
    type: ColumnDataType,
    build: Parameters<ReturnType<Kysely<unknown>['schema']['alterTable']>['addColumn']>[2] = (col) => col,
): Promise<void> {
    if (context.dialect === 'mysql' && await mysqlColumnExists(db, table, column)) return;
    await db.schema.alterTable(table).addColumn(column, type, build).execute();
}
