import type { Kysely } from 'kysely';
import { prepareQuery } from '../db/prepared.js';
import { prepareInsert } from './prepared-insert.js';
import { protocolTransaction } from './write-transaction.js';
import { createGroupCommit } from './group-commit.js';
import type { Database } from '../db/schema.js';
import { toDbDate, type DialectName } from '../db/values.js';

/**
 * auth_session_tokens rows of kind `refresh_token`: a refresh token is usable while its row exists
 * (RFC 9700 §4.14.2 rotation: each use removes it).
 */
const REFRESH = 'refresh_token';

/** Every code redemption writes one row and every refresh grant rotates one: compiled once (db/prepared.ts). */
const INSERT_TOKEN = prepareInsert('auth_session_tokens', ['id', 'kind', 'session_id', 'expires_at', 'created_at']);
/** parameters: successor id, expiry, creation time; spent id; session; now */
const ROTATE_REFRESH_TOKEN = prepareQuery((db, param) => db.updateTable('auth_session_tokens')
    .set({ id: param(0), expires_at: param(1), created_at: param(2) })
    .where('id', '=', param(3)).where('kind', '=', REFRESH).where('session_id', '=', param(4)));
const TOUCH_SESSION = prepareQuery((db, param) => db.updateTable('auth_sessions')
    .set({ seen_at: param(5), expires_at: param(1), updated_at: param(5) }).where('id', '=', param(4)));
/** PostgreSQL: both in one statement; the session row is updated only when the token row was (its count is the answer) */
const ROTATE_AND_TOUCH = prepareQuery((db, param) => db
    .with('rotated', (qb) => qb.updateTable('auth_session_tokens')
        .set({ id: param(0), expires_at: param(1), created_at: param(2) })
        .where('id', '=', param(3)).where('kind', '=', REFRESH).where('session_id', '=', param(4))
        .returning('session_id'))
    .updateTable('auth_sessions')
    .set({ seen_at: param(5), expires_at: param(1), updated_at: param(5) })
    .where('id', 'in', (qb) => qb.selectFrom('rotated').select('rotated.session_id')));

export type RefreshTokenRow = Parameters<typeof INSERT_TOKEN>[1][number];

export function refreshTokenRowOf(dialect: DialectName, token: { id: string; sessionId: string; expiresAt: Date; createdAt: Date }): RefreshTokenRow {
    return {
        id: token.id, kind: REFRESH, session_id: token.sessionId,
        expires_at: toDbDate(dialect, token.expiresAt), created_at: toDbDate(dialect, token.createdAt),
    };
}

/** Refresh token rows in one multi-row INSERT (several requests' rows, storage/insert-batcher.ts). */
export const insertRefreshTokenRows = (db: Kysely<Database>, rows: RefreshTokenRow[]): Promise<void> => INSERT_TOKEN(db, rows);

/**
 * A rotation (RFC 9700 §4.14.2): the spent token's row becomes its successor's (new id, expiry and
 * creation time) when it still exists in its session, and the session records the activity and
 * moves its expiry to the successor's. The one UPDATE of the token row decides between concurrent
 * uses, as a DELETE would; false: the row was gone already (a replay), and nothing changed.
 *
 * One commit for both: on PostgreSQL one statement (a data-modifying WITH, one round trip), on
 * SQLite and MySQL a transaction of two. A commit is the expensive part of a write wherever the
 * log is flushed on commit (PostgreSQL, InnoDB), and one round trip instead of four matters on a network.
 * On SQLite the rotations of one turn of the event loop share their transaction (storage/group-commit.ts):
 * the one connection runs them in turn either way, and the commit is the larger part of each.
 */
export async function rotateRefreshToken(db: Kysely<Database>, dialect: DialectName, spentJti: string, successor: { id: string; sessionId: string; expiresAt: Date; createdAt: Date }): Promise<boolean> {
    const now = toDbDate(dialect, new Date());
    const values = [
        successor.id, toDbDate(dialect, successor.expiresAt), toDbDate(dialect, successor.createdAt), spentJti, successor.sessionId, now,
    ];
    if (dialect === 'postgres') return (await ROTATE_AND_TOUCH.run(db, values)) > 0;
    if (dialect === 'sqlite' && !db.isTransaction) return groupedRotation(db, values);
    return protocolTransaction(db, (tx) => rotateInTransaction(tx, values));
}

async function rotateInTransaction(tx: Kysely<Database>, values: unknown[]): Promise<boolean> {
    if ((await ROTATE_REFRESH_TOKEN.run(tx, values)) === 0) return false;
    await TOUCH_SESSION.run(tx, values);
    return true;
}

const groupedRotation = createGroupCommit(rotateInTransaction);

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
