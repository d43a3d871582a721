import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { fromDbBool, fromDbDate, fromDbDateOrNull, type DialectName } from '../db/values.js';
import { insertSessionRows, sessionRowOf, type NewSessionRecord } from './sessions.js';

/**
 * A browser session (the console session, spec Authentication 1): an auth_sessions row without a client, whose cookie secret's
 * SHA-256 digest is stored so the cookie can be checked; created_at is the authentication time.
 */
export async function insertBrowserSession(db: Kysely<Database>, dialect: DialectName, session: NewSessionRecord & { cookieDigest: string | null; acr: string }): Promise<void> {
    const { cookieDigest, acr, ...record } = session;
    await insertSessionRows(db, [{ ...sessionRowOf(dialect, record), cookie_digest: cookieDigest, acr }]);
}

/** What a console-session cookie is checked against: the session row and its user. */
export interface BrowserSessionRow {
    id: string;
    sub: string;
    subKind: string;
    realmId: string;
    realmName: string;
    clientId: string | null;
    cookieDigest: string | null;
    revokedAt: Date | null;
    expiresAt: Date;
    /** the authentication time */
    createdAt: Date;
    /** the authentication strength (tokens/claims.ts ACR); null when unknown (a row from before it was kept) */
    acr: string | null;
    /** the user's active mark and name; null when the subject is no user of the session's realm */
    userActive: boolean | null;
    userName: string | null;
}

export async function findBrowserSession(db: Kysely<Database>, sessionId: string): Promise<BrowserSessionRow | undefined> {
    const row = await db.selectFrom('auth_sessions')
        .innerJoin('auth_realms', 'auth_realms.id', 'auth_sessions.realm_id')
        .leftJoin('auth_users', (join) => join.onRef('auth_users.id', '=', 'auth_sessions.sub').onRef('auth_users.realm_id', '=', 'auth_sessions.realm_id'))
        .select([
            'auth_sessions.id', 'auth_sessions.sub', 'auth_sessions.sub_kind', 'auth_sessions.realm_id', 'auth_sessions.client_id',
            'auth_sessions.cookie_digest', 'auth_sessions.acr', 'auth_sessions.revoked_at', 'auth_sessions.expires_at', 'auth_sessions.created_at',
            'auth_users.active as user_active', 'auth_users.name as user_name', 'auth_realms.name as realm_name',
        ])
        .where('auth_sessions.id', '=', sessionId)
        .executeTakeFirst();
    if (!row) return undefined;
    return {
        id: row.id, sub: row.sub, subKind: row.sub_kind, realmId: row.realm_id, realmName: row.realm_name, clientId: row.client_id,
        cookieDigest: row.cookie_digest, revokedAt: fromDbDateOrNull(row.revoked_at), expiresAt: fromDbDate(row.expires_at),
        createdAt: fromDbDate(row.created_at), acr: row.acr, userActive: row.user_active === null ? null : fromDbBool(row.user_active),
        userName: row.user_name,
    };
}

/** The subject and parent of a session (RP-initiated logout: the `sid` of an ID token and the browser session behind it). */
export async function findSessionLink(db: Kysely<Database>, sessionId: string): Promise<{ sub: string; realmId: string; parentId: string | null } | undefined> {
    const row = await db.selectFrom('auth_sessions').select(['sub', 'realm_id', 'parent_id']).where('id', '=', sessionId).executeTakeFirst();
    return row && { sub: row.sub, realmId: row.realm_id, parentId: row.parent_id };
}
