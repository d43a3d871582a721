import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { toDbDate, type DialectName } from '../db/values.js';

/**
 * Spends one use of the initial access token with this digest in `realmId` (RFC 7591 §3): one
 * conditional UPDATE — live, of the realm, a use left — so two registrations racing for the last
 * use cannot both pass, on any dialect or replica. True when a use was spent. Run inside the
 * registration's transaction: a registration refused afterwards gives the use back.
 */
export async function spendInitialAccessToken(db: Kysely<Database>, dialect: DialectName, realmId: string, digest: string, now: Date): Promise<boolean> {
    const result = await db.updateTable('auth_initial_access_tokens')
        .set((eb) => ({ uses_remaining: eb('uses_remaining', '-', 1), updated_at: toDbDate(dialect, now) }))
        .where('token_digest', '=', digest)
        .where('realm_id', '=', realmId)
        .where('uses_remaining', '>', 0)
        .where('expires_at', '>', toDbDate(dialect, now))
        .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
}
