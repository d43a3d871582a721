import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { toDbDate, type DialectName } from '../../db/values.js';
import type { TokenSubject } from './claims.js';

export interface NewSession {
    subject: TokenSubject;
    clientId: string | null;
    ipAddress: string | null;
    userAgent: string | null;
    expiresAt: Date;
}

/**
 * One auth_sessions row per login; created_at is the authentication time (API.md §3). Every token
 * names its session, and revoking the row ends them all (spec States).
 */
export interface SessionStore {
    create(db: Kysely<Database>, session: NewSession): Promise<string>;
    /** sets revoked_at (spec States: the next request with one of its tokens answers 401) */
    revoke(db: Kysely<Database>, sessionId: string): Promise<void>;
    /** a refresh extends the session to the new refresh token's expiry and records the activity */
    touch(db: Kysely<Database>, sessionId: string, expiresAt: Date): Promise<void>;
}

export function createSessionStore(dialect: DialectName): SessionStore {
    const date = (value: Date) => toDbDate(dialect, value);
    return {
        async create(db, session) {
            const id = randomUUID();
            const now = date(new Date());
            await db.insertInto('auth_sessions').values({
                id,
                sub: session.subject.id,
                sub_kind: session.subject.kind,
                user_id: session.subject.kind === 'user' ? session.subject.id : null,
                client_id: session.clientId,
                realm_id: session.subject.realmId,
                ip_address: session.ipAddress?.slice(0, 64) ?? null,
                user_agent: session.userAgent,
                seen_at: now,
                expires_at: date(session.expiresAt),
                revoked_at: null,
                created_at: now,
                updated_at: now,
            }).execute();
            return id;
        },
        async revoke(db, sessionId) {
            const now = date(new Date());
            await db.updateTable('auth_sessions').set({ revoked_at: now, updated_at: now })
                .where('id', '=', sessionId).where('revoked_at', 'is', null).execute();
        },
        async touch(db, sessionId, expiresAt) {
            const now = date(new Date());
            await db.updateTable('auth_sessions').set({ seen_at: now, expires_at: date(expiresAt), updated_at: now })
                .where('id', '=', sessionId).execute();
        },
    };
}
