import { CompiledQuery, type Compilable, type Kysely } from 'kysely';
import { nameStatement } from './named-statements.js';
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
            nameStatement(compiled.sql);
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
