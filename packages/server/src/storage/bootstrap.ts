import { randomUUID } from 'node:crypto';
import type { RealmScope } from '@realmgate/core';
import type { Kysely } from 'kysely';
import { classifyDbError } from '../db/errors.js';
import type { Database } from '../db/schema.js';
import { toDbBool, toDbDate, type DialectName } from '../db/values.js';

/**
 * The rows of the bootstrap state (API.md §5) and of built-in provisioning: each `ensure…` reads
 * first and inserts when missing, so every boot is idempotent and replicas booting together agree.
 */

/** Insert unless present; a concurrent replica inserting the same row first is not an error. */
async function insertIgnoringDuplicate(work: () => Promise<unknown>): Promise<void> {
    try {
        await work();
    } catch (error) {
        if (classifyDbError(error)?.kind !== 'unique') throw error;
    }
}

/** A built-in realm by name; its id. */
export async function ensureBuiltInRealm(db: Kysely<Database>, dialect: DialectName, name: string): Promise<string> {
    const find = () => db.selectFrom('auth_realms').select('id').where('name', '=', name).executeTakeFirst();
    const found = await find();
    if (found) return found.id;
    const now = toDbDate(dialect, new Date());
    await insertIgnoringDuplicate(() => db.insertInto('auth_realms').values({
        id: randomUUID(), name, display_name: null, description: null, built_in: toDbBool(dialect, true), created_at: now, updated_at: now,
    }).execute());
    return (await find())!.id;
}

/** A permission's binding to a definition policy (auth_permission_policies). */
export async function ensurePermissionPolicy(db: Kysely<Database>, dialect: DialectName, permissionId: string, policyId: string): Promise<void> {
    const found = await db.selectFrom('auth_permission_policies').select('id')
        .where('permission_id', '=', permissionId).where('policy_id', '=', policyId).executeTakeFirst();
    if (found) return;
    const now = toDbDate(dialect, new Date());
    await insertIgnoringDuplicate(() => db.insertInto('auth_permission_policies').values({
        id: randomUUID(), permission_id: permissionId, policy_id: policyId, created_at: now, updated_at: now,
    }).execute());
}

/** What a built-in global permission, role or scope carries besides its name. */
export type BuiltInExtra =
    { table: 'auth_permissions'; decisionStrategy: string } |
    { table: 'auth_roles' } |
    { table: 'auth_scopes' };

/** A built-in global (realm-less) permission, role or scope by name; its id. */
export async function ensureBuiltInGlobal(db: Kysely<Database>, dialect: DialectName, extra: BuiltInExtra, name: string): Promise<string> {
    const { table } = extra;
    const query = () => db.selectFrom(table as 'auth_roles').select('id')
        .where('name', '=', name).where('realm_id', 'is', null).executeTakeFirst();
    const found = await query();
    if (found) return found.id;
    const now = toDbDate(dialect, new Date());
    const common = {
        id: randomUUID(), name, display_name: null, description: null, built_in: toDbBool(dialect, true), realm_id: null,
        created_at: now, updated_at: now,
    };
    await insertIgnoringDuplicate(() => {
        if (extra.table === 'auth_permissions') {
            return db.insertInto('auth_permissions').values({ ...common, decision_strategy: extra.decisionStrategy, client_id: null }).execute();
        }
        if (extra.table === 'auth_roles') return db.insertInto('auth_roles').values({ ...common, client_id: null }).execute();
        return db.insertInto('auth_scopes').values(common).execute();
    });
    return (await query())!.id;
}

/** The permission ids a role is granted. */
export async function rolePermissionIds(db: Kysely<Database>, roleId: string): Promise<Set<string>> {
    const rows = await db.selectFrom('auth_role_permissions').select('permission_id').where('role_id', '=', roleId).execute();
    return new Set(rows.map((row) => row.permission_id));
}

/** Grants a permission to a role with a realm reach, unless another writer did first. */
export async function insertRolePermission(db: Kysely<Database>, dialect: DialectName, roleId: string, permissionId: string, realmScope: RealmScope): Promise<void> {
    const now = toDbDate(dialect, new Date());
    await insertIgnoringDuplicate(() => db.insertInto('auth_role_permissions').values({
        id: randomUUID(), role_id: roleId, permission_id: permissionId, realm_scope: realmScope, policy_id: null, created_at: now, updated_at: now,
    }).execute());
}

/** A user of the realm by name: its id and whether it has a password; undefined when there is none. */
export async function findBuiltInUser(db: Kysely<Database>, realmId: string, name: string): Promise<{ id: string; passwordHash: string | null } | undefined> {
    const row = await db.selectFrom('auth_users').select(['id', 'password']).where('name', '=', name).where('realm_id', '=', realmId).executeTakeFirst();
    return row && { id: row.id, passwordHash: row.password };
}

/**
 * The built-in administrator (API.md §5), inserted with its password hash in the same statement:
 * a crash can no longer leave the row without a password (bootstrap is atomic). A concurrent replica
 * inserting it first wins; its id is returned.
 */
