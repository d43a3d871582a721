import type { Kysely } from 'kysely';
import { prepareQuery } from '../db/prepared.js';
import type { Database } from '../db/schema.js';
import type { NewAuthorizationCode } from './authorization-codes.js';
import type { UserProfile } from './users.js';
import { fromDbBool, fromDbDate, fromDbDateOrNull, toDbDate, type DialectName } from '../db/values.js';

/**
 * The redemption side of auth_authorization_codes (spec Authentication 12; RFC 6749 §4.1.3):
 * a code found by the SHA-256 digest of its value, with the state of the session it was minted
 * in and of its user, and its single use. Minting lives in storage/authorization-codes.ts.
 */
/** A stored code as minted (storage/authorization-codes.ts), with what redemption needs besides. */
export interface StoredAuthorizationCode extends Omit<NewAuthorizationCode, 'codeDigest'> {
    usedAt: Date | null;
    /** the application session the first redemption created */
    issuedSessionId: string | null;
    /** the signing-in session's end: revoked, or its expiry (null when the row is gone) */
    sessionRevoked: boolean;
    sessionExpiresAt: Date | null;
    /** the user's active mark and realm; null when the user row is gone */
    userActive: boolean | null;
    userRealmId: string | null;
    /** the user's profile (the ID token's claims), read in the same query; null when the user row is gone */
    profile: UserProfile | null;
}

/** One round trip on the redemption path: the code, its session and its user with the profile the ID token states (a prepared statement). */
const CODE_BY_DIGEST = prepareQuery((db, param) => db.selectFrom('auth_authorization_codes as code')
    .leftJoin('auth_sessions as session', 'session.id', 'code.session_id')
    .leftJoin('auth_users as code_user', 'code_user.id', 'code.user_id')
    .select([
        'code.id', 'code.realm_id', 'code.client_id', 'code.user_id', 'code.session_id', 'code.redirect_uri', 'code.scope',
        'code.nonce', 'code.code_challenge', 'code.code_challenge_method', 'code.auth_time', 'code.expires_at', 'code.used_at',
        'code.issued_session_id', 'code.acr', 'code.resource', 'code.dpop_jkt', 'session.revoked_at as session_revoked_at', 'session.expires_at as session_expires_at',
        'code_user.active as user_active', 'code_user.realm_id as user_realm_id',
        'code_user.name as user_name', 'code_user.email as user_email', 'code_user.email_verified as user_email_verified',
        'code_user.first_name as user_first_name', 'code_user.last_name as user_last_name',
        'code_user.display_name as user_display_name', 'code_user.updated_at as user_updated_at',
    ])
    .where('code.code_digest', '=', param(0)));

export async function findAuthorizationCodeByDigest(db: Kysely<Database>, digest: string): Promise<StoredAuthorizationCode | undefined> {
    const row = await CODE_BY_DIGEST.first(db, [digest]);
    if (!row) return undefined;
    return {
        id: row.id, realmId: row.realm_id, clientId: row.client_id, userId: row.user_id, sessionId: row.session_id,
        redirectUri: row.redirect_uri, scope: row.scope, nonce: row.nonce, codeChallenge: row.code_challenge,
        codeChallengeMethod: row.code_challenge_method, authTime: fromDbDate(row.auth_time), expiresAt: fromDbDate(row.expires_at),
        usedAt: fromDbDateOrNull(row.used_at), issuedSessionId: row.issued_session_id, acr: row.acr, resource: row.resource, dpopJkt: row.dpop_jkt,
        sessionRevoked: row.session_revoked_at !== null, sessionExpiresAt: fromDbDateOrNull(row.session_expires_at),
        userActive: row.user_active === null ? null : fromDbBool(row.user_active), userRealmId: row.user_realm_id,
        profile: row.user_name === null ? null : {
            name: row.user_name, email: row.user_email, emailVerified: fromDbBool(row.user_email_verified ?? false),
            firstName: row.user_first_name, lastName: row.user_last_name, displayName: row.user_display_name,
            updatedAt: fromDbDateOrNull(row.user_updated_at),
        },
    };
}

/** parameters: used_at, the issued session, the code's id (compiled once, as every statement of a token answer) */
const CONSUME_CODE = prepareQuery((db, param) => db.updateTable('auth_authorization_codes')
    .set({ used_at: param(0), issued_session_id: param(1) })
    .where('id', '=', param(2)).where('used_at', 'is', null));

/**
 * Marks the code used and names the session its redemption created, in one conditional UPDATE:
 * of concurrent redemptions exactly one sees an affected row (the same on SQLite, PostgreSQL and
 * MySQL, no lock needed). False: another redemption came first.
 */
export async function consumeAuthorizationCode(db: Kysely<Database>, dialect: DialectName, codeId: string, issuedSessionId: string): Promise<boolean> {
    return (await CONSUME_CODE.run(db, [toDbDate(dialect, new Date()), issuedSessionId, codeId])) > 0;
}

/** The session the winning redemption recorded (a replay that lost the race reads it after). */
export async function issuedSessionOfCode(db: Kysely<Database>, codeId: string): Promise<string | null> {
    const row = await db.selectFrom('auth_authorization_codes').select('issued_session_id').where('id', '=', codeId).executeTakeFirst();
    return row?.issued_session_id ?? null;
}
