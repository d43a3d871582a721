import { sql, type Kysely } from 'kysely';
import type { Database, TableName } from '../db/schema.js';
import { dynamic } from './resource/table.js';

/**
 * The lock of a provisioning run: the row of Kysely's migration lock table (the table the
 * migrations' own lock lives in), written inside the run's transaction. The write takes a row lock
 * on PostgreSQL and MySQL, held until the commit, and the write lock of the file on SQLite, so
 * replicas booting together apply the files one after the other (spec beta.67 item 7: the lock is
 * per database on MySQL too, as the table is). The value written is the one stored: nothing changes.
 */
export async function takeProvisioningLock(db: Kysely<Database>): Promise<void> {
    await sql`UPDATE kysely_migration_lock SET is_locked = is_locked WHERE id = 'migration_lock'`.execute(db);
}

/** The id of the junction row holding exactly these column values, if there is one. */
export async function findBindingId(db: Kysely<Database>, table: TableName, columns: Readonly<Record<string, string>>): Promise<string | undefined> {
    let query = dynamic(db).selectFrom(table).select('id');
    for (const [column, value] of Object.entries(columns)) query = query.where(column, '=', value);
    const row: { id: string } | undefined = await query.executeTakeFirst();
    return row?.id;
}
