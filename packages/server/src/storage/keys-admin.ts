import type { Insertable, Kysely } from 'kysely';
import type { Database, DbDate, KeyTombstoneTable } from '../db/schema.js';

/** Leave a deleted signing key's public half behind, pruning tombstones deleted before `prunedBefore`. */
export async function buryKeyTombstone(db: Kysely<Database>, tombstone: Insertable<KeyTombstoneTable>, prunedBefore: DbDate): Promise<void> {
    await db.deleteFrom('auth_key_tombstones').where('deleted_at', '<', prunedBefore).execute();
    await db.insertInto('auth_key_tombstones').values(tombstone).execute();
}

/** Store a signing key's public JWK (it names its kid, the row id, known once the row exists). */
export async function setKeyPublicJwk(db: Kysely<Database>, id: string, publicKey: string): Promise<void> {
    await db.updateTable('auth_keys').set({ public_key: publicKey }).where('id', '=', id).execute();
}
