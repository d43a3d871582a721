import { Migrator } from 'kysely';
import type { Kysely, MigrationResult } from 'kysely';
import type { DatabaseHandle } from './connect.js';
import { createMigrationProvider } from './migrations/index.js';

/** A migration that failed; `migration` names it (undefined when the run failed before one started). */
export class MigrationError extends Error {
    readonly code = 'migration_failed';

    readonly migration: string | undefined;

    constructor(message: string, migration: string | undefined, cause: unknown) {
        super(message, { cause });
        this.name = 'MigrationError';
        this.migration = migration;
    }
}

export interface MigrationStatus {
    name: string;
    /** null while pending */
    executedAt: Date | null;
}

function createMigrator(handle: DatabaseHandle): Migrator {
    // Kysely's Migrator takes a database lock around the run (PostgreSQL: a transaction-level
    // advisory lock, db/postgres-migration-lock.ts; MySQL GET_LOCK; SQLite its write lock), so
    // replicas booting together apply each migration once (spec beta.67 item 7).
    return new Migrator({
        db: handle.db as unknown as Kysely<unknown>,
        provider: createMigrationProvider({ dialect: handle.dialect }),
    });
}

async function run(direction: string, execute: () => Promise<{ error?: unknown; results?: MigrationResult[] }>): Promise<string[]> {
    const { error, results = [] } = await execute();
    if (error !== undefined) {
        const failed = results.find((result) => result.status === 'Error')?.migrationName;
        const reason = error instanceof Error ? error.message : String(error);
        throw new MigrationError(
            failed ? `migration ${failed} failed (${direction}): ${reason}` : `migrations could not run (${direction}): ${reason}`,
            failed,
            error,
        );
    }
    return results.filter((result) => result.status === 'Success').map((result) => result.migrationName);
}

/** Applies every pending migration; returns the names applied by this call (empty when up to date). */
export async function migrateToLatest(handle: DatabaseHandle): Promise<string[]> {
    const migrator = createMigrator(handle);
    return run('up', () => migrator.migrateToLatest());
}

/** Reverts the newest applied migration (development only: production migrates forward); returns its name. */
export async function migrateDown(handle: DatabaseHandle): Promise<string[]> {
    const migrator = createMigrator(handle);
    return run('down', () => migrator.migrateDown());
}

/** Every known migration in order, with the time it was applied. */
export async function migrationStatus(handle: DatabaseHandle): Promise<MigrationStatus[]> {
    const migrations = await createMigrator(handle).getMigrations();
    return migrations.map((migration) => ({ name: migration.name, executedAt: migration.executedAt ?? null }));
}
