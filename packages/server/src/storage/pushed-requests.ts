import type { Insertable, Kysely } from 'kysely';
import type { Database, PushedRequestTable } from '../db/schema.js';
import { createInsertBatcher } from './insert-batcher.js';
import { prepareInsert } from './prepared-insert.js';
import { fromDbDate, toDbDate, type DialectName } from '../db/values.js';

/** A pushed authorization request as stored (migration 0020). */
export interface PushedRequest {
    realmId: string;
    clientId: string;
    /** JSON text, written and read by oauth2/authorize/pushed-requests.ts */
    parameters: string;
    expiresAt: Date;
}

/** One multi-row INSERT, its text compiled once per row count (prepared-insert.ts). */
const insertRows = prepareInsert('auth_pushed_requests', ['id', 'realm_id', 'client_id', 'parameters', 'expires_at']);

/**
 * Concurrent pushes share one INSERT and so one commit (insert-batcher.ts), each push still
 * answered with its own row's outcome. Committed synchronously before the push answers: the
 * request_uri it hands out names a row every replica can redeem at once (RFC 9126 §2.2).
 */
const insertBatched = createInsertBatcher<Insertable<PushedRequestTable>>(insertRows);

export async function insertPushedRequest(db: Kysely<Database>, dialect: DialectName, digest: string, request: PushedRequest): Promise<void> {
    await insertBatched(db, {
        id: digest, realm_id: request.realmId, client_id: request.clientId, parameters: request.parameters, expires_at: toDbDate(dialect, request.expiresAt),
    });
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
