/**
 * The `--db` argument of the HTTP benchmark: one database or a comma-separated list, each
 * benched in the same pass (issue 19). SQLite alone is the default, so `npm run bench` costs
 * what it did before databases could be combined.
 */
import type { BenchDialect } from './database.js';

export const BENCH_DIALECTS: readonly BenchDialect[] = ['sqlite', 'postgres', 'mysql'];

/** `sqlite,postgres` → the databases in the order given, each once; throws on an unknown name. */
export function parseDatabases(value: string): BenchDialect[] {
    const names = value.split(',').map((name) => name.trim().toLowerCase()).filter((name) => name !== '');
    const unknown = names.filter((name) => !(BENCH_DIALECTS as readonly string[]).includes(name));
    if (names.length === 0) throw new Error('--db names no database');
    if (unknown.length > 0) throw new Error(`unknown database ${unknown.join(', ')} (expected ${BENCH_DIALECTS.join(', ')}, comma-separated)`);
    return [...new Set(names)] as BenchDialect[];
}
