import { sql } from 'kysely';
import type { TestApp } from '../app.js';

/*
 * The row count of every table in one statement (a test helper: the architecture rule keeps
 * Kysely statements in src/storage/ for the server's own code only).
 */

const tablesOf = new WeakMap<object, Promise<string[]>>();

async function tables(app: TestApp): Promise<string[]> {
    const key = app.deps.db;
    let found = tablesOf.get(key);
    if (!found) {
        // the event log is written beside requests, refused ones included (spec Events 1: a failed
        // sign-in is an entry), and after the answer (never awaited): its own suite checks it
        found = app.deps.db.introspection.getTables().then((list) => list.map((table) => table.name)
            .filter((name) => name.startsWith('auth_') && name !== 'auth_events').sort());
        tablesOf.set(key, found);
    }
    return found;
}

export type TableCounts = Record<string, number>;

export async function tableCounts(app: TestApp): Promise<TableCounts> {
    const names = await tables(app);
    const columns = names.map((name) => sql`(select count(*) from ${sql.table(name)}) as ${sql.ref(name)}`);
    const result = await sql<Record<string, unknown>>`select ${sql.join(columns)}`.execute(app.deps.db);
    const row = result.rows[0] ?? {};
    return Object.fromEntries(names.map((name) => [name, Number(row[name])]));
}

/** `table: before → after` for every table whose count moved. */
export function countChanges(before: TableCounts, after: TableCounts): string[] {
    return Object.keys(after).filter((name) => before[name] !== after[name]).map((name) => `${name}: ${before[name]} → ${after[name]}`);
}
