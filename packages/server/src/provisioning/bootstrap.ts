import { randomUUID } from 'node:crypto';
import { PERMISSION_NAMES, PermissionName, RealmScope, ScopeName, SystemPolicyName, SystemRoleName } from '@realmgate/core';
import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { toDbBool, toDbDate, type DialectName } from '../db/values.js';
import type { AppDeps } from '../wire.js';
import { MASTER_REALM } from '@realmgate/core';
import { insertIgnoringDuplicate } from './insert.js';
import { ensurePolicyTree, type PolicySeed } from './policies.js';

/** Attributes a user may not set on itself (spec: emailVerified is on this denylist). */
export const USER_SELF_MANAGE_DENYLIST = ['active', 'emailVerified', 'nameLocked', 'realmId', 'pathId', 'status', 'statusMessage'];
/** Attributes a client may not set on itself (spec Authentication rule 14: its own grantTypes). */
export const CLIENT_SELF_MANAGE_DENYLIST = ['active', 'builtIn', 'grantTypes', 'realmId', 'pathId', 'accessPolicyId', 'secretHashed', 'secretEncrypted', 'redirectUri', 'backchannelLogoutUri'];

const DEFAULT_ADMIN_PASSWORD = 'start123';

const SYSTEM_POLICIES: PolicySeed[] = [
    {
        name: SystemPolicyName.DEFAULT,
        type: 'composite',
        config: { decisionStrategy: 'unanimous' },
        children: [
            { name: `${SystemPolicyName.DEFAULT}.identity`, type: 'identity', config: {} },
            { name: `${SystemPolicyName.DEFAULT}.permission-binding`, type: 'permissionBinding', config: {} },
        ],
    },
    { name: SystemPolicyName.USER_NAMES_SELF_MANAGE, type: 'attributeNames', invert: true, config: { names: USER_SELF_MANAGE_DENYLIST } },
    { name: SystemPolicyName.CLIENT_NAMES_SELF_MANAGE, type: 'attributeNames', invert: true, config: { names: CLIENT_SELF_MANAGE_DENYLIST } },
];


function reachFor(role: string, permission: string): RealmScope | null {
    if (role === SystemRoleName.ADMIN) return RealmScope.ANY;
    if (permission === PermissionName.REALM_CREATE || permission === PermissionName.REALM_UPDATE || permission === PermissionName.REALM_DELETE) return null;
    // realm administrators write only in their own realm (so not on global roles' bindings, spec rule 11)
    return /_(create|update|delete)$/.test(permission) ? RealmScope.OWN : RealmScope.OWN_OR_NULL;
}

async function ensureRealm(db: Kysely<Database>, dialect: DialectName, name: string): Promise<string> {
    const found = await db.selectFrom('auth_realms').select('id').where('name', '=', name).executeTakeFirst();
    if (found) return found.id;
    const now = toDbDate(dialect, new Date());
    await insertIgnoringDuplicate(() => db.insertInto('auth_realms').values({
        id: randomUUID(), name, display_name: null, description: null, built_in: toDbBool(dialect, true), created_at: now, updated_at: now,
    }).execute());
    return (await db.selectFrom('auth_realms').select('id').where('name', '=', name).executeTakeFirstOrThrow()).id;
}

async function ensureBinding(db: Kysely<Database>, dialect: DialectName, permissionId: string, policyId: string): Promise<void> {
    const found = await db.selectFrom('auth_permission_policies').select('id')
        .where('permission_id', '=', permissionId).where('policy_id', '=', policyId).executeTakeFirst();
    if (found) return;
    const now = toDbDate(dialect, new Date());
    await insertIgnoringDuplicate(() => db.insertInto('auth_permission_policies').values({
        id: randomUUID(), permission_id: permissionId, policy_id: policyId, created_at: now, updated_at: now,
    }).execute());
}

async function ensureGlobal<T extends 'auth_permissions' | 'auth_roles' | 'auth_scopes'>(
    db: Kysely<Database>,
    dialect: DialectName,
    table: T,
    name: string,
    extra: Record<string, unknown> = {},
): Promise<string> {
    const query = () => (db as Kysely<Database>).selectFrom(table as 'auth_roles').select('id')
        .where('name', '=', name).where('realm_id', 'is', null).executeTakeFirst();
    const found = await query();
    if (found) return found.id;
    const now = toDbDate(dialect, new Date());
    await insertIgnoringDuplicate(() => db.insertInto(table as 'auth_scopes').values({
        id: randomUUID(), name, display_name: null, description: null, built_in: toDbBool(dialect, true), realm_id: null,
        created_at: now, updated_at: now, ...extra,
    } as never).execute());
    return (await query())!.id;
}

async function ensureRoleGrants(db: Kysely<Database>, dialect: DialectName, roleName: string, roleId: string, permissionIds: Map<string, string>): Promise<void> {
    const existing = new Set((await db.selectFrom('auth_role_permissions').select('permission_id').where('role_id', '=', roleId).execute())
        .map((row) => row.permission_id));
    const now = toDbDate(dialect, new Date());
    for (const [name, permissionId] of permissionIds) {
        const reach = reachFor(roleName, name);
        // a customized reach is left alone: only missing grants are added
        if (reach === null || existing.has(permissionId)) continue;
        await insertIgnoringDuplicate(() => db.insertInto('auth_role_permissions').values({
            id: randomUUID(), role_id: roleId, permission_id: permissionId, realm_scope: reach, policy_id: null, created_at: now, updated_at: now,
        }).execute());
    }
}

