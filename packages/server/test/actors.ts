import { randomUUID } from 'node:crypto';
import type { RealmScope } from '@realmgate/core';
import { toDbBool, toDbDate } from '../src/db/values.js';
import { basicHeader, type TestApp } from './app.js';

export interface GrantSpec {
    permission: string;
    scope: RealmScope;
    /** a root policy id for the junction */
    policyId?: string;
}

/** Create a realm directly (no authorization involved); returns its id. */
export async function createRealm(app: TestApp, name: string): Promise<string> {
    const id = randomUUID();
    const now = toDbDate(app.deps.handle.dialect, new Date());
    await app.deps.db.insertInto('auth_realms').values({
        id, name, display_name: null, description: null, built_in: toDbBool(app.deps.handle.dialect, false), created_at: now, updated_at: now,
    }).execute();
    await app.deps.secrets.ensureRealmKey(app.deps.db, id);
    // a signing key, so the realm can issue tokens; its other advertised keys (the RS256 ID-token
    // key) follow on demand, as for a realm that predates them (the API creates all with the realm)
    await app.deps.keys.ensureSigningKey(app.deps.db, id);
    return id;
}

/**
 * A user of `realmId` holding exactly `grants` through one private role — the arrangement every
 * realm-isolation test needs. Returns its Basic header and ids.
 */
export async function createActor(app: TestApp, realmId: string, grants: GrantSpec[], name = `actor-${randomUUID().slice(0, 8)}`) {
    const { db, handle, passwords } = app.deps;
    const now = toDbDate(handle.dialect, new Date());
    const userId = randomUUID();
    const roleId = randomUUID();
    const password = 'secret-password';
    await db.insertInto('auth_users').values({
        id: userId, name, name_locked: toDbBool(handle.dialect, false), first_name: null, last_name: null, display_name: null,
        email: null, password: await passwords.hash(password), reset_hash: null, reset_at: null, activate_hash: null,
        email_verified: toDbBool(handle.dialect, false), active: toDbBool(handle.dialect, true), status: null, status_message: null,
        path_id: null, realm_id: realmId, created_at: now, updated_at: now,
    }).execute();
    await db.insertInto('auth_roles').values({
        id: roleId, name: `${name}-role`, display_name: null, description: null, built_in: toDbBool(handle.dialect, false),
        client_id: null, realm_id: realmId, created_at: now, updated_at: now,
    }).execute();
    await db.insertInto('auth_user_roles').values({ id: randomUUID(), user_id: userId, role_id: roleId, created_at: now, updated_at: now }).execute();
    for (const grant of grants) {
        const permission = await db.selectFrom('auth_permissions').select('id')
            .where('name', '=', grant.permission).where('realm_id', 'is', null).where('client_id', 'is', null).executeTakeFirstOrThrow();
        await db.insertInto('auth_role_permissions').values({
            id: randomUUID(), role_id: roleId, permission_id: permission.id, realm_scope: grant.scope, policy_id: grant.policyId ?? null,
            created_at: now, updated_at: now,
        }).execute();
    }
    app.deps.catalog.invalidate();
    return { userId, roleId, name, header: basicHeader(userId, password) };
}
