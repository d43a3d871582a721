import type { ExpressionBuilder, Kysely, QueryCreator } from 'kysely';
import { prepareQuery } from '../db/prepared.js';
import { prepareInsert } from './prepared-insert.js';
import { protocolTransaction } from './write-transaction.js';
import { createGroupCommit } from './group-commit.js';
import type { Database } from '../db/schema.js';
import { toDbDate, type DialectName } from '../db/values.js';

/**
 * auth_session_tokens rows of kind `refresh_token`: a refresh token is usable while its chain's row
 * exists and names its jti (RFC 9700 §4.14.2 rotation: each use moves the row to the successor).
 */
const REFRESH = 'refresh_token';

/** Every code redemption writes one row and every refresh grant rotates one: compiled once (db/prepared.ts). */
const INSERT_TOKEN = prepareInsert('auth_session_tokens', ['id', 'kind', 'session_id', 'expires_at', 'created_at', 'jti']);

/**
 * The chain's row of a token: found by its session (the session_id index) and matched by the jti
 * it holds (migration 0027), or by its id on a row written before that column, whose id is its jti.
 */
const CURRENT_TOKEN = (spent: string) => (eb: ExpressionBuilder<Database, 'auth_session_tokens'>) =>
    eb.or([eb('jti', '=', spent), eb.and([eb('jti', 'is', null), eb('id', '=', spent)])]);

/**
 * The UPDATE that moves the chain's row to the successor (parameters: successor jti, expiry,
 * creation time; spent jti; session; now); `moveExpiry` false leaves the row's expiry, an indexed
 * column, as it is (see SESSION_TOUCH_INTERVAL_MS).
 */
const rotateTokenRow = (db: QueryCreator<Database>, param: (index: number) => string, moveExpiry: boolean) => db.updateTable('auth_session_tokens')
    .set({ jti: param(0), ...(moveExpiry ? { expires_at: param(1) } : {}), created_at: param(2) })
    .where('session_id', '=', param(4)).where('kind', '=', REFRESH).where(CURRENT_TOKEN(param(3)));
const ROTATE_REFRESH_TOKEN = prepareQuery((db, param) => rotateTokenRow(db, param, true));
const ROTATE_REFRESH_TOKEN_ONLY = prepareQuery((db, param) => rotateTokenRow(db, param, false));
const TOUCH_SESSION = prepareQuery((db, param) => db.updateTable('auth_sessions')
    .set({ seen_at: param(5), expires_at: param(1), updated_at: param(5) }).where('id', '=', param(4)));
/** PostgreSQL: both in one statement; the session row is updated only when the token row was (its count is the answer) */
const ROTATE_AND_TOUCH = prepareQuery((db, param) => db
    .with('rotated', (qb) => rotateTokenRow(qb, param, true).returning('session_id'))
    .updateTable('auth_sessions')
    .set({ seen_at: param(5), expires_at: param(1), updated_at: param(5) })
    .where('id', 'in', (qb) => qb.selectFrom('rotated').select('rotated.session_id')));

/**
 * How stale a session's `seen_at` and expiry may grow before a refresh writes them again. A refresh
 * moves both to "now" and "now plus the refresh lifetime"; writing them on every rotation costs a
 * second row and the expiry indexes of both rows in the commit (several times the token row alone
 * on SQLite's write-ahead log), for a change of seconds in a value measured in days. Within this
 * interval of the last write the rotation rewrites the token row's non-indexed columns alone; the
 * session may then end, and the row be swept, up to this long before the refresh token's `exp`.
 */
export const SESSION_TOUCH_INTERVAL_MS = 60_000;

/** Whether a rotation at `now` moves the session's `seen_at` and expiry (SESSION_TOUCH_INTERVAL_MS). */
export function sessionTouchDue(session: { seenAt: Date | null; expiresAt: Date }, successorExpiresAt: Date, now: number): boolean {
    if (session.seenAt === null || now - session.seenAt.getTime() >= SESSION_TOUCH_INTERVAL_MS) return true;
    return Math.abs(successorExpiresAt.getTime() - session.expiresAt.getTime()) >= SESSION_TOUCH_INTERVAL_MS;
}

export type RefreshTokenRow = Parameters<typeof INSERT_TOKEN>[1][number];

export function refreshTokenRowOf(dialect: DialectName, token: { id: string; sessionId: string; expiresAt: Date; createdAt: Date }): RefreshTokenRow {
    return {
        id: token.id, kind: REFRESH, session_id: token.sessionId,
        expires_at: toDbDate(dialect, token.expiresAt), created_at: toDbDate(dialect, token.createdAt), jti: token.id,
    };
}

/** Refresh token rows in one multi-row INSERT (several requests' rows, storage/insert-batcher.ts). */
export const insertRefreshTokenRows = (db: Kysely<Database>, rows: RefreshTokenRow[]): Promise<void> => INSERT_TOKEN(db, rows);

/**
 * A rotation (RFC 9700 §4.14.2): the chain's row names the successor's jti (with its expiry and
 * creation time) when it still names the spent one, and — when due — the session records
 * the activity and moves its expiry to the successor's. The one UPDATE of the token row decides
 * between concurrent uses, as a DELETE would; false: the spent jti was not the chain's usable one
 * (a replay), and nothing changed.
 *
 * One commit for both: on PostgreSQL one statement (a data-modifying WITH, one round trip), on
 * SQLite and MySQL a transaction of two. A commit is the expensive part of a write wherever the
 * log is flushed on commit (PostgreSQL, InnoDB), and one round trip instead of four matters on a network.
 * On SQLite the rotations of one turn of the event loop share their transaction (storage/group-commit.ts):
 * the one connection runs them in turn either way, and the commit is the larger part of each.
 * `session` (its last activity and expiry as read) says whether the session's row is due
 * (sessionTouchDue); when it is not, the rotation is the token row's UPDATE alone. Absent: always due.
 */
export async function rotateRefreshToken(
    db: Kysely<Database>, dialect: DialectName, spentJti: string,
    successor: { id: string; sessionId: string; expiresAt: Date; createdAt: Date }, session?: { seenAt: Date | null; expiresAt: Date },
): Promise<boolean> {
    const touchSession = session === undefined || sessionTouchDue(session, successor.expiresAt, Date.now());
    const now = toDbDate(dialect, new Date());
    const values = [
        successor.id, toDbDate(dialect, successor.expiresAt), toDbDate(dialect, successor.createdAt), spentJti, successor.sessionId, now,
    ];
    if (!touchSession) {
        if (dialect === 'sqlite' && !db.isTransaction) return groupedTokenRotation(db, values);
        return (await ROTATE_REFRESH_TOKEN_ONLY.run(db, values)) > 0;
    }
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
const groupedTokenRotation = createGroupCommit(async (tx, values: unknown[]) => (await ROTATE_REFRESH_TOKEN_ONLY.run(tx, values)) > 0);

/** Removes a refresh token's row when it belongs to the session (revocation). */
export async function deleteRefreshTokenOfSession(db: Kysely<Database>, jti: string, sessionId: string): Promise<void> {
    await db.deleteFrom('auth_session_tokens').where('session_id', '=', sessionId).where('kind', '=', REFRESH).where(CURRENT_TOKEN(jti)).execute();
}

/** Whether the refresh token's row still exists in its session. */
export async function refreshTokenExists(db: Kysely<Database>, jti: string, sessionId: string): Promise<boolean> {
    const row = await db.selectFrom('auth_session_tokens').select('id').where('session_id', '=', sessionId)
        .where('kind', '=', REFRESH).where(CURRENT_TOKEN(jti)).executeTakeFirst();
    return row !== undefined;
}