async function ensureAdmin(deps: AppDeps, realmId: string, adminRoleId: string, logger?: FastifyBaseLogger): Promise<void> {
    const { db, handle, config, passwords } = deps;
    const { name, password, enabled } = config.userAdmin;
    let admin = await db.selectFrom('auth_users').select(['id', 'active']).where('name', '=', name).where('realm_id', '=', realmId).executeTakeFirst();
    if (!admin) {
        const now = toDbDate(handle.dialect, new Date());
        const id = randomUUID();
        await insertIgnoringDuplicate(() => db.insertInto('auth_users').values({
            id, name, name_locked: toDbBool(handle.dialect, true), first_name: null, last_name: null, display_name: 'Administrator',
            email: null, password: null, reset_hash: null, reset_at: null, activate_hash: null,
            email_verified: toDbBool(handle.dialect, false), active: toDbBool(handle.dialect, enabled), status: null, status_message: null,
            path_id: null, realm_id: realmId, created_at: now, updated_at: now,
        }).execute());
        admin = await db.selectFrom('auth_users').select(['id', 'active']).where('name', '=', name).where('realm_id', '=', realmId).executeTakeFirstOrThrow();
        if (admin.id === id) {
            await db.updateTable('auth_users').set({ password: await passwords.hash(password) }).where('id', '=', id).execute();
        }
    }
    const hasRole = await db.selectFrom('auth_user_roles').select('id').where('user_id', '=', admin.id).where('role_id', '=', adminRoleId).executeTakeFirst();
    if (!hasRole) {
        const now = toDbDate(handle.dialect, new Date());
        await insertIgnoringDuplicate(() => db.insertInto('auth_user_roles').values({ id: randomUUID(), user_id: admin!.id, role_id: adminRoleId, created_at: now, updated_at: now }).execute());
    }
    // spec States: USER_ADMIN_ENABLED=false deactivates on the next start; true never reactivates
    if (!enabled) await db.updateTable('auth_users').set({ active: toDbBool(handle.dialect, false) }).where('id', '=', admin.id).execute();
    if (config.env === 'production' && enabled && password === DEFAULT_ADMIN_PASSWORD) {
        // spec Authentication rule 20
        logger?.warn('The default admin password is in use in production; set USER_ADMIN_PASSWORD or change it.');
    }
}

/** The bootstrap state of API.md §5, idempotent at every boot. */
export async function bootstrap(deps: AppDeps, logger?: FastifyBaseLogger): Promise<void> {
    const { db, handle } = deps;
    const dialect = handle.dialect;
    const masterId = await ensureRealm(db, dialect, MASTER_REALM);
    // spec Authentication rule 15: keys stored before SECRETS_ENCRYPTION_KEY was set get wrapped now
    const wrapped = await deps.secrets.wrapStoredKeys(db);
    if (wrapped > 0) logger?.info({ wrapped }, 'wrapped stored realm keys under SECRETS_ENCRYPTION_KEY');
    await deps.secrets.ensureRealmKey(db, masterId);
    // API.md §5: the master realm's signing key, created once (an active one is kept)
    await deps.keys.ensureSigningKey(db, masterId);

    const policyIds = new Map<string, string>();
    for (const seed of SYSTEM_POLICIES) policyIds.set(seed.name, await ensurePolicyTree(db, dialect, seed));

    const permissionIds = new Map<string, string>();
    for (const name of PERMISSION_NAMES) {
        const id = await ensureGlobal(db, dialect, 'auth_permissions', name, { decision_strategy: 'unanimous', client_id: null });
        permissionIds.set(name, id);
        await ensureBinding(db, dialect, id, policyIds.get(SystemPolicyName.DEFAULT)!);
    }
    await ensureBinding(db, dialect, permissionIds.get(PermissionName.USER_SELF_MANAGE)!, policyIds.get(SystemPolicyName.USER_NAMES_SELF_MANAGE)!);
    await ensureBinding(db, dialect, permissionIds.get(PermissionName.CLIENT_SELF_MANAGE)!, policyIds.get(SystemPolicyName.CLIENT_NAMES_SELF_MANAGE)!);

    for (const scope of Object.values(ScopeName)) await ensureGlobal(db, dialect, 'auth_scopes', scope);

    const roleIds = new Map<string, string>();
    for (const role of Object.values(SystemRoleName)) {
        const id = await ensureGlobal(db, dialect, 'auth_roles', role, { client_id: null });
        roleIds.set(role, id);
        await ensureRoleGrants(db, dialect, role, id, permissionIds);
    }
    await ensureAdmin(deps, masterId, roleIds.get(SystemRoleName.ADMIN)!, logger);
    deps.catalog.invalidate();
}
