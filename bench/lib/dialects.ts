/**
 * The `--db` argument of the HTTP benchmark: one bench database or a comma-separated list, each
 * benched in the same pass. SQLite alone is the default, so `npm run bench` costs what it did
 * before databases could be combined. A server database runs in its default configuration,
 * without Redis (PostgreSQL caches through its own LISTEN/NOTIFY bus, MySQL caches nothing:
 * docs/operations/caches.md); `postgres+redis` adds PostgreSQL with the Redis bus in its place as a database of its
 * own in the report.
 */
import type { BenchDialect } from './database.js';

export type BenchChoice = BenchDialect | 'postgres+redis';

export const BENCH_DIALECTS: readonly BenchChoice[] = ['sqlite', 'postgres', 'postgres+redis', 'mysql'];

/** The engine and driver a choice runs on: the floors it is measured against are that engine's. */
export function engineOf(choice: BenchChoice): BenchDialect {
    return choice === 'postgres+redis' ? 'postgres' : choice;
}

export const CHOICE_NAMES: Readonly<Record<BenchChoice, string>> = {
    sqlite: 'SQLite', postgres: 'PostgreSQL', 'postgres+redis': 'PostgreSQL + Redis', mysql: 'MySQL',
};

/** Whether a choice runs every scenario on servers of its own (`postgres+redis` runs the protocol scenarios only). */
export function isFullChoice(choice: BenchChoice): choice is BenchDialect {
    return choice !== 'postgres+redis';
}

/**
 * `sqlite,postgres` → the databases in the order given, each once; throws on an unknown name.
 * `protocolOnly`: the run loads the protocol scenarios alone (the `protocol` suite), so
 * `postgres+redis` needs no full pass beside it.
 */
export function parseDatabases(value: string, protocolOnly = false): BenchChoice[] {
    const names = value.split(',').map((name) => name.trim().toLowerCase()).filter((name) => name !== '');
    const unknown = names.filter((name) => !(BENCH_DIALECTS as readonly string[]).includes(name));
    if (names.length === 0) throw new Error('--db names no database');
    if (unknown.length > 0) throw new Error(`unknown database ${unknown.join(', ')} (expected ${BENCH_DIALECTS.join(', ')}, comma-separated)`);
    const choices = [...new Set(names)] as BenchChoice[];
    // the references, the boot figures and the bcrypt ceiling come with a full pass
    if (!protocolOnly && !choices.some(isFullChoice)) throw new Error('postgres+redis runs the protocol scenarios beside a full pass: list sqlite, postgres or mysql too');
    return choices;
}
