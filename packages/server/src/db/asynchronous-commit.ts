import type { Kysely } from 'kysely';
import type { DatabaseHandle } from './connect.js';
import type { Database } from './schema.js';

/*
 * Asynchronous commit (PostgreSQL documentation, "Asynchronous Commit" in the WAL chapter): a
 * commit on `handle.asyncCommitDb`'s connections (`synchronous_commit = off`, db/postgres.ts)
 * returns before its WAL record reaches the disk. A crash of PostgreSQL — a killed Realmgate
 * process loses no commit — may lose the transactions committed in the last moments (at most three
 * times wal_writer_delay, 600 ms by default), "as though they had been aborted cleanly"; the
 * database stays consistent.
 *
 * Only rows whose loss fails closed are written there:
 * - the session row of a login: spec States makes a token active only while its session row is,
 *   and Authentication rule 2 accepts a token only when its session belongs to the realm the token
 *   names; a token whose session row is missing is inactive (introspection active false, a bearer
 *   401, a refresh invalid_grant) — the holder signs in again;
 * - a refresh token's row: a refresh token is usable only while its row exists (RFC 9700 §4.14.2
 *   rotation); without it the refresh answers invalid_grant;
 * - event-log entries: best effort already (writing one never fails its request) and they decide nothing.
 *
 * Everything else commits synchronously, because losing it would fail open:
 * - a revocation or session end (spec States: revoked_at, deletions): lost, a token the server
 *   declared inactive would be active again;
 * - the spending of an authorization code, a device code, or of a refresh token at rotation (the
 *   UPDATE that gives the spent token's row its successor's id): lost, the spent credential could
 *   be redeemed again, the replay RFC 6749 §4.1.2 and RFC 9700 §4.14.2 require to be refused —
 *   so the rotation stays on the request pool although its new row alone would fail closed;
 * - users, clients, keys, grants, deactivations: lost, something deleted or disabled comes back;
 * - a session inserted inside a caller's transaction stays in it (atomic with what the transaction
 *   spends), so synchronous: only a write outside any transaction is redirected here.
 *
 * A durable write never depends on a lost row: the WAL is one sequence and a synchronous commit
 * flushes every record before its own, so an asynchronous row that a later synchronous write saw
 * (a session a revocation ended, the session a code's redemption names when it spends the code)
 * is on disk with that write. A crash only loses the newest asynchronous commits, after the last flush.
 */

/** Where a row whose loss fails closed is written: the asynchronous-commit connections for a write on `handle.db`, else `db` itself. */
export type FailClosedWriter = (db: Kysely<Database>) => Kysely<Database>;

/** Writes every row where it was asked (SQLite, MySQL, DB_ASYNCHRONOUS_COMMIT=false, unit tests). */
export const sameDatabase: FailClosedWriter = (db) => db;

/**
 * The writer of a handle: with `enabled` (DB_ASYNCHRONOUS_COMMIT) and an asynchronous-commit pool,
 * writes on the handle's own `db` move to it; a transaction, or another database, stays as it is.
 */
export function failClosedWriter(handle: Pick<DatabaseHandle, 'db' | 'asyncCommitDb'>, enabled: boolean): FailClosedWriter {
    const asyncCommitDb = enabled ? handle.asyncCommitDb : undefined;
    if (!asyncCommitDb) return sameDatabase;
    return (db) => (db === handle.db ? asyncCommitDb : db);
}
