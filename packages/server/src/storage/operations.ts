import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { toDbDate, type DialectName } from '../db/values.js';

/** The readiness probe's database round trip (GET /health/ready). */
export async function pingDatabase(db: Kysely<Database>): Promise<void> {
    await sql`SELECT 1`.execute(db);
}

/** Sessions neither revoked nor expired (the sessions-active gauge of GET /metrics; expires_at is indexed). */
export async function countActiveSessions(db: Kysely<Database>, dialect: DialectName, now: Date): Promise<number> {
    const row = await db.selectFrom('auth_sessions').select((eb) => eb.fn.countAll<number | string | bigint>().as('total'))
        .where('revoked_at', 'is', null).where('expires_at', '>', toDbDate(dialect, now)).executeTakeFirstOrThrow();
    return Number(row.total);
}
