import { nameStatement } from '../db/named-statements.js';
import { CompiledQuery, type Insertable, type Kysely } from 'kysely';
import type { Database } from '../db/schema.js';

/** Stands in for every value while a multi-row INSERT is compiled. */
const INSERT_SLOT = '\u0000realmgate-insert-slot';

/**
 * A multi-row INSERT of fixed columns, its text compiled once per dialect adapter and row count
 * (the batches of the hot paths hold 1 to 100 rows) and re-run with the rows' values bound in
 * `columns` order. Kysely builds and compiles an operation tree of every value on each call —
 * for a token answer's session and event rows more CPU than SQLite spends inserting them
 * (measured in `packages/server/test/measure/event-log.ts`); the SELECTs' counterpart is db/prepared.ts. A column missing from a row is NULL.
 */
export function prepareInsert<T extends keyof Database & string>(table: T, columns: readonly (keyof Insertable<Database[T]> & string)[]) {
    const texts = new Map<unknown, Map<number, { sql: string; query: CompiledQuery['query'] }>>();
    const compiledFor = (db: Kysely<Database>, count: number) => {
        const adapter = db.getExecutor().adapter.constructor;
        let byCount = texts.get(adapter);
        if (!byCount) texts.set(adapter, byCount = new Map());
        let compiled = byCount.get(count);
        if (!compiled) {
            const row = Object.fromEntries(columns.map((column) => [column, INSERT_SLOT]));
            const query = (db as unknown as Kysely<Record<string, Record<string, unknown>>>).insertInto(table)
                .values(Array.from({ length: count }, () => row)).compile();
            // the text binds exactly one value per column and row, row after row in `columns` order
            if (query.parameters.length !== count * columns.length || query.parameters.some((value) => value !== INSERT_SLOT)) {
                throw new Error(`the INSERT into ${table} does not bind one value per column`);
            }
            compiled = { sql: query.sql, query: query.query };
            byCount.set(count, compiled);
            nameStatement(query.sql);
        }
        return compiled;
    };
    return async (db: Kysely<Database>, rows: readonly Insertable<Database[T]>[]): Promise<void> => {
        if (rows.length === 0) return;
        const { sql, query } = compiledFor(db, rows.length);
        const parameters: unknown[] = new Array(rows.length * columns.length);
        let slot = 0;
        for (const row of rows) for (const column of columns) parameters[slot++] = (row as Record<string, unknown>)[column] ?? null;
        await db.executeQuery({ ...CompiledQuery.raw(sql, parameters), query });
    };
}
