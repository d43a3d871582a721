import { SqliteAdapter, SqliteDialect, sql, type DialectAdapter, type Kysely } from 'kysely';

/**
 * Kysely's SQLite adapter takes no migration lock: it assumes one process owns the file. Replicas
 * booting together on one SQLite file (spec: boot-time migrations under a lock) would then both
 * read "nothing applied" and both run the first migration, and the second fails on a table that
 * now exists. `BEGIN IMMEDIATE` takes SQLite's write lock before the migrator reads what was
 * applied, so a second process waits (busy_timeout) and then finds everything done. Each migration
 * runs under a savepoint inside it (db/migrations/index.ts), so a failed one is undone alone and
 * the ones before it commit, as on the other dialects.
 */
class MigrationLockingSqliteAdapter extends SqliteAdapter {
    /** the connections holding the lock: a lock that was never taken is not committed */
    readonly #holding = new WeakSet<Kysely<unknown>>();

    override async acquireMigrationLock(db: Kysely<unknown>): Promise<void> {
        await sql`BEGIN IMMEDIATE`.execute(db);
        this.#holding.add(db);
    }

    override async releaseMigrationLock(db: Kysely<unknown>): Promise<void> {
        if (!this.#holding.delete(db)) return;
        await sql`COMMIT`.execute(db);
    }
}

/** SqliteDialect whose migrations hold the database's write lock across processes. */
export class MigrationLockingSqliteDialect extends SqliteDialect {
    override createAdapter(): DialectAdapter {
        return new MigrationLockingSqliteAdapter();
    }
}
