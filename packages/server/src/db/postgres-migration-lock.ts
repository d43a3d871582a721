import { PostgresAdapter, PostgresDialect, sql, type DialectAdapter, type Kysely } from 'kysely';

/** Kysely's own PostgreSQL migration lock id, so a process of an older release and this one still exclude each other's runs. */
const LOCK_ID = 3853314791062309107n;

/** How long a booting replica waits for another's migrations before it gives up (Kysely's value). */
const LOCK_TIMEOUT = '1h';

/**
 * Kysely's PostgreSQL adapter takes a session-level advisory lock, then opens the migrations'
 * transaction, then unlocks: three transactions. Behind a transaction pooler (PgBouncer
 * pool_mode=transaction) each may run on another server connection, so the lock stays held by a
 * server session nobody unlocks (the next replica's boot waits an hour) or a second booting replica
 * gets it on that same session (locks are re-entrant per session) and migrates at once beside the
 * first (PgBouncer documents advisory locks as unsupported in transaction mode). Here the lock is a
 * transaction-level one (`pg_advisory_xact_lock`) taken as the first statement of the one
 * transaction every pending migration runs in, and released by its COMMIT or ROLLBACK: correct on
 * a direct connection and behind a pooler alike, and freed by PostgreSQL when the process dies.
 * Each migration runs under a savepoint inside it (db/migrations/index.ts), as on SQLite.
 */
class TransactionLockingPostgresAdapter extends PostgresAdapter {
    /** the connections holding the lock: a lock that was never taken is not committed */
    readonly #holding = new WeakSet<Kysely<unknown>>();

    /** false: the Migrator must not open a transaction of its own — this lock's is the one */
    override get supportsTransactionalDdl(): boolean {
        return false;
    }

    override async acquireMigrationLock(db: Kysely<unknown>): Promise<void> {
        await sql`BEGIN`.execute(db);
        this.#holding.add(db);
        await sql`SELECT set_config('lock_timeout', ${LOCK_TIMEOUT}, true)`.execute(db);
        await sql`SELECT pg_advisory_xact_lock(${sql.lit(LOCK_ID)})`.execute(db);
    }

    /** COMMIT; in a transaction a failed statement aborted, PostgreSQL answers it with a rollback */
    override async releaseMigrationLock(db: Kysely<unknown>): Promise<void> {
        if (!this.#holding.delete(db)) return;
        await sql`COMMIT`.execute(db);
    }
}

/** PostgresDialect whose migrations hold a transaction-level lock across processes. */
export class TransactionLockingPostgresDialect extends PostgresDialect {
    override createAdapter(): DialectAdapter {
        return new TransactionLockingPostgresAdapter();
    }
}
