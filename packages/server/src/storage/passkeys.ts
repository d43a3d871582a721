import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { fromDbBool, fromDbDateOrNull, toDbBool, toDbDate, type DialectName } from '../db/values.js';

/** A `webauthn` authenticator's credential as a ceremony reads it (migration 0023). */
export interface PasskeyCredentialRow {
    /** the auth_user_authenticators row */
    id: string;
    userId: string;
    realmId: string;
    name: string;
    /** base64url */
    credentialId: string;
    /** the COSE public key, base64url */
    publicKey: string;
    signCount: number;
    transports: string[];
    aaguid: string | null;
    lastUsedAt: Date | null;
}

const CREDENTIAL_COLUMNS = ['id', 'user_id', 'realm_id', 'name', 'credential_id', 'public_key', 'sign_count', 'transports', 'aaguid', 'last_used_at'] as const;
type CredentialSelection = Pick<Database['auth_user_authenticators'], (typeof CREDENTIAL_COLUMNS)[number]>;

function credentialOf(row: CredentialSelection): PasskeyCredentialRow {
    return {
        id: row.id, userId: row.user_id, realmId: row.realm_id, name: row.name,
        credentialId: row.credential_id ?? '', publicKey: row.public_key ?? '', signCount: Number(row.sign_count ?? 0),
        transports: row.transports ? row.transports.split(',') : [], aaguid: row.aaguid, lastUsedAt: fromDbDateOrNull(row.last_used_at),
    };
}

/** Inserts a confirmed `webauthn` authenticator (a registration ceremony proved the key); the seed column holds nothing. */
export async function insertPasskey(db: Kysely<Database>, dialect: DialectName, row: {
    id: string; userId: string; realmId: string; name: string; credentialId: string; credentialDigest: string; publicKey: string;
    signCount: number; transports: readonly string[]; aaguid: string | null;
}): Promise<void> {
    const now = toDbDate(dialect, new Date());
    await db.insertInto('auth_user_authenticators').values({
        id: row.id, user_id: row.userId, realm_id: row.realmId, type: 'webauthn', name: row.name, secret: '',
        confirmed: toDbBool(dialect, true), last_step: null, created_at: now, updated_at: now,
        credential_id: row.credentialId, credential_digest: row.credentialDigest, public_key: row.publicKey, sign_count: row.signCount,
        transports: row.transports.length > 0 ? row.transports.join(',') : null, aaguid: row.aaguid, last_used_at: null,
    }).execute();
}

/** The credential a digest names, whatever its realm (the caller compares the realm: a credential of realm A never signs in to B). */
export async function findPasskeyByDigest(db: Kysely<Database>, digest: string): Promise<PasskeyCredentialRow | undefined> {
    const row = await db.selectFrom('auth_user_authenticators').select(CREDENTIAL_COLUMNS)
        .where('credential_digest', '=', digest).where('type', '=', 'webauthn').executeTakeFirst();
    return row ? credentialOf(row) : undefined;
}

/** A user's passkeys (the excludeCredentials of a registration, the allowCredentials of a second factor). */
export async function listPasskeysOfUser(db: Kysely<Database>, userId: string): Promise<PasskeyCredentialRow[]> {
    const rows = await db.selectFrom('auth_user_authenticators').select(CREDENTIAL_COLUMNS)
        .where('user_id', '=', userId).where('type', '=', 'webauthn').orderBy('created_at').orderBy('id').execute();
    return rows.map(credentialOf);
}

/**
 * Records a use: the new signature counter and the time, only when the stored counter is still
 * the one the ceremony judged (WebAuthn §6.1.1), so of two concurrent assertions carrying the
 * same counter only one UPDATE matches. False when another use came first.
 */
export async function recordPasskeyUse(db: Kysely<Database>, dialect: DialectName, id: string, previous: number, next: number): Promise<boolean> {
    const now = toDbDate(dialect, new Date());
    const result = await db.updateTable('auth_user_authenticators').set({ sign_count: next, last_used_at: now, updated_at: now })
        .where('id', '=', id).where('sign_count', '=', previous).executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
}

/** The realm's passkey settings (API.md §8, migration 0023). */
export async function findRealmPasskeySettings(db: Kysely<Database>, realmId: string): Promise<{ enabled: boolean; prompt: boolean } | undefined> {
    const row = await db.selectFrom('auth_realms').select(['passkeys_enabled', 'passkey_prompt']).where('id', '=', realmId).executeTakeFirst();
    return row && { enabled: fromDbBool(row.passkeys_enabled), prompt: fromDbBool(row.passkey_prompt) };
}

/** What a challenge was issued for: which ceremony, in which realm, for which user (none for a discoverable sign-in). */
export interface ChallengeBinding {
    purpose: 'registration' | 'authentication';
    realmId: string;
    userId: string | null;
}

export async function insertChallenge(db: Kysely<Database>, dialect: DialectName, digest: string, binding: ChallengeBinding, expiresAt: Date): Promise<void> {
    await db.insertInto('auth_webauthn_challenges').values({
        id: digest, purpose: binding.purpose, realm_id: binding.realmId, user_id: binding.userId, expires_at: toDbDate(dialect, expiresAt),
    }).execute();
}

/**
 * Spends the challenge a digest names, once (WebAuthn §13.4.3), if it is unexpired and was issued
 * for this ceremony, realm and user (none: a discoverable sign-in's). One conditional DELETE
 * decides: of two ceremonies presenting the challenge, on any dialect or replica, only the one
 * whose DELETE removed the row goes on; a mismatched one removes nothing and is refused.
 */
export async function spendChallenge(db: Kysely<Database>, dialect: DialectName, digest: string, binding: ChallengeBinding): Promise<boolean> {
    let statement = db.deleteFrom('auth_webauthn_challenges').where('id', '=', digest).where('purpose', '=', binding.purpose)
        .where('realm_id', '=', binding.realmId).where('expires_at', '>', toDbDate(dialect, new Date()));
    statement = binding.userId === null ? statement.where('user_id', 'is', null) : statement.where('user_id', '=', binding.userId);
    const result = await statement.executeTakeFirst();
    return Number(result.numDeletedRows) === 1;
}
