import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database, IdentityProviderTable } from '../db/schema.js';
import { fromDbBool, toDbBool, toDbDate, type DialectName } from '../db/values.js';
import { grantsChangedAfterCommit } from './write-transaction.js';

/*
 * The queries of identity providers beyond the resource engine's: the providers a sign-in
 * page lists and a login uses, their mappings, the links of upstream subjects to users, the users
 * a first login creates, and the pending upstream round trips.
 */

export type ProviderRow = Omit<IdentityProviderTable, 'created_at'>;

/** The values of `token_endpoint_auth_method` (migration 0015): how Realmgate authenticates at the upstream's token endpoint. */
export const UPSTREAM_AUTH_METHODS = ['client_secret_basic', 'client_secret_post', 'private_key_jwt'] as const;
export type UpstreamAuthMethod = (typeof UPSTREAM_AUTH_METHODS)[number];

/** The enabled providers of a realm, by name (the sign-in page's list; LDAP logins try them in this order). */
export async function listEnabledProviders(db: Kysely<Database>, realmId: string, protocols: readonly string[]): Promise<ProviderRow[]> {
    const rows = await db.selectFrom('auth_identity_providers').selectAll().where('realm_id', '=', realmId)
        .where('protocol', 'in', [...protocols]).orderBy('name').limit(32).execute();
    return rows.filter((row) => fromDbBool(row.enabled));
}

export async function findProvider(db: Kysely<Database>, realmId: string, id: string): Promise<ProviderRow | undefined> {
    return db.selectFrom('auth_identity_providers').selectAll().where('realm_id', '=', realmId).where('id', '=', id).executeTakeFirst();
}

/** The providers whose secrets are sealed under a key (the envelope names it: enc:v1:<keyId>:…). */
export async function providersEncryptedUnder(db: Kysely<Database>, keyId: string): Promise<string[]> {
    const pattern = `enc:v1:${keyId}:%`;
    const rows = await db.selectFrom('auth_identity_providers').select('id')
        .where((eb) => eb.or([eb('client_secret', 'like', pattern), eb('bind_password', 'like', pattern)])).execute();
    return rows.map((row) => row.id);
}

/** A forced key delete destroys the secrets sealed under it: nothing can open them again. */
export async function clearProviderSecretsUnder(db: Kysely<Database>, dialect: DialectName, keyId: string, now: Date): Promise<void> {
    const pattern = `enc:v1:${keyId}:%`;
    const at = toDbDate(dialect, now);
    await db.updateTable('auth_identity_providers').set({ client_secret: null, updated_at: at }).where('client_secret', 'like', pattern).execute();
    await db.updateTable('auth_identity_providers').set({ bind_password: null, updated_at: at }).where('bind_password', 'like', pattern).execute();
}

export interface ProviderMappings {
    attributes: { source: string; target: string; targetName: string | null }[];
    roles: { claim: string | null; value: string; roleId: string }[];
}

export async function findProviderMappings(db: Kysely<Database>, providerId: string): Promise<ProviderMappings> {
    const [attributes, roles] = await Promise.all([
        db.selectFrom('auth_identity_provider_attribute_mappings').select(['source', 'target', 'target_name']).where('provider_id', '=', providerId).orderBy('created_at').execute(),
        db.selectFrom('auth_identity_provider_role_mappings').select(['claim', 'value', 'role_id']).where('provider_id', '=', providerId).execute(),
    ]);
    return {
        attributes: attributes.map((row) => ({ source: row.source, target: row.target, targetName: row.target_name })),
        roles: roles.map((row) => ({ claim: row.claim, value: row.value, roleId: row.role_id })),
    };
}

/** The user an upstream subject is linked to. */
export async function findLinkedUser(db: Kysely<Database>, providerId: string, subject: string): Promise<string | undefined> {
    const row = await db.selectFrom('auth_user_identities').select('user_id').where('provider_id', '=', providerId).where('subject', '=', subject).executeTakeFirst();
    return row?.user_id;
}

export async function insertIdentityLink(db: Kysely<Database>, dialect: DialectName, link: { providerId: string; userId: string; realmId: string; subject: string }, now: Date): Promise<void> {
    const at = toDbDate(dialect, now);
    await db.insertInto('auth_user_identities').values({
        id: randomUUID(), provider_id: link.providerId, user_id: link.userId, realm_id: link.realmId, subject: link.subject, created_at: at, updated_at: at,
    }).execute();
}

