import { PERMISSION_NAMES, PermissionName, RealmScope, ScopeName, SystemPolicyName, SystemRoleName } from '@realmgate/core';
import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { MASTER_REALM } from '@realmgate/core';
import { CONFIG_KEYS, type Config } from '../config/schema.js';
import type { DatabaseHandle } from '../db/connect.js';
import type { DialectName } from '../db/values.js';
import type { KeyStore } from '../keys/store.js';
import type { PasswordHasher } from '../secrets/passwords.js';
import type { SecretBox } from '../secrets/secret-box.js';
import {
    deactivateUser, ensureBuiltInGlobal, ensureBuiltInRealm, ensurePermissionPolicy, ensureUserRole, findBuiltInUser, insertBuiltInUser,
    insertRolePermission, rolePermissionIds, setMissingUserPasswordHash,
} from '../storage/bootstrap.js';
import { ensurePolicyTree, type PolicySeed } from './policies.js';
import { consoleRedirectUris, ensureConsoleClient, listRealmNames } from '../storage/console-clients.js';
import { ensureRealmDefaultRole } from '../storage/default-roles.js';

/** Attributes a user may not set on itself (spec: emailVerified is on this denylist). */
const USER_SELF_MANAGE_DENYLIST = ['active', 'emailVerified', 'nameLocked', 'realmId', 'pathId', 'status', 'statusMessage'];
/** Attributes a client may not set on itself (spec Authentication rule 14: its own grantTypes). */
const CLIENT_SELF_MANAGE_DENYLIST = ['active', 'builtIn', 'grantTypes', 'realmId', 'pathId', 'accessPolicyId', 'secretHashed', 'secretEncrypted', 'redirectUri', 'backchannelLogoutUri', 'firstParty'];

/** USER_ADMIN_PASSWORD's default (config/schema.ts), the password a production boot warns about */
const DEFAULT_ADMIN_PASSWORD = CONFIG_KEYS.find((entry) => entry.env === 'USER_ADMIN_PASSWORD')!.default;

/** What the bootstrap needs of the composition root (wire.ts). */
export interface BootstrapDeps {
    config: Pick<Config, 'env' | 'userAdmin'> & Partial<Pick<Config, 'publicUrl' | 'console' | 'port'>>;
    handle: DatabaseHandle;
    db: Kysely<Database>;
    passwords: PasswordHasher;
    secrets: SecretBox;
    keys: KeyStore;
    /** the authorization catalog cache (authz/catalog-cache.ts), rebuilt after the built-in rows change */
    catalog: { invalidate(): void };
}

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

async function ensureRoleGrants(db: Kysely<Database>, dialect: DialectName, roleName: string, roleId: string, permissionIds: Map<string, string>): Promise<void> {
    const existing = await rolePermissionIds(db, roleId);
    for (const [name, permissionId] of permissionIds) {
        const reach = reachFor(roleName, name);
        // a customized reach is left alone: only missing grants are added
        if (reach === null || existing.has(permissionId)) continue;
        await insertRolePermission(db, dialect, roleId, permissionId, reach);
    }
}

async function ensureAdmin(deps: BootstrapDeps, realmId: string, adminRoleId: string, logger?: FastifyBaseLogger): Promise<void> {
    const { db, handle, config, passwords } = deps;
    const { name, password, enabled } = config.userAdmin;
    const found = await findBuiltInUser(db, realmId, name);
    let adminId: string;
    let storedHash: string;
    if (!found) {
        // the hash goes into the insert itself: no crash point leaves the admin without a password
        storedHash = await passwords.hash(password);
        adminId = await insertBuiltInUser(db, handle.dialect, { realmId, name, displayName: 'Administrator', active: enabled, passwordHash: storedHash });
    } else {
        adminId = found.id;
        storedHash = found.passwordHash ?? await passwords.hash(password);
        // a first boot of an older version killed between its insert and its hash left a NULL password: repair it
        if (found.passwordHash === null) await setMissingUserPasswordHash(db, adminId, storedHash);
    }
    await ensureUserRole(db, handle.dialect, adminId, adminRoleId);
    // spec States: USER_ADMIN_ENABLED=false deactivates on the next start; true never reactivates
    if (!enabled) await deactivateUser(db, handle.dialect, adminId);
    if (config.env === 'production' && enabled && await stillDefaultPassword(passwords, storedHash)) {
        // spec Authentication rule 20; the setting is named, the password never
        logger?.warn(`The bootstrap administrator "${name}" still has the default password in production: set USER_ADMIN_PASSWORD before the first boot, or change the administrator's password now.`);
    }
}