export async function insertBuiltInUser(
    db: Kysely<Database>,
    dialect: DialectName,
    user: { realmId: string; name: string; displayName: string; active: boolean; passwordHash: string },
): Promise<string> {
    const now = toDbDate(dialect, new Date());
    await insertIgnoringDuplicate(() => db.insertInto('auth_users').values({
        id: randomUUID(), name: user.name, name_locked: toDbBool(dialect, true), first_name: null, last_name: null, display_name: user.displayName,
        email: null, password: user.passwordHash, reset_hash: null, reset_at: null, activate_hash: null, activate_at: null,
        email_verified: toDbBool(dialect, false), active: toDbBool(dialect, user.active), status: null, status_message: null,
        path_id: null, realm_id: user.realmId, created_at: now, updated_at: now,
    }).execute());
    return (await findBuiltInUser(db, user.realmId, user.name))!.id;
}

/** Sets a password only where none is stored, so a password set meanwhile (by a replica or the owner) is kept. */
export async function setMissingUserPasswordHash(db: Kysely<Database>, userId: string, hash: string): Promise<void> {
    await db.updateTable('auth_users').set({ password: hash }).where('id', '=', userId).where('password', 'is', null).execute();
}

export async function deactivateUser(db: Kysely<Database>, dialect: DialectName, userId: string): Promise<void> {
    await db.updateTable('auth_users').set({ active: toDbBool(dialect, false) }).where('id', '=', userId).execute();
}

/** A user's role assignment (auth_user_roles). */
export async function ensureUserRole(db: Kysely<Database>, dialect: DialectName, userId: string, roleId: string): Promise<void> {
    const found = await db.selectFrom('auth_user_roles').select('id').where('user_id', '=', userId).where('role_id', '=', roleId).executeTakeFirst();
    if (found) return;
    const now = toDbDate(dialect, new Date());
    await insertIgnoringDuplicate(() => db.insertInto('auth_user_roles').values({ id: randomUUID(), user_id: userId, role_id: roleId, created_at: now, updated_at: now }).execute());
}

/** A built-in global policy node by name, created under `parentId` when missing; its id. */
export async function ensureBuiltInPolicy(
    db: Kysely<Database>,
    dialect: DialectName,
    policy: { name: string; type: string; invert: boolean; config: string; parentId: string | null },
): Promise<string> {
    const find = () => db.selectFrom('auth_policies').select('id').where('name', '=', policy.name).where('realm_id', 'is', null).executeTakeFirst();
    const found = await find();
    if (found) return found.id;
    const now = toDbDate(dialect, new Date());
    await insertIgnoringDuplicate(() => db.insertInto('auth_policies').values({
        id: randomUUID(), type: policy.type, name: policy.name, display_name: null, description: null,
        invert: toDbBool(dialect, policy.invert), config: policy.config, parent_id: policy.parentId,
        realm_id: null, built_in: toDbBool(dialect, true), created_at: now, updated_at: now,
    }).execute());
    return (await find())!.id;
}

/** A built-in public client of the master realm (the consoles' admin-console), under a fixed id. */
export interface BuiltInClient {
    id: string;
    name: string;
    displayName: string;
    realmId: string;
    redirectUri: string;
    postLogoutRedirectUri: string;
}

/**
 * Inserts the client when no client of its realm has its name; otherwise keeps the row and only
 * brings its redirect URIs up to date (PUBLIC_URL or CONSOLE_PUBLIC_URL changed since the last boot).
 * Its id (a row created before under that name keeps its own).
 */
export async function ensureBuiltInClient(db: Kysely<Database>, dialect: DialectName, client: BuiltInClient): Promise<string> {
    const found = await db.selectFrom('auth_clients').select(['id', 'redirect_uri', 'post_logout_redirect_uri', 'built_in'])
        .where('name', '=', client.name).where('realm_id', '=', client.realmId).executeTakeFirst();
    const now = toDbDate(dialect, new Date());
    if (!found) {
        await insertIgnoringDuplicate(() => db.insertInto('auth_clients').values({
            id: client.id, name: client.name, display_name: client.displayName, description: null, active: toDbBool(dialect, true),
            built_in: toDbBool(dialect, true), secret: null, secret_hashed: toDbBool(dialect, false), secret_encrypted: toDbBool(dialect, false),
            redirect_uri: client.redirectUri, post_logout_redirect_uri: client.postLogoutRedirectUri, grant_types: JSON.stringify(['authorization_code', 'refresh_token']),
            base_url: null, backchannel_logout_uri: null, access_policy_id: null, path_id: null, realm_id: client.realmId,
            first_party: toDbBool(dialect, true), id_token_signed_response_alg: null, created_at: now, updated_at: now,
        }).execute());
        return client.id;
    }
    if (found.redirect_uri !== client.redirectUri || found.post_logout_redirect_uri !== client.postLogoutRedirectUri) {
        await db.updateTable('auth_clients')
            .set({ redirect_uri: client.redirectUri, post_logout_redirect_uri: client.postLogoutRedirectUri, updated_at: now })
            .where('id', '=', found.id).execute();
    }
    return found.id;
}

/** A default scope binding of a client (auth_client_scopes), unless present. */
export async function ensureClientScope(db: Kysely<Database>, dialect: DialectName, clientId: string, scopeId: string): Promise<void> {
    const found = await db.selectFrom('auth_client_scopes').select('id').where('client_id', '=', clientId).where('scope_id', '=', scopeId).executeTakeFirst();
    if (found) return;
    const now = toDbDate(dialect, new Date());
    await insertIgnoringDuplicate(() => db.insertInto('auth_client_scopes').values({
        id: randomUUID(), client_id: clientId, scope_id: scopeId, default: toDbBool(dialect, true), created_at: now, updated_at: now,
    }).execute());
}
