import type { Kysely } from 'kysely';
import type { Database, DbDate } from '../db/schema.js';

/** A client's realm; undefined when no client has this id. */
export async function findClientRealm(db: Kysely<Database>, id: string): Promise<{ realm_id: string } | undefined> {
    return db.selectFrom('auth_clients').select('realm_id').where('id', '=', id).executeTakeFirst();
}

/** The clients whose secret is encrypted under a key (the envelope names it: enc:v1:<keyId>:…). */
export async function clientsEncryptedUnder(db: Kysely<Database>, keyId: string): Promise<string[]> {
    const rows = await db.selectFrom('auth_clients').select('id').where('secret', 'like', `enc:v1:${keyId}:%`).execute();
    return rows.map((row) => row.id);
}

/** Destroy the secrets of these clients (their key is going away). */
export async function clearClientSecrets(db: Kysely<Database>, ids: readonly string[], now: DbDate): Promise<void> {
    await db.updateTable('auth_clients').set({ secret: null, updated_at: now }).where('id', 'in', ids).execute();
}
