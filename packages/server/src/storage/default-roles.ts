import { randomUUID } from 'node:crypto';
import { DEFAULT_ROLES_ROLE_NAME, PermissionName, RealmScope } from '@realmgate/core';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { toDbBool, toDbDate, type DialectName } from '../db/values.js';
import { eventRowOf, insertEvents, type NewEvent } from './events.js';
import { announceAfterCommit, protocolTransaction } from './write-transaction.js';
import { classifyDbError } from '../db/errors.js';
import { replaceList } from './resource/lists.js';
import type { JunctionList } from './resource/table.js';

/*
 * Realm default roles (API.md §8 `defaultRoleIds`, migration 0024): the list of a realm, the roles it
 * may name, its built-in default role, and the grant every new user receives in the transaction that
 * creates it.
 */

/** A realm's list as the resource engine reads and writes it: `defaultRoleIds` (domains/realms.ts). */
export const REALM_DEFAULT_ROLES: JunctionList = { column: 'default_role_ids', table: 'auth_realm_default_roles', owner: 'realm_id', value: 'role_id' };

/** The role ids of a realm's list, ordered by id (a stable answer on every dialect). */
export async function defaultRoleIdsOf(db: Kysely<Database>, realmId: string): Promise<string[]> {
    const rows = await db.selectFrom('auth_realm_default_roles').select('role_id').where('realm_id', '=', realmId).orderBy('role_id').execute();
    return rows.map((row) => row.role_id);
}

/** Of these ids, those that name a role of this realm (a global role or another realm's is none of them). */
export async function rolesOfRealm(db: Kysely<Database>, realmId: string, roleIds: readonly string[]): Promise<Set<string>> {
    if (roleIds.length === 0) return new Set();
    const rows = await db.selectFrom('auth_roles').select('id').where('realm_id', '=', realmId).where('id', 'in', [...roleIds]).execute();
    return new Set(rows.map((row) => row.id));
}

/** Adds one role to the realm's list unless it is there. */
async function addDefaultRole(db: Kysely<Database>, dialect: DialectName, realmId: string, roleId: string, now: Date): Promise<void> {
    const current = await defaultRoleIdsOf(db, realmId);
    if (!current.includes(roleId)) await replaceList(db, dialect, REALM_DEFAULT_ROLES, realmId, [...current, roleId], now);
}

/** The realm's built-in default role (DEFAULT_ROLES_ROLE_NAME), if it has one. */
async function findRealmDefaultRole(db: Kysely<Database>, realmId: string): Promise<string | undefined> {
    const row = await db.selectFrom('auth_roles').select('id')
        .where('name', '=', DEFAULT_ROLES_ROLE_NAME).where('realm_id', '=', realmId).where('client_id', 'is', null).executeTakeFirst();
    return row?.id;
}

/**
 * Creates the realm's built-in default role with `user_self_manage` at reach `own` (the account
 * console's permission, so a new user manages itself without an administrator's grant) and puts it
 * on the realm's list. Run in the transaction that creates the realm, or once for the master realm
 * at boot (provisioning/bootstrap.ts); a realm that has the role already is left as it is, so an
 * administrator's later changes to its grants or to the list survive every boot.
 */
export async function createRealmDefaultRole(db: Kysely<Database>, dialect: DialectName, realmId: string, now: Date): Promise<string> {
    const at = toDbDate(dialect, now);
    const roleId = randomUUID();
    await db.insertInto('auth_roles').values({
        id: roleId, name: DEFAULT_ROLES_ROLE_NAME, display_name: 'Default roles',
        description: 'Granted to every new user of the realm: manage one\'s own account.',
        built_in: toDbBool(dialect, true), client_id: null, realm_id: realmId, created_at: at, updated_at: at,
    }).execute();
    const permission = await db.selectFrom('auth_permissions').select('id')
        .where('name', '=', PermissionName.USER_SELF_MANAGE).where('realm_id', 'is', null).where('client_id', 'is', null).executeTakeFirst();
    // bootstrap creates the built-in permissions before any realm but the master, whose role it
    // creates after them; a database without them has no authorization to speak of yet
    if (permission) {
        await db.insertInto('auth_role_permissions').values({
            id: randomUUID(), role_id: roleId, permission_id: permission.id, realm_scope: RealmScope.OWN, policy_id: null, created_at: at, updated_at: at,
        }).execute();
    }
    await addDefaultRole(db, dialect, realmId, roleId, now);
    return roleId;
}

/**
 * The master realm's default role, created at the first boot that finds none (bootstrap makes the
 * master realm outside the realms' API, so no afterCreate made it): role, grant and list entry in
 * one transaction. A replica that created it first wins; the role is built in, so it stays the
 * marker that the list was seeded once, and a list an administrator emptied stays empty.
 */
export async function ensureRealmDefaultRole(db: Kysely<Database>, dialect: DialectName, realmId: string): Promise<void> {
    if (await findRealmDefaultRole(db, realmId)) return;
    try {
        await protocolTransaction(db, (tx) => createRealmDefaultRole(tx, dialect, realmId, new Date()));
    } catch (error) {
        if (classifyDbError(error)?.kind !== 'unique') throw error;
    }
}

/** Who created the user, as its `user.created` entry says: the grants' entries say the same. */
export type GrantEventOrigin = Pick<NewEvent, 'scope' | 'actorType' | 'actorId' | 'request'>;

/**
 * Grants a new user its realm's default roles, in the transaction that inserts the user (a grant
 * that fails rolls the user back with it). Each grant is recorded as `user_role.created`, as a grant
 * through `/user-roles` is, and announced to the realtime bus once committed. The user is new, so
 * no replica remembers grants of it and no cache needs emptying. The granted role ids.
 */
export async function grantDefaultRoles(
    db: Kysely<Database>,
    dialect: DialectName,
    user: { id: string; realmId: string },
    origin: GrantEventOrigin,
    now: Date,
): Promise<string[]> {
    const roleIds = await defaultRoleIdsOf(db, user.realmId);
    if (roleIds.length === 0) return [];
    const at = toDbDate(dialect, now);
    const grants = roleIds.map((roleId) => ({ id: randomUUID(), user_id: user.id, role_id: roleId, created_at: at, updated_at: at }));
    await db.insertInto('auth_user_roles').values(grants).execute();
    const createdAt = now.toISOString();
    const events = grants.map((grant) => ({
        name: 'user_role.created', refType: 'user_role', refId: grant.id, realmId: user.realmId,
        data: { id: grant.id, userId: user.id, roleId: grant.role_id, createdAt, updatedAt: createdAt },
    }));
    await insertEvents(db, events.map((event) => eventRowOf(dialect, { ...event, ...origin }, now)));
    for (const event of events) announceAfterCommit(db, { ...event, createdAt: now });
    return roleIds;
}