/** A local account an upstream address matches, and whether its own address was verified here. */
export interface EmailMatch {
    id: string;
    emailVerified: boolean;
}

/**
 * The users of a realm whose address is this one compared case-normalised (lower-cased on both
 * sides: the dialects' collations differ, and a mailbox's case is not an identity), at most two —
 * enough to tell one owner from an ambiguous address.
 */
export async function findUsersByEmail(db: Kysely<Database>, realmId: string, email: string): Promise<EmailMatch[]> {
    const rows = await db.selectFrom('auth_users').select(['id', 'email_verified']).where('realm_id', '=', realmId)
        .where((eb) => eb(eb.fn('lower', ['email']), '=', email.toLowerCase())).limit(2).execute();
    return rows.map((row) => ({ id: row.id, emailVerified: fromDbBool(row.email_verified) }));
}

export async function userNameTaken(db: Kysely<Database>, realmId: string, name: string): Promise<boolean> {
    return (await db.selectFrom('auth_users').select('id').where('realm_id', '=', realmId).where('name', '=', name).executeTakeFirst()) !== undefined;
}

export interface ProvisionedUser {
    id: string;
    realmId: string;
    name: string;
    email: string | null;
    emailVerified: boolean;
    pathId: string | null;
}

/** A user created by a first login through a provider: active, no local password. */
export async function insertProvisionedUser(db: Kysely<Database>, dialect: DialectName, user: ProvisionedUser, now: Date): Promise<void> {
    const at = toDbDate(dialect, now);
    await db.insertInto('auth_users').values({
        id: user.id, name: user.name, name_locked: toDbBool(dialect, true), first_name: null, last_name: null, display_name: null,
        email: user.email, password: null, reset_hash: null, reset_at: null, activate_hash: null, activate_at: null,
        email_verified: toDbBool(dialect, user.emailVerified), active: toDbBool(dialect, true), status: null, status_message: null,
        path_id: user.pathId, realm_id: user.realmId, created_at: at, updated_at: at,
    }).execute();
}

/** The user columns an attribute mapping may write. */
export type MappedTextColumn = 'email' | 'first_name' | 'last_name' | 'display_name';

export type MappedUserColumns = Partial<Record<MappedTextColumn, string | null>> & { email_verified?: boolean };

/** The address of a user as stored, and whether it was verified. */
export async function findUserEmail(db: Kysely<Database>, userId: string): Promise<{ email: string | null; emailVerified: boolean } | undefined> {
    const row = await db.selectFrom('auth_users').select(['email', 'email_verified']).where('id', '=', userId).executeTakeFirst();
    return row && { email: row.email, emailVerified: fromDbBool(row.email_verified) };
}

/**
 * Writes mapped fields. A changed address voids the activation and reset codes mailed to the old
 * one, as any email change does (domains/users/definition.ts; spec "Other resource fields").
 */
export async function updateMappedUserFields(db: Kysely<Database>, dialect: DialectName, userId: string, columns: MappedUserColumns, now: Date, emailChanged = false): Promise<void> {
    if (Object.keys(columns).length === 0) return;
    const { email_verified: emailVerified, ...rest } = columns;
    await db.updateTable('auth_users').set({
        ...rest,
        ...(emailVerified !== undefined ? { email_verified: toDbBool(dialect, emailVerified) } : {}),
        ...(emailChanged ? { activate_hash: null, activate_at: null, reset_hash: null, reset_at: null } : {}),
        updated_at: toDbDate(dialect, now),
    }).where('id', '=', userId).execute();
}

/** Sets a user attribute (JSON text, as the attribute collection stores it). */
export async function setUserAttribute(db: Kysely<Database>, dialect: DialectName, attribute: { userId: string; realmId: string; name: string; value: string }, now: Date): Promise<void> {
    const at = toDbDate(dialect, now);
    const updated = await db.updateTable('auth_user_attributes').set({ value: attribute.value, updated_at: at })
        .where('user_id', '=', attribute.userId).where('name', '=', attribute.name).executeTakeFirst();
    if (Number(updated.numUpdatedRows) > 0) return;
    await db.insertInto('auth_user_attributes').values({
        id: randomUUID(), name: attribute.name, value: attribute.value, user_id: attribute.userId, realm_id: attribute.realmId, created_at: at, updated_at: at,
    }).execute();
}

