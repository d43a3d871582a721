import { CompiledQuery, type Compilable, type Insertable, type Kysely } from 'kysely';
import type { Database } from './schema.js';

/** Stands in for a parameter while the query is compiled; a NUL never reaches SQL from a request. */
const MARKER = '\u0000realmgate-parameter:';

/** A compiled query whose parameters are slots: an index into the values, or a constant. */
interface Template {
    sql: string;
    query: CompiledQuery['query'];
    slots: ({ index: number } | { value: unknown })[];
}

export interface PreparedQuery<Row> {
    /** every row of the query for these parameter values */
    all(db: Kysely<Database>, values: readonly unknown[]): Promise<Row[]>;
    /** the first row, or undefined */
    first(db: Kysely<Database>, values: readonly unknown[]): Promise<Row | undefined>;
    /** an UPDATE or DELETE: the rows it changed */
    run(db: Kysely<Database>, values: readonly unknown[]): Promise<number>;
}

/**
 * A query built and compiled once per dialect and re-run with new parameter values. Kysely builds
 * an operation tree and compiles it on every call; on the protocol hot paths (token grants, bearer
 * verification) that costs more than SQLite's own execution, and the SQL text never changes — only
 * the values do. `build` receives `param(i)`, a stand-in for the i-th value; values the builder
 * fixes itself (a literal, a limit) stay constants of the template.
 */
export function prepareQuery<Row>(build: (db: Kysely<Database>, param: (index: number) => string) => Compilable<Row>): PreparedQuery<Row> {
    // one template per dialect adapter: tests run several dialects in one process
    const templates = new Map<unknown, Template>();
    const templateFor = (db: Kysely<Database>): Template => {
        const adapter = db.getExecutor().adapter.constructor;
        let template = templates.get(adapter);
        if (!template) {
            const compiled = build(db, (index) => `${MARKER}${index}`).compile();
            template = {
                sql: compiled.sql,
                query: compiled.query,
                slots: compiled.parameters.map((value) => typeof value === 'string' && value.startsWith(MARKER) ?
                    { index: Number(value.slice(MARKER.length)) } : { value }),
            };
            templates.set(adapter, template);
        }
        return template;
    };
    const execute = (db: Kysely<Database>, values: readonly unknown[]) => {
        const template = templateFor(db);
        const parameters = template.slots.map((slot) => 'index' in slot ? values[slot.index] : slot.value);
        const compiled: CompiledQuery<Row> = { ...CompiledQuery.raw(template.sql, parameters), query: template.query };
        return db.executeQuery(compiled);
    };
    const all = async (db: Kysely<Database>, values: readonly unknown[]): Promise<Row[]> => (await execute(db, values)).rows;
    return {
        all,
        async first(db, values) {
            return (await all(db, values))[0];
        },
        async run(db, values) {
            const result = await execute(db, values);
            return Number(result.numAffectedRows ?? 0n);
        },
    };
}

/** Stands in for every value while a multi-row INSERT is compiled. */
const INSERT_SLOT = '\u0000realmgate-insert-slot';

/**
 * A multi-row INSERT of fixed columns, its text compiled once per dialect adapter and row count
 * (the batches of the hot paths hold 1 to 100 rows) and re-run with the rows' values bound in
 * `columns` order. Kysely builds and compiles an operation tree of every value on each call —
 * for a token answer's session and event rows more CPU than SQLite spends inserting them
 * (issue 19, `packages/server/test/measure/event-log.ts`). A column missing from a row is NULL.
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
