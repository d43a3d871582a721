import { randomUUID } from 'node:crypto';
import type { RealmScope } from '@realmgate/core';
import { expect } from 'vitest';
import { toDbBool, toDbDate } from '../src/db/values.js';
import type { TestApp } from './app.js';

/*
 * Rows for the batch-check and check-route suites, written straight into the database so a test
 * states exactly which definitions, policies and grants exist (the catalog is invalidated after
 * each write, as the API's own writes do).
 */

function stamps(app: TestApp) {
    const now = toDbDate(app.deps.handle.dialect, new Date());
    return { created_at: now, updated_at: now };
}

let counter = 0;
export function unique(prefix: string): string {
    counter += 1;
    return `${prefix}_${counter}_${randomUUID().slice(0, 8)}`;
}

/** A root policy row; `config` holds the type's configuration keys. */
export async function insertPolicy(app: TestApp, type: string, config: Record<string, unknown>, realmId: string | null = null, invert = false): Promise<string> {
    const id = randomUUID();
    await app.deps.db.insertInto('auth_policies').values({
        id, type, name: unique('policy'), display_name: null, description: null, invert: toDbBool(app.deps.handle.dialect, invert),
        config: JSON.stringify(config), parent_id: null, realm_id: realmId, built_in: toDbBool(app.deps.handle.dialect, false), ...stamps(app),
    }).execute();
    app.deps.catalog.invalidate();
    return id;
}

export async function systemDefaultId(app: TestApp): Promise<string> {
    const row = await app.deps.db.selectFrom('auth_policies').select('id').where('name', '=', 'system.default').where('realm_id', 'is', null).executeTakeFirstOrThrow();
    return row.id;
}

/** A definition bound to exactly `policies` (none: unrestricted, spec model line 4). */
export async function insertPermission(
    app: TestApp,
    options: { name?: string; realmId?: string | null; clientId?: string | null; policies?: string[]; strategy?: string } = {},
): Promise<{ id: string; name: string }> {
    const id = randomUUID();
    const name = options.name ?? unique('perm');
    await app.deps.db.insertInto('auth_permissions').values({
        id, name, display_name: null, description: null, built_in: toDbBool(app.deps.handle.dialect, false),
        decision_strategy: options.strategy ?? 'unanimous', client_id: options.clientId ?? null, realm_id: options.realmId ?? null, ...stamps(app),
    }).execute();
    for (const policyId of options.policies ?? []) {
        await app.deps.db.insertInto('auth_permission_policies').values({ id: randomUUID(), permission_id: id, policy_id: policyId, ...stamps(app) }).execute();
    }
    app.deps.catalog.invalidate();
    return { id, name };
}

export async function permissionIdOf(app: TestApp, name: string): Promise<string> {
    const row = await app.deps.db.selectFrom('auth_permissions').select('id')
        .where('name', '=', name).where('realm_id', 'is', null).where('client_id', 'is', null).executeTakeFirstOrThrow();
    return row.id;
}

/** A direct grant (user-permission or client-permission junction row). */
export async function grant(
    app: TestApp,
    holder: { userId: string } | { clientId: string },
    permissionId: string,
    realmScope: RealmScope,
    policyId: string | null = null,
): Promise<void> {
    const base = { id: randomUUID(), permission_id: permissionId, realm_scope: realmScope, policy_id: policyId, ...stamps(app) };
    if ('userId' in holder) await app.deps.db.insertInto('auth_user_permissions').values({ ...base, user_id: holder.userId }).execute();
    else await app.deps.db.insertInto('auth_client_permissions').values({ ...base, client_id: holder.clientId }).execute();
    app.deps.catalog.invalidate();
}

/** POST /token; returns the access token. */
export async function accessToken(app: TestApp, payload: Record<string, unknown>): Promise<string> {
    const response = await app.request({ method: 'POST', url: '/token', payload, as: null });
    expect(response.statusCode, response.body).toBe(200);
    return (response.json() as { access_token: string }).access_token;
}

export const bearer = (token: string): string => `Bearer ${token}`;
