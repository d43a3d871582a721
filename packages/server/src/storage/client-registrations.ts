import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { toDbDate, type DialectName } from '../db/values.js';

/** Records the registration access token (its digest) of a client just registered (RFC 7592 §1.1). */
export async function insertClientRegistration(db: Kysely<Database>, dialect: DialectName, row: { clientId: string; realmId: string; digest: string }): Promise<void> {
    const now = toDbDate(dialect, new Date());
    await db.insertInto('auth_client_registrations').values({
        client_id: row.clientId, realm_id: row.realmId, token_digest: row.digest, created_at: now, updated_at: now,
    }).execute();
}

/**
 * The client a registration access token (its digest) manages, when it is this client of this
 * realm: a token never reaches another client or another realm (RFC 7592 §3).
 */
export async function registrationMatches(db: Kysely<Database>, realmId: string, clientId: string, digest: string): Promise<boolean> {
    const row = await db.selectFrom('auth_client_registrations').select('client_id')
        .where('token_digest', '=', digest).where('client_id', '=', clientId).where('realm_id', '=', realmId)
        .executeTakeFirst();
    return row !== undefined;
}

/** Replaces a client's registration access token (RFC 7592 §2.2: rotated on update); false when the old one no longer matches. */
export async function replaceRegistrationToken(db: Kysely<Database>, dialect: DialectName, clientId: string, oldDigest: string, newDigest: string): Promise<boolean> {
    const result = await db.updateTable('auth_client_registrations')
        .set({ token_digest: newDigest, updated_at: toDbDate(dialect, new Date()) })
        .where('client_id', '=', clientId).where('token_digest', '=', oldDigest)
        .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
}
