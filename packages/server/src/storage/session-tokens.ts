import type { Kysely } from 'kysely';
import { prepareQuery } from '../db/prepared.js';
import { prepareInsert } from './prepared-insert.js';
import type { Database } from '../db/schema.js';
import { toDbDate, type DialectName } from '../db/values.js';

/**
 * auth_session_tokens rows of kind `refresh_token`: a refresh token is usable while its row exists
 * (RFC 9700 §4.14.2 rotation: each use removes it).
 */
const REFRESH = 'refresh_token';

/** Every refresh grant and code redemption writes one row and the refresh grant deletes one: compiled once (db/prepared.ts). */
const INSERT_TOKEN = prepareInsert('auth_session_tokens', ['id', 'kind', 'session_id', 'expires_at', 'created_at']);
const DELETE_REFRESH_TOKEN = prepareQuery((db, param) => db.deleteFrom('auth_session_tokens').where('id', '=', param(0)).where('kind', '=', REFRESH));

export type RefreshTokenRow = Parameters<typeof INSERT_TOKEN>[1][number];

export function refreshTokenRowOf(dialect: DialectName, token: { id: string; sessionId: string; expiresAt: Date; createdAt: Date }): RefreshTokenRow {
    return {
        id: token.id, kind: REFRESH, session_id: token.sessionId,
        expires_at: toDbDate(dialect, token.expiresAt), created_at: toDbDate(dialect, token.createdAt),
    };
}

/** Refresh token rows in one multi-row INSERT (several requests' rows, storage/insert-batcher.ts). */
export const insertRefreshTokenRows = (db: Kysely<Database>, rows: RefreshTokenRow[]): Promise<void> => INSERT_TOKEN(db, rows);

/** Removes a refresh token's row; false when it was gone already. One DELETE decides between concurrent uses. */
export async function deleteRefreshToken(db: Kysely<Database>, jti: string): Promise<boolean> {
    return (await DELETE_REFRESH_TOKEN.run(db, [jti])) > 0;
}

/** Removes a refresh token's row when it belongs to the session (revocation). */
export async function deleteRefreshTokenOfSession(db: Kysely<Database>, jti: string, sessionId: string): Promise<void> {
    await db.deleteFrom('auth_session_tokens').where('id', '=', jti).where('kind', '=', REFRESH).where('session_id', '=', sessionId).execute();
}

/** Whether the refresh token's row still exists in its session. */
export async function refreshTokenExists(db: Kysely<Database>, jti: string, sessionId: string): Promise<boolean> {
    const row = await db.selectFrom('auth_session_tokens').select('id').where('id', '=', jti)
        .where('kind', '=', REFRESH).where('session_id', '=', sessionId).executeTakeFirst();
    return row !== undefined;
}