/**
 * The roles a provider maps, made to match the upstream's current values (roles
 * are applied on every login): mapped roles now matched are granted, mapped roles no longer
 * matched are taken away. Roles the provider does not map are left alone.
 */
export async function syncMappedRoles(db: Kysely<Database>, dialect: DialectName, userId: string, mapped: readonly string[], matched: ReadonlySet<string>, now: Date): Promise<void> {
    if (mapped.length === 0) return;
    const held = new Set((await db.selectFrom('auth_user_roles').select('role_id').where('user_id', '=', userId).where('role_id', 'in', [...mapped]).execute()).map((row) => row.role_id));
    const removed = mapped.filter((roleId) => held.has(roleId) && !matched.has(roleId));
    if (removed.length > 0) await db.deleteFrom('auth_user_roles').where('user_id', '=', userId).where('role_id', 'in', removed).execute();
    const at = toDbDate(dialect, now);
    const added = [...matched].filter((roleId) => !held.has(roleId));
    if (added.length > 0) {
        await db.insertInto('auth_user_roles').values(added.map((roleId) => ({ id: randomUUID(), user_id: userId, role_id: roleId, created_at: at, updated_at: at }))).execute();
    }
    // no entity event tells of these bindings: the remembered grants are emptied once committed, on every replica
    if (removed.length > 0 || added.length > 0) grantsChangedAfterCommit(db);
}

/** Finds or creates the folder path (names from the root) in a realm; its id. */
export async function ensureFolderPath(db: Kysely<Database>, dialect: DialectName, realmId: string, names: readonly string[], now: Date): Promise<string> {
    let parentId: string | null = null;
    const at = toDbDate(dialect, now);
    for (const name of names) {
        let query = db.selectFrom('auth_paths').select('id').where('realm_id', '=', realmId).where('name', '=', name);
        query = parentId === null ? query.where('parent_id', 'is', null) : query.where('parent_id', '=', parentId);
        const found: { id: string } | undefined = await query.executeTakeFirst();
        if (found) {
            parentId = found.id;
            continue;
        }
        const id = randomUUID();
        await db.insertInto('auth_paths').values({ id, name, parent_id: parentId, realm_id: realmId, created_at: at, updated_at: at }).execute();
        parentId = id;
    }
    if (parentId === null) throw new Error('A folder path names at least one folder.');
    return parentId;
}

export async function setUserFolder(db: Kysely<Database>, dialect: DialectName, userId: string, pathId: string, now: Date): Promise<void> {
    await db.updateTable('auth_users').set({ path_id: pathId, updated_at: toDbDate(dialect, now) }).where('id', '=', userId).execute();
}

/** A pending upstream round trip (migration 0010). */
export interface FederatedLogin {
    providerId: string;
    realmId: string;
    nonce: string;
    codeVerifier: string;
    resume: string;
}

export async function insertFederatedLogin(db: Kysely<Database>, dialect: DialectName, digest: string, login: FederatedLogin, expiresAt: Date, now: Date): Promise<void> {
    await db.insertInto('auth_federated_logins').values({
        id: digest, provider_id: login.providerId, realm_id: login.realmId, nonce: login.nonce, code_verifier: login.codeVerifier,
        resume: login.resume, expires_at: toDbDate(dialect, expiresAt), created_at: toDbDate(dialect, now),
    }).execute();
}

/**
 * Takes a pending round trip by the digest of its state: read, then deleted; only the caller whose
 * delete removed the row goes on (single use: a replayed callback finds nothing).
 */
export async function takeFederatedLogin(db: Kysely<Database>, dialect: DialectName, digest: string, now: Date): Promise<FederatedLogin | undefined> {
    const row = await db.selectFrom('auth_federated_logins').selectAll().where('id', '=', digest).where('expires_at', '>', toDbDate(dialect, now)).executeTakeFirst();
    if (!row) return undefined;
    const deleted = await db.deleteFrom('auth_federated_logins').where('id', '=', digest).executeTakeFirst();
    if (Number(deleted.numDeletedRows) !== 1) return undefined;
    return { providerId: row.provider_id, realmId: row.realm_id, nonce: row.nonce, codeVerifier: row.code_verifier, resume: row.resume };
}
