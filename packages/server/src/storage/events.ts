import type { Insertable, Kysely } from 'kysely';
import type { Database, EventTable } from '../db/schema.js';

/** Insert one event row (spec Events), through the caller's transaction when it writes one. */
export async function insertEvent(db: Kysely<Database>, event: Insertable<EventTable>): Promise<void> {
    await db.insertInto('auth_events').values(event).execute();
}
