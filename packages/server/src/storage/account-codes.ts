import type { Kysely } from 'kysely';
import type { Database, UserTable } from '../db/schema.js';
import { fromDbBool, fromDbDateOrNull, toDbBool, toDbDate, type DialectName } from '../db/values.js';
import { findRealmByIdOrName } from './realms.js';

/*
 * Activation and reset codes of users (spec Versioning: stored as a SHA-256
 * digest). A code is single use: the statement that consumes it names the digest in its WHERE, so
 * of two concurrent redemptions only one changes the row.
 */

/** A realm as the account routes need it: its settings and how the mail names it. */
export interface AccountRealm {
    id: string;
    name: string;
    displayName: string | null;
    registrationEnabled: boolean;
    /** the branding of its pages (migration 0025) */
    logoUrl: string | null;
    primaryColor: string | null;
}

export async function findAccountRealm(db: Kysely<Database>, idOrName: string): Promise<AccountRealm | undefined> {
    const ref = await findRealmByIdOrName(db, idOrName);
    if (!ref) return undefined;
    const row = await db.selectFrom('auth_realms').select(['id', 'name', 'display_name', 'registration_enabled', 'logo_url', 'primary_color']).where('id', '=', ref.id).executeTakeFirst();
    return row && {
        id: row.id, name: row.name, displayName: row.display_name, registrationEnabled: fromDbBool(row.registration_enabled), logoUrl: row.logo_url, primaryColor: row.primary_color,
    };
}

/** The address a user asks to verify (its own, after a change): the realm, the address and whether it is verified. */
export interface VerificationTarget {
    id: string;
    realmId: string;
    email: string | null;
    emailVerified: boolean;
    emailVerificationRequired: boolean;
}

export async function findVerificationTarget(db: Kysely<Database>, userId: string): Promise<VerificationTarget | undefined> {
    const row = await db.selectFrom('auth_users').innerJoin('auth_realms', 'auth_realms.id', 'auth_users.realm_id')
        .select(['auth_users.id', 'auth_users.realm_id', 'auth_users.email', 'auth_users.email_verified', 'auth_realms.email_verification_required'])
        .where('auth_users.id', '=', userId).executeTakeFirst();
    return row && {
        id: row.id, realmId: row.realm_id, email: row.email, emailVerified: fromDbBool(row.email_verified),
        emailVerificationRequired: fromDbBool(row.email_verification_required),
    };
}

/** The user a recovery request names: by name, or by an address exactly one user of the realm holds. */
export interface RecoveryTarget {
    id: string;
    email: string | null;
    active: boolean;
}

export async function findRecoveryTarget(db: Kysely<Database>, realmId: string, by: 'name' | 'email', value: string): Promise<RecoveryTarget | undefined> {
    // a NUL is never part of a name or an address (and PostgreSQL refuses it in text)
    if (value.includes('\u0000')) return undefined;
    const rows = await db.selectFrom('auth_users').select(['id', 'email', 'active'])
        .where('realm_id', '=', realmId).where(by, '=', value).limit(2).execute();
    // an address several users share names no one in particular: nobody is mailed
    const row = rows.length === 1 ? rows[0] : undefined;
    return row && { id: row.id, email: row.email, active: fromDbBool(row.active) };
}

type CodeColumns = { hash: 'reset_hash'; at: 'reset_at' } | { hash: 'activate_hash'; at: 'activate_at' };
export const RESET_CODE: CodeColumns = { hash: 'reset_hash', at: 'reset_at' };
export const ACTIVATION_CODE: CodeColumns = { hash: 'activate_hash', at: 'activate_at' };

/**
 * Stores a newly issued code's digest and issue time, replacing the user's earlier code of that
 * kind (only the latest mailed link works). For an unknown user the caller passes an id that
 * matches no row: the same statement runs and changes nothing (comparable work, spec Endpoints).
 */
export async function storeCode(db: Kysely<Database>, dialect: DialectName, kind: CodeColumns, userId: string, digest: string, issuedAt: Date): Promise<void> {
    await db.updateTable('auth_users').set({ [kind.hash]: digest, [kind.at]: toDbDate(dialect, issuedAt) }).where('id', '=', userId).execute();
}

/** The holder of a code in one realm (a code of another realm finds nothing), with its issue time. */
export interface CodeHolder {
    id: string;
    active: boolean;
    issuedAt: Date | null;
}

export async function findCodeHolder(db: Kysely<Database>, kind: CodeColumns, realmId: string, digest: string, lock: boolean): Promise<CodeHolder | undefined> {
    let query = db.selectFrom('auth_users').select(['id', 'active', kind.at]).where(kind.hash, '=', digest).where('realm_id', '=', realmId);
    if (lock) query = query.forUpdate();
    const row = await query.executeTakeFirst() as (Pick<UserTable, 'id' | 'active'> & Partial<Pick<UserTable, 'reset_at' | 'activate_at'>>) | undefined;
    return row && { id: row.id, active: fromDbBool(row.active), issuedAt: fromDbDateOrNull(row[kind.at]) };
}

/**
 * Consumes the code: clears it and applies what it proves (a new password hash, or the verified
 * address). False when another redemption consumed it first.
 */
export async function consumeCode(
    db: Kysely<Database>,
    dialect: DialectName,
    kind: CodeColumns,
    holder: { id: string; digest: string },
    effect: { password?: string; emailVerified?: boolean },
    now: Date,
): Promise<boolean> {
    const result = await db.updateTable('auth_users')
        .set({
            [kind.hash]: null,
            [kind.at]: null,
            ...(effect.password !== undefined ? { password: effect.password } : {}),
            ...(effect.emailVerified !== undefined ? { email_verified: toDbBool(dialect, effect.emailVerified) } : {}),
            updated_at: toDbDate(dialect, now),
        })
        .where('id', '=', holder.id).where(kind.hash, '=', holder.digest)
        .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
}

/** What a self-registration writes (the row is a user like any other: active, address unverified). */
export interface RegisteredUser {
    id: string;
    realmId: string;
    name: string;
    email: string;
    passwordHash: string;
    activationDigest: string;
}

export async function insertRegisteredUser(db: Kysely<Database>, dialect: DialectName, user: RegisteredUser, now: Date): Promise<void> {
    const at = toDbDate(dialect, now);
    await db.insertInto('auth_users').values({
        id: user.id, name: user.name, name_locked: toDbBool(dialect, true), first_name: null, last_name: null, display_name: null,
        email: user.email, password: user.passwordHash, reset_hash: null, reset_at: null, activate_hash: user.activationDigest, activate_at: at,
        email_verified: toDbBool(dialect, false), active: toDbBool(dialect, true), status: null, status_message: null,
        path_id: null, realm_id: user.realmId, created_at: at, updated_at: at,
    }).execute();
}
