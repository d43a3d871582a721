import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { fromDbBool, fromDbDate, fromDbDateOrNull, toDbBool, toDbDate, type DialectName } from '../db/values.js';

/** An authenticator row as the multi-factor core reads it (the seed still sealed). */
export interface AuthenticatorRow {
    id: string;
    userId: string;
    realmId: string;
    type: string;
    name: string;
    confirmed: boolean;
    /** the sealed seed (enc:v1:<keyId>:…) */
    secret: string;
    lastStep: number | null;
    /** a `webauthn` authenticator's transports, AAGUID and last use (migration 0023); empty and null for `totp` */
    transports: string[];
    aaguid: string | null;
    lastUsedAt: Date | null;
    createdAt: Date;
    updatedAt: Date;
}

type Row = Database['auth_user_authenticators'];
const COLUMNS = [
    'id', 'user_id', 'realm_id', 'type', 'name', 'confirmed', 'secret', 'last_step', 'transports', 'aaguid', 'last_used_at', 'created_at', 'updated_at',
] as const;

function authenticatorOf(row: Pick<Row, (typeof COLUMNS)[number]>): AuthenticatorRow {
    return {
        id: row.id, userId: row.user_id, realmId: row.realm_id, type: row.type, name: row.name,
        confirmed: fromDbBool(row.confirmed), secret: row.secret,
        lastStep: row.last_step === null ? null : Number(row.last_step),
        transports: row.transports ? row.transports.split(',') : [], aaguid: row.aaguid, lastUsedAt: fromDbDateOrNull(row.last_used_at),
        createdAt: fromDbDate(row.created_at), updatedAt: fromDbDate(row.updated_at),
    };
}

export async function insertAuthenticator(
    db: Kysely<Database>, dialect: DialectName,
    row: { id: string; userId: string; realmId: string; name: string; secret: string },
): Promise<void> {
    const now = toDbDate(dialect, new Date());
    await db.insertInto('auth_user_authenticators').values({
        id: row.id, user_id: row.userId, realm_id: row.realmId, type: 'totp', name: row.name, secret: row.secret,
        confirmed: toDbBool(dialect, false), last_step: null, created_at: now, updated_at: now,
    }).execute();
}

export async function findAuthenticator(db: Kysely<Database>, id: string): Promise<AuthenticatorRow | undefined> {
    const row = await db.selectFrom('auth_user_authenticators').select(COLUMNS).where('id', '=', id.toLowerCase()).executeTakeFirst();
    return row ? authenticatorOf(row) : undefined;
}

export async function listAuthenticatorsOfUser(db: Kysely<Database>, userId: string): Promise<AuthenticatorRow[]> {
    const rows = await db.selectFrom('auth_user_authenticators').select(COLUMNS).where('user_id', '=', userId)
        .orderBy('created_at').orderBy('id').execute();
    return rows.map(authenticatorOf);
}

/**
 * Records an accepted time step, only when it is later than the stored one: of two concurrent
 * uses of one code only one UPDATE matches (RFC 6238 §5.2: a code is accepted once).
 */
export async function acceptTimeStep(
    db: Kysely<Database>, dialect: DialectName, id: string, step: number, previous: number | null, confirm: boolean,
): Promise<boolean> {
    let query = db.updateTable('auth_user_authenticators').set({
        last_step: step, updated_at: toDbDate(dialect, new Date()), ...(confirm ? { confirmed: toDbBool(dialect, true) } : {}),
    }).where('id', '=', id);
    query = previous === null ? query.where('last_step', 'is', null) : query.where('last_step', '=', previous);
    const result = await query.executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
}

export async function deleteAuthenticator(db: Kysely<Database>, id: string): Promise<void> {
    await db.deleteFrom('auth_user_authenticators').where('id', '=', id).execute();
}

/** Authenticators whose seed is sealed under the key (DELETE /keys/:id, spec Errors). */
export async function authenticatorsEncryptedUnder(db: Kysely<Database>, keyId: string): Promise<string[]> {
    const rows = await db.selectFrom('auth_user_authenticators').select('id').where('secret', 'like', `enc:v1:${keyId}:%`).execute();
    return rows.map((row) => row.id);
}

export async function deleteAuthenticators(db: Kysely<Database>, ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    await db.deleteFrom('auth_user_authenticators').where('id', 'in', ids).execute();
}

