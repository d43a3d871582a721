import { timeOrderedId } from '../db/time-ordered-id.js';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { DialectName } from '../db/values.js';
import {
    deleteUnusedSession, insertSessionRows, revokeSession, revokeSessionsOfClient, revokeSessionsOfSubject, sessionRowOf,
} from '../storage/sessions.js';
import { revokeSessionsCascading, type EndedSession } from '../storage/session-revocation.js';
import type { RowCondition } from '../storage/resource/rows.js';
import { afterCommit } from '../storage/write-transaction.js';
import { createInsertBatcher } from '../storage/insert-batcher.js';
import { sameDatabase, type FailClosedWriter } from '../db/asynchronous-commit.js';
import type { TokenSubject } from './claims.js';

export interface NewSession {
    subject: TokenSubject;
    clientId: string | null;
    ipAddress: string | null;
    userAgent: string | null;
    expiresAt: Date;
    /**
     * an application session signed in through a browser session (code redemption):
     * the browser session, revoked with it; and the authentication time, which the code carries
     * and which is the session's created_at (API.md §3), so a refresh keeps `auth_time`
     */
    parentId?: string | null;
    authTime?: Date;
}

/**
 * One auth_sessions row per login; created_at is the authentication time (API.md §3). Every token
 * names its session, and revoking the row ends them all (spec States).
 */
export interface SessionStore {
    create(db: Kysely<Database>, session: NewSession): Promise<string>;
    /**
     * sets revoked_at (spec States: the next request with one of its tokens answers 401), on the
     * session and the sessions signed in through it; every revocation below reports the sessions
     * it ended to the store's listener once committed (back-channel logout, spec Events 6)
     */
    revoke(db: Kysely<Database>, sessionId: string): Promise<EndedSession[]>;
    /** deletes a session no token was issued in: no revocation, nothing reported (a code redemption that lost its code to another) */
    discard(db: Kysely<Database>, sessionId: string): Promise<void>;
    /**
     * ends every live session of a subject but `keep` (spec States: a password reset or a
     * deactivation ends all of them, a password change all but the current one); the count ended
     */
    endOfSubject(db: Kysely<Database>, subject: { kind: 'user' | 'client'; id: string }, keep?: string | null): Promise<EndedSession[]>;
    /** ends every live session a client holds as subject or was issued tokens in (spec States: client deactivated) */
    endOfClient(db: Kysely<Database>, clientId: string): Promise<EndedSession[]>;
    /** ends the live sessions a condition chooses (DELETE /sessions) */
    endWhere(db: Kysely<Database>, where: RowCondition): Promise<EndedSession[]>;
}

/**
 * Told of the sessions a revocation ended, after its commit; never of an expiring session (spec
 * States: an expiring session sends nothing). Must not throw: it schedules, it does not wait.
 */
export type SessionEndListener = (ended: EndedSession[]) => void;

/**
 * `failClosed` says where a session row written outside a transaction goes: its loss only makes the
 * session's tokens inactive, so on PostgreSQL it may commit asynchronously (db/asynchronous-commit.ts);
 * every revocation and deletion runs where it is asked, synchronously.
 */
export function createSessionStore(dialect: DialectName, onEnded: SessionEndListener = () => {}, failClosed: FailClosedWriter = sameDatabase): SessionStore {
    const batched = createInsertBatcher(insertSessionRows);
    /** the listener hears of what a revocation ended only once it is committed, never of a rollback */
    const reported = async (db: Kysely<Database>, ending: Promise<EndedSession[]>): Promise<EndedSession[]> => {
        const ended = await ending;
        if (ended.length > 0) afterCommit(db, () => onEnded(ended));
        return ended;
    };
    return {
        async create(db, session) {
            const id = timeOrderedId();
            const row = sessionRowOf(dialect, {
                id, subjectId: session.subject.id, subjectKind: session.subject.kind, clientId: session.clientId,
                realmId: session.subject.realmId, ipAddress: session.ipAddress, userAgent: session.userAgent,
                expiresAt: session.expiresAt, createdAt: session.authTime ?? new Date(), parentId: session.parentId ?? null,
            });
            // inside a transaction the row belongs to it and is written at once
            if (db.isTransaction) await insertSessionRows(db, [row]);
            else await batched(failClosed(db), row);
            return id;
        },
        revoke: (db, sessionId) => reported(db, revokeSession(db, dialect, sessionId)),
        discard: (db, sessionId) => deleteUnusedSession(db, sessionId),
        endOfSubject: (db, subject, keep) => reported(db, revokeSessionsOfSubject(db, dialect, subject, keep)),
        endOfClient: (db, clientId) => reported(db, revokeSessionsOfClient(db, dialect, clientId)),
        endWhere: (db, where) => reported(db, revokeSessionsCascading(db, dialect, where)),
    };
}