/**
 * Whether the administrator's stored password is the default one: USER_ADMIN_PASSWORD only seeds the
 * first boot, so the stored hash, not the setting, tells whether the password was ever changed.
 * Nothing is remembered: the check is no sign-in.
 */
function stillDefaultPassword(passwords: PasswordHasher, storedHash: string): Promise<boolean> {
    return passwords.verify(DEFAULT_ADMIN_PASSWORD, storedHash, { remember: false });
}

/**
 * The public client `admin-console` of every realm (storage/console-clients.ts): the master's under
 * its fixed id, and one for each realm created before realms got theirs at creation (or whose
 * redirect URIs changed with PUBLIC_URL or CONSOLE_PUBLIC_URL). Idempotent.
 */
async function ensureConsoleClients(deps: BootstrapDeps): Promise<void> {
    const uris = consoleRedirectUris(deps.config);
    if (uris.length === 0) return;
    for (const realm of await listRealmNames(deps.db)) await ensureConsoleClient(deps.db, deps.handle.dialect, realm, uris);
}

/** The bootstrap state of API.md §5, idempotent at every boot. */
export async function bootstrap(deps: BootstrapDeps, logger?: FastifyBaseLogger): Promise<void> {
    const { db, handle } = deps;
    const dialect = handle.dialect;
    const masterId = await ensureBuiltInRealm(db, dialect, MASTER_REALM);
    // spec Authentication rule 15: keys stored before SECRETS_ENCRYPTION_KEY was set get wrapped now
    const wrapped = await deps.secrets.wrapStoredKeys(db);
    if (wrapped > 0) logger?.info({ wrapped }, 'wrapped stored realm keys under SECRETS_ENCRYPTION_KEY');
    await deps.secrets.ensureRealmKey(db, masterId);
    // API.md §5: the master realm's signing keys, created once (active ones are kept); and those of
    // realms created before every advertised algorithm's key came with the realm (OIDC Core §10.1.1)
    await deps.keys.ensureEveryRealmSigningKeys(db);

    const policyIds = new Map<string, string>();
    for (const seed of SYSTEM_POLICIES) policyIds.set(seed.name, await ensurePolicyTree(db, dialect, seed));

    const permissionIds = new Map<string, string>();
    for (const name of PERMISSION_NAMES) {
        const id = await ensureBuiltInGlobal(db, dialect, { table: 'auth_permissions', decisionStrategy: 'unanimous' }, name);
        permissionIds.set(name, id);
        await ensurePermissionPolicy(db, dialect, id, policyIds.get(SystemPolicyName.DEFAULT)!);
    }
    await ensurePermissionPolicy(db, dialect, permissionIds.get(PermissionName.USER_SELF_MANAGE)!, policyIds.get(SystemPolicyName.USER_NAMES_SELF_MANAGE)!);
    await ensurePermissionPolicy(db, dialect, permissionIds.get(PermissionName.CLIENT_SELF_MANAGE)!, policyIds.get(SystemPolicyName.CLIENT_NAMES_SELF_MANAGE)!);

    const scopeIds = new Map<string, string>();
    for (const scope of Object.values(ScopeName)) scopeIds.set(scope, await ensureBuiltInGlobal(db, dialect, { table: 'auth_scopes' }, scope));

    const roleIds = new Map<string, string>();
    for (const role of Object.values(SystemRoleName)) {
        const id = await ensureBuiltInGlobal(db, dialect, { table: 'auth_roles' }, role);
        roleIds.set(role, id);
        await ensureRoleGrants(db, dialect, role, id, permissionIds);
    }
    // API.md §8: the master realm's default role, as every realm created later gets its own (after
    // the built-in permissions: it carries user_self_manage)
    await ensureRealmDefaultRole(db, dialect, masterId);
    await ensureAdmin(deps, masterId, roleIds.get(SystemRoleName.ADMIN)!, logger);
    await ensureConsoleClients(deps);
    deps.catalog.invalidate();
}
