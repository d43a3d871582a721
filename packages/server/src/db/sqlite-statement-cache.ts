import type SqliteDatabase from 'better-sqlite3';
import type { SqliteDatabase as KyselySqliteDatabase } from 'kysely';

/**
 * Distinct SQL texts kept prepared. The bench's whole load runs about 130 and the routes a few
 * hundred; each prepared statement holds ~7 kB of SQLite's memory, so the bound stops only
 * pathological variety (generated filters), the least recently used text going first.
 */
const STATEMENT_CACHE_SIZE = 500;

/** Statements that change the schema: the migrations run each once, so keeping one only holds memory. */
const SCHEMA_CHANGE = /^\s*(create|alter|drop)\b/i;

/**
 * Kysely prepares every query anew, and better-sqlite3's prepare costs more than running a
 * small query. Statements are reusable and Kysely runs one query at a time per connection, so a
 * prepared statement is kept per SQL text (SQLite re-prepares it itself after a schema change).
 */
export function withStatementCache(database: SqliteDatabase.Database, size = STATEMENT_CACHE_SIZE): KyselySqliteDatabase {
    const statements = new Map<string, SqliteDatabase.Statement>();
    return {
        prepare(source: string) {
            const kept = statements.get(source);
            if (kept) {
                // a Map iterates in insertion order: re-inserting makes the first key the least recently used
                statements.delete(source);
                statements.set(source, kept);
                return kept;
            }
            const statement = database.prepare(source);
            if (SCHEMA_CHANGE.test(source)) return statement;
            if (statements.size >= size) statements.delete(statements.keys().next().value!);
            statements.set(source, statement);
            return statement;
        },
        close() {
            statements.clear();
            database.close();
        },
    };
}