/** Replaces the user's recovery codes (issued at confirmation) with these digests; answers how many earlier codes (used or not) went. */
export async function replaceRecoveryCodes(
    db: Kysely<Database>, dialect: DialectName, user: { id: string; realmId: string }, codes: readonly { id: string; digest: string }[],
): Promise<number> {
    const removed = await db.deleteFrom('auth_user_recovery_codes').where('user_id', '=', user.id).executeTakeFirst();
    const now = toDbDate(dialect, new Date());
    await db.insertInto('auth_user_recovery_codes').values(codes.map((code) => ({
        id: code.id, user_id: user.id, realm_id: user.realmId, code_digest: code.digest, used_at: null, created_at: now,
    }))).execute();
    return Number(removed.numDeletedRows);
}

/** Marks an unused recovery code used; false when it does not exist or was used (single use). */
export async function useRecoveryCode(db: Kysely<Database>, dialect: DialectName, userId: string, digest: string): Promise<boolean> {
    const result = await db.updateTable('auth_user_recovery_codes').set({ used_at: toDbDate(dialect, new Date()) })
        .where('user_id', '=', userId).where('code_digest', '=', digest).where('used_at', 'is', null).executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
}

export async function deleteRecoveryCodesOfUser(db: Kysely<Database>, userId: string): Promise<void> {
    await db.deleteFrom('auth_user_recovery_codes').where('user_id', '=', userId).execute();
}

/** The realm's sign-in settings (API.md §7): multi-factor, and whether an address must be verified first. */
export async function findRealmMfaSettings(db: Kysely<Database>, realmId: string): Promise<{
    enabled: boolean; required: boolean; emailVerificationRequired: boolean; passkeysEnabled: boolean; displayName: string | null; name: string;
} | undefined> {
    const row = await db.selectFrom('auth_realms').select(['mfa_enabled', 'mfa_required', 'email_verification_required', 'passkeys_enabled', 'display_name', 'name'])
        .where('id', '=', realmId).executeTakeFirst();
    return row ? {
        enabled: fromDbBool(row.mfa_enabled), required: fromDbBool(row.mfa_required), emailVerificationRequired: fromDbBool(row.email_verification_required),
        passkeysEnabled: fromDbBool(row.passkeys_enabled), displayName: row.display_name, name: row.name,
    } : undefined;
}

/** Whether a user's email address is verified (the activation round-trip, or an administrator). */
export async function isEmailVerified(db: Kysely<Database>, userId: string): Promise<boolean> {
    const row = await db.selectFrom('auth_users').select('email_verified').where('id', '=', userId).executeTakeFirst();
    return row !== undefined && fromDbBool(row.email_verified);
}

export async function insertMfaTicket(db: Kysely<Database>, dialect: DialectName, ticket: { id: string; userId: string; realmId: string; expiresAt: Date }): Promise<void> {
    await db.insertInto('auth_mfa_tickets').values({
        id: ticket.id, user_id: ticket.userId, realm_id: ticket.realmId,
        expires_at: toDbDate(dialect, ticket.expiresAt), created_at: toDbDate(dialect, new Date()),
    }).execute();
}

/** A multi-factor ticket's user and realm while it is unexpired (the browser's pending sign-in). */
export async function findLiveMfaTicket(db: Kysely<Database>, dialect: DialectName, id: string): Promise<{ userId: string; realmId: string } | undefined> {
    const row = await db.selectFrom('auth_mfa_tickets').select(['user_id', 'realm_id']).where('id', '=', id)
        .where('expires_at', '>', toDbDate(dialect, new Date())).executeTakeFirst();
    return row && { userId: row.user_id, realmId: row.realm_id };
}

/** Removes an mfa_token's row; false when it was redeemed already. One DELETE decides between concurrent uses. */
export async function consumeMfaTicket(db: Kysely<Database>, id: string, userId: string): Promise<boolean> {
    const result = await db.deleteFrom('auth_mfa_tickets').where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
}

/** The user an authenticator is enrolled for: its name (the otpauth label) and realm. */
export async function findUserForEnrolment(db: Kysely<Database>, userId: string): Promise<{ id: string; name: string; realmId: string } | undefined> {
    const row = await db.selectFrom('auth_users').select(['id', 'name', 'realm_id']).where('id', '=', userId.toLowerCase()).executeTakeFirst();
    return row && { id: row.id, name: row.name, realmId: row.realm_id };
}
