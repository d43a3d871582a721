import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';

/** A folder's place: its parent and realm; undefined when no folder has this id. */
export async function findPathPlace(db: Kysely<Database>, id: string): Promise<{ parent_id: string | null; realm_id: string } | undefined> {
    return db.selectFrom('auth_paths').select(['parent_id', 'realm_id']).where('id', '=', id).executeTakeFirst();
}
