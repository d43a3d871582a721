import type { Insertable, Kysely, Selectable } from 'kysely';
import { prepareQuery } from '../db/prepared.js';
import { prepareInsert } from './prepared-insert.js';
import type { Database, SessionTable, UserTable } from '../db/schema.js';
import { fromDbBool, fromDbDate, fromDbDateOrNull, toDbDate, type DialectName } from '../db/values.js';
import { revokeSessionsCascading, type EndedSession } from './session-revocation.js';
import type { SubjectKind } from './subjects.js';
import type { UserProfile } from './users.js';

/** A new auth_sessions row (API.md §3): created_at is the authentication time. */
export interface NewSessionRecord {
    id: string;
    subjectId: string;
    subjectKind: SubjectKind;
    clientId: string | null;
    realmId: string;
    ipAddress: string | null;
    userAgent: string | null;
    expiresAt: Date;
    createdAt: Date;
    /** the browser session an application session was signed in through (ending it ends this one); null otherwise */
    parentId?: string | null;
}

/** A session row ready to insert, kept opaque so callers can batch rows without knowing columns. */
export type SessionRow = Insertable<SessionTable>;

export function sessionRowOf(dialect: DialectName, session: NewSessionRecord): SessionRow {
    const now = toDbDate(dialect, new Date());
    return {
        id: session.id,
        sub: session.subjectId,
        sub_kind: session.subjectKind,
        user_id: session.subjectKind === 'user' ? session.subjectId : null,
        client_id: session.clientId,
        realm_id: session.realmId,
        ip_address: session.ipAddress?.slice(0, 64) ?? null,
        user_agent: session.userAgent,
        seen_at: now,
        expires_at: toDbDate(dialect, session.expiresAt),
        revoked_at: null,
        parent_id: session.parentId ?? null,
        // the authentication time: earlier than the row for a session signed in through another
        created_at: toDbDate(dialect, session.createdAt),
        updated_at: now,
    };
}

/** One multi-row INSERT of sessions (the columns sessionRowOf writes, and a browser session's cookie digest and strength), compiled once per row count. */
export const insertSessionRows: (db: Kysely<Database>, rows: SessionRow[]) => Promise<void> = prepareInsert('auth_sessions', [
    'id', 'sub', 'sub_kind', 'user_id', 'client_id', 'realm_id', 'ip_address', 'user_agent',
    'seen_at', 'expires_at', 'revoked_at', 'parent_id', 'cookie_digest', 'acr', 'created_at', 'updated_at',
]);

/** Sets revoked_at on a live session and its children (spec States); the sessions it ended. */
/**
 * Deletes a session no token was issued in (a code redemption that lost the race for its code):
 * it ended nothing anyone holds, so it is no revocation (no session-end event, no back-channel logout).
 */
export async function deleteUnusedSession(db: Kysely<Database>, sessionId: string): Promise<void> {
    await db.deleteFrom('auth_sessions').where('id', '=', sessionId).execute();
}

export function revokeSession(db: Kysely<Database>, dialect: DialectName, sessionId: string): Promise<EndedSession[]> {
    return revokeSessionsCascading(db, dialect, (eb) => eb('auth_sessions.id', '=', sessionId));
}

/** Revokes every live session of a subject but `keep` (and their children); the sessions ended. */
export function revokeSessionsOfSubject(
    db: Kysely<Database>,
    dialect: DialectName,
    subject: { kind: SubjectKind; id: string },
    keep?: string | null,
): Promise<EndedSession[]> {
    return revokeSessionsCascading(db, dialect, (eb) => eb.and([
        // a user's sessions carry user_id = sub (sessionRowOf): the user_id index finds them (migration 0011)
        ...(subject.kind === 'user' ? [eb('auth_sessions.user_id', '=', subject.id)] : []),
        eb('auth_sessions.sub', '=', subject.id),
        eb('auth_sessions.sub_kind', '=', subject.kind),
        ...(keep ? [eb('auth_sessions.id', '!=', keep)] : []),
    ]));
}

