import { randomUUID } from 'node:crypto';
import { RealmScope } from '@realmgate/core';
import { toDbBool, toDbDate } from '../src/db/values.js';
import type { TestApp } from './app.js';

/*
 * Actors and rows for authorization tests, written straight into the database so a test states
 * exactly which grants an actor holds (nothing more is provisioned for it). Requests then go
 * through HTTP as that actor, authenticated by id with Basic (spec Authentication rule 5).
 */

export const FIXTURE_PASSWORD = 'fixture-secret-1';

let counter = 0;
/** A name unique within the test run (names repeat across realms otherwise). */
export function uniqueName(prefix: string): string {
    counter += 1;
    return `${prefix}-${counter}-${randomUUID().slice(0, 8)}`;
}

function stamps(app: TestApp) {
    const now = toDbDate(app.deps.handle.dialect, new Date());
    return { created_at: now, updated_at: now };
}

export async function createRealm(app: TestApp, name = uniqueName('realm')): Promise<string> {
    const body = await app.json<{ data: { id: string } }>({ method: 'POST', url: '/realms', payload: { name } }, 201);
    return body.data.id;
}

export interface FixtureActor {
    id: string;
    realmId: string;
    /** the Authorization header value */
    auth: string;
}

export async function insertUser(app: TestApp, realmId: string, name = uniqueName('user')): Promise<FixtureActor> {
    const id = randomUUID();
    const dialect = app.deps.handle.dialect;
    await app.deps.db.insertInto('auth_users').values({
        id, name, name_locked: toDbBool(dialect, true), first_name: null, last_name: null, display_name: null, email: null,
        password: await app.deps.passwords.hash(FIXTURE_PASSWORD), reset_hash: null, reset_at: null, activate_hash: null,
        email_verified: toDbBool(dialect, false), active: toDbBool(dialect, true), status: null, status_message: null,
        path_id: null, realm_id: realmId, ...stamps(app),
    }).execute();
    return { id, realmId, auth: app.basic(id, FIXTURE_PASSWORD) };
}

/** A client row (no secret: these tests never authenticate as it). */
export async function insertClient(app: TestApp, realmId: string, name = uniqueName('client')): Promise<string> {
    const id = randomUUID();
    const dialect = app.deps.handle.dialect;
    await app.deps.db.insertInto('auth_clients').values({
        id, name, display_name: null, description: null, active: toDbBool(dialect, true), built_in: toDbBool(dialect, false),
        secret: null, secret_hashed: toDbBool(dialect, false), secret_encrypted: toDbBool(dialect, false), redirect_uri: null,
        post_logout_redirect_uri: null, grant_types: null, base_url: null, backchannel_logout_uri: null, access_policy_id: null,
        path_id: null, realm_id: realmId, ...stamps(app),
    }).execute();
    return id;
}

export async function insertRole(app: TestApp, realmId: string | null, name = uniqueName('role')): Promise<string> {
    const id = randomUUID();
    await app.deps.db.insertInto('auth_roles').values({
        id, name, display_name: null, description: null, built_in: toDbBool(app.deps.handle.dialect, false), client_id: null, realm_id: realmId, ...stamps(app),
    }).execute();
    return id;
}

export async function insertScope(app: TestApp, realmId: string | null, name = uniqueName('scope')): Promise<string> {
    const id = randomUUID();
    await app.deps.db.insertInto('auth_scopes').values({
        id, name, display_name: null, description: null, built_in: toDbBool(app.deps.handle.dialect, false), realm_id: realmId, ...stamps(app),
    }).execute();
    return id;
}

/** A permission through the API, so it is bound to system.default like every created one. */
export async function createPermission(app: TestApp, realmId: string | null, name = uniqueName('perm')): Promise<string> {
    const body = await app.json<{ data: { id: string } }>({ method: 'POST', url: '/permissions', payload: { name, realmId } }, 201);
    return body.data.id;
}

/** The id of a global (built-in) permission or role by name. */
export async function globalId(app: TestApp, table: 'auth_permissions' | 'auth_roles' | 'auth_policies' | 'auth_scopes', name: string): Promise<string> {
    const row = await app.deps.db.selectFrom(table as 'auth_roles').select('id').where('name', '=', name).where('realm_id', 'is', null).executeTakeFirstOrThrow();
    return row.id;
}

/** Rows written behind the API's back: the remembered grants are emptied as the bus does after an API write. */
function forgetGrants(app: TestApp): void {
    app.deps.caches.invalidateAll();
}

/** A direct grant of a global permission to a user. */
export async function grantUser(app: TestApp, userId: string, permission: string, realmScope: RealmScope = RealmScope.OWN, policyId: string | null = null): Promise<string> {
    const id = randomUUID();
    await app.deps.db.insertInto('auth_user_permissions').values({
        id, user_id: userId, permission_id: await globalId(app, 'auth_permissions', permission), realm_scope: realmScope, policy_id: policyId, ...stamps(app),
    }).execute();
    forgetGrants(app);
    return id;
}

export async function grantRole(app: TestApp, roleId: string, permissionId: string, realmScope: RealmScope = RealmScope.OWN): Promise<string> {
    const id = randomUUID();
    await app.deps.db.insertInto('auth_role_permissions').values({
        id, role_id: roleId, permission_id: permissionId, realm_scope: realmScope, policy_id: null, ...stamps(app),
    }).execute();
    forgetGrants(app);
    return id;
}

export async function assignRole(app: TestApp, userId: string, roleId: string): Promise<string> {
    const id = randomUUID();
    await app.deps.db.insertInto('auth_user_roles').values({ id, user_id: userId, role_id: roleId, ...stamps(app) }).execute();
    forgetGrants(app);
    return id;
}

/** A user of `realmId` holding each permission at `realmScope`. */
export async function actorWith(app: TestApp, realmId: string, permissions: readonly string[], realmScope: RealmScope): Promise<FixtureActor> {
    const actor = await insertUser(app, realmId);
    for (const permission of permissions) await grantUser(app, actor.id, permission, realmScope);
    return actor;
}

export async function countRows(app: TestApp, table: 'auth_policies' | 'auth_permission_policies' | 'auth_role_permissions' | 'auth_user_permissions' | 'auth_client_permissions' | 'auth_user_roles' | 'auth_client_roles' | 'auth_client_scopes'): Promise<number> {
    const row = await app.deps.db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
    return Number(row.n);
}

/** Where a row lives, seen from an actor of realm A: its realm, another realm, or no realm. */
export type Where = 'A' | 'B' | 'global';

/** Every realm reach a grant can carry, for the isolation suites to loop over. */
export const REALM_SCOPES = [RealmScope.OWN, RealmScope.OWN_OR_NULL, RealmScope.ANY] as const;

/** Spec "Realm reach values": whether a grant at `scope` held by an actor of realm A reaches a row at `where`. */
export function reaches(scope: RealmScope, where: Where): boolean {
    if (scope === RealmScope.ANY) return true;
    if (scope === RealmScope.OWN_OR_NULL) return where !== 'B';
    return where === 'A';
}
