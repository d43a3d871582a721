import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { fromDbDate, toDbDate, type DialectName } from '../db/values.js';

/** A pushed authorization request as stored (migration 0020). */
export interface PushedRequest {
    realmId: string;
    clientId: string;
    /** JSON text, written and read by oauth2/authorize/pushed-requests.ts */
    parameters: string;
    expiresAt: Date;
}

export async function insertPushedRequest(db: Kysely<Database>, dialect: DialectName, digest: string, request: PushedRequest): Promise<void> {
    await db.insertInto('auth_pushed_requests').values({
        id: digest, realm_id: request.realmId, client_id: request.clientId, parameters: request.parameters, expires_at: toDbDate(dialect, request.expiresAt),
    }).execute();
}

/**
 * Takes the pushed request a reference's digest names for its client, once (RFC 9126 §4: single
 * use): the row is read, then deleted by its key, and only the caller whose DELETE removed it gets
 * it — two concurrent redemptions on any dialect or replica find one row between them. Expiry is
 * the caller's judgement (its clock); an expired row is removed all the same.
 */
export async function takePushedRequest(db: Kysely<Database>, digest: string, clientId: string): Promise<PushedRequest | undefined> {
    const row = await db.selectFrom('auth_pushed_requests').select(['realm_id', 'client_id', 'parameters', 'expires_at'])
        .where('id', '=', digest).where('client_id', '=', clientId).executeTakeFirst();
    if (!row) return undefined;
    const deleted = await db.deleteFrom('auth_pushed_requests').where('id', '=', digest).where('client_id', '=', clientId).executeTakeFirst();
    if (Number(deleted.numDeletedRows) !== 1) return undefined;
    return { realmId: row.realm_id, clientId: row.client_id, parameters: row.parameters, expiresAt: fromDbDate(row.expires_at) };
}