/** Revokes every live session a client holds as subject or was issued tokens in (and their children); the sessions ended. */
export function revokeSessionsOfClient(db: Kysely<Database>, dialect: DialectName, clientId: string): Promise<EndedSession[]> {
    // a session a client holds as subject names it as its client as well (client_credentials:
    // issueForLogin's clientId is the authenticated client, the subject): client_id alone finds
    // both kinds, through its index; `OR sub = ?` would scan the table (docs/indexes.md)
    return revokeSessionsCascading(db, dialect, (eb) => eb('auth_sessions.client_id', '=', clientId));
}

/** What the refresh grant checks of a session. */
export interface SessionLife {
    sub: string;
    realmId: string;
    revokedAt: Date | null;
    expiresAt: Date;
    /** the authentication time */
    createdAt: Date;
}

export async function findSessionLife(db: Kysely<Database>, sessionId: string): Promise<SessionLife | undefined> {
    const row = await db.selectFrom('auth_sessions').select(['sub', 'realm_id', 'revoked_at', 'expires_at', 'created_at'])
        .where('id', '=', sessionId).executeTakeFirst();
    return row && {
        sub: row.sub, realmId: row.realm_id, revokedAt: fromDbDateOrNull(row.revoked_at),
        expiresAt: fromDbDate(row.expires_at), createdAt: fromDbDate(row.created_at),
    };
}

/** The state query of a token, prepared once per subject table (the SQL only varies by sub_kind). */
function stateQuery(subjectTable: 'auth_users' | 'auth_clients') {
    return prepareQuery((db, param) => db.selectFrom('auth_sessions')
        .leftJoin('auth_clients as session_client', 'session_client.id', 'auth_sessions.client_id')
        // both subject tables have id, realm_id and active
        .leftJoin(`${subjectTable as 'auth_users'} as subject`, (join) => join.on('subject.id', '=', param(0)))
        .leftJoin('auth_keys as signing_key', (join) => join.on('signing_key.id', '=', param(1)).on('signing_key.use', '=', 'sig'))
        .select([
            'auth_sessions.sub', 'auth_sessions.realm_id', 'auth_sessions.client_id', 'auth_sessions.expires_at',
            'auth_sessions.revoked_at', 'auth_sessions.created_at', 'auth_sessions.seen_at', 'session_client.active as client_active',
            'subject.realm_id as subject_realm_id', 'subject.active as subject_active',
            'signing_key.status as key_status', 'signing_key.id as key_id',
            'signing_key.realm_id as key_realm_id', 'signing_key.created_at as key_created_at',
        ])
        .where('auth_sessions.id', '=', param(2)));
}
/**
 * A user token's state with the user's profile columns from the row the query joins anyway
 * (fewer database round trips on the hot paths): userinfo and introspection answer the OpenID claims without a second round
 * trip, and nothing is cached — the claims are as fresh as the session they come with.
 */
const STATE_OF_USER_TOKEN = prepareQuery((db, param) => db.selectFrom('auth_sessions')
    .leftJoin('auth_clients as session_client', 'session_client.id', 'auth_sessions.client_id')
    .leftJoin('auth_users as subject', (join) => join.on('subject.id', '=', param(0)))
    .leftJoin('auth_keys as signing_key', (join) => join.on('signing_key.id', '=', param(1)).on('signing_key.use', '=', 'sig'))
    .select([
        'auth_sessions.sub', 'auth_sessions.realm_id', 'auth_sessions.client_id', 'auth_sessions.expires_at',
        'auth_sessions.revoked_at', 'auth_sessions.created_at', 'auth_sessions.seen_at', 'session_client.active as client_active',
        'subject.realm_id as subject_realm_id', 'subject.active as subject_active',
        'signing_key.status as key_status', 'signing_key.id as key_id',
        'signing_key.realm_id as key_realm_id', 'signing_key.created_at as key_created_at',
        'subject.name as subject_name', 'subject.email as subject_email', 'subject.email_verified as subject_email_verified',
        'subject.first_name as subject_first_name', 'subject.last_name as subject_last_name',
        'subject.display_name as subject_display_name', 'subject.updated_at as subject_updated_at',
        // the rest of the user's readable columns: GET /users/@me answers from this row (one round trip)
        'subject.id as subject_id', 'subject.name_locked as subject_name_locked', 'subject.status as subject_status',
        'subject.status_message as subject_status_message', 'subject.path_id as subject_path_id', 'subject.created_at as subject_created_at',
    ])
    .where('auth_sessions.id', '=', param(2)));
const STATE_OF_CLIENT_TOKEN = stateQuery('auth_clients');

/** Everything that can end a token after it was signed, as one row. */
export interface TokenState {
    /** the session's subject, realm and client */
    sub: string;
    realmId: string;
    clientId: string | null;
    expiresAt: Date;
    /** the session's last recorded activity (a refresh writes it at most once a minute: storage/session-tokens.ts) */
    seenAt: Date | null;
    revoked: boolean;
    /** the session's authentication time (API.md §3: created_at) */
    createdAt: Date;
    /** the session's client's active mark; null without a client */
    clientActive: boolean | null;
    /** the subject row's realm and active mark; null when the subject does not exist */
    subjectRealmId: string | null;
    subjectActive: boolean | null;
    /** the signing key's id and status; null when the key does not exist (or no kid was asked) */
    keyId: string | null;
    keyStatus: string | null;
    /** the signing key row's realm and creation stamp (ms): which row the kid names today */
    keyRealmId: string | null;
    keyCreatedAt: number | null;
    /** a user subject's profile (the OpenID claims' source), read in the same query; null for a client or a missing user */
    profile: UserProfile | null;
    /**
     * a user subject's row as `GET /users/@me` reads it, under the column names: every column but the
     * password, reset and activation hashes (no field reads those); null for a client or a missing user
     */
    subjectRow: OwnUserRow | null;
}

/** The user row's readable columns (domains/users/definition.ts fields), read with a token's state. */
export type OwnUserRow = Omit<Selectable<UserTable>, 'password' | 'reset_hash' | 'reset_at' | 'activate_hash' | 'activate_at'>;

/**
 * The session row, the session's client, the subject and — with `kid` — the signing key's status
 * mark, in one query on every use (spec States): one round trip instead of four on the bearer
 * hot path. Undefined when the session does not exist.
 */
export async function findTokenState(
    db: Kysely<Database>,
    token: { subjectKind: SubjectKind; subjectId: string; sessionId: string; kid: string | null },
): Promise<TokenState | undefined> {
    const parameters = [token.subjectId, token.kid ?? '', token.sessionId];
    let profile: UserProfile | null = null;
    let subjectRow: OwnUserRow | null = null;
    let row;
    if (token.subjectKind === 'user') {
        const user = await STATE_OF_USER_TOKEN.first(db, parameters);
        if (user?.subject_name != null) {
            profile = {
                name: user.subject_name, email: user.subject_email, emailVerified: fromDbBool(user.subject_email_verified ?? false),
                firstName: user.subject_first_name, lastName: user.subject_last_name, displayName: user.subject_display_name,
                updatedAt: fromDbDateOrNull(user.subject_updated_at),
            };
            subjectRow = {
                id: user.subject_id!, realm_id: user.subject_realm_id!, name: user.subject_name, name_locked: user.subject_name_locked!,
                first_name: user.subject_first_name, last_name: user.subject_last_name, display_name: user.subject_display_name,
                email: user.subject_email, email_verified: user.subject_email_verified!, active: user.subject_active!,
                status: user.subject_status, status_message: user.subject_status_message, path_id: user.subject_path_id,
                created_at: user.subject_created_at!, updated_at: user.subject_updated_at!,
            };
        }
        row = user;
    } else {
        row = await STATE_OF_CLIENT_TOKEN.first(db, parameters);
    }
    if (!row) return undefined;
    return {
        profile,
        subjectRow,
        sub: row.sub,
        realmId: row.realm_id,
        clientId: row.client_id,
        expiresAt: fromDbDate(row.expires_at),
        seenAt: fromDbDateOrNull(row.seen_at),
        revoked: row.revoked_at !== null,
        createdAt: fromDbDate(row.created_at),
        clientActive: row.client_active === null ? null : fromDbBool(row.client_active),
        subjectRealmId: row.subject_realm_id,
        subjectActive: row.subject_active === null ? null : fromDbBool(row.subject_active),
        keyId: row.key_id,
        keyStatus: row.key_status,
        keyRealmId: row.key_realm_id,
        keyCreatedAt: row.key_created_at === null ? null : fromDbDate(row.key_created_at).getTime(),
    };
}
