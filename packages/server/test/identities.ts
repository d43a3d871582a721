import { randomUUID } from 'node:crypto';
import type { RealmScope } from '@realmgate/core';
import type { TableName } from '../src/db/schema.js';
import { toDbDate } from '../src/db/values.js';
import { basicHeader, type TestApp } from './app.js';

/*
 * Helpers for the user, client and attribute suites: direct grants (the junction routes may not
 * exist yet, so rows are inserted with Kysely) and row counts for "the database is unchanged".
 */

async function permissionId(app: TestApp, name: string): Promise<string> {
    const row = await app.deps.db.selectFrom('auth_permissions').select('id')
        .where('name', '=', name).where('realm_id', 'is', null).where('client_id', 'is', null).executeTakeFirstOrThrow();
    return row.id;
}

/** Grant a built-in permission directly to a user or client at a reach. */
export async function grantDirect(app: TestApp, holder: { userId?: string; clientId?: string }, permission: string, scope: RealmScope): Promise<void> {
    const now = toDbDate(app.deps.handle.dialect, new Date());
    const base = { id: randomUUID(), permission_id: await permissionId(app, permission), realm_scope: scope, policy_id: null, created_at: now, updated_at: now };
    if (holder.userId) await app.deps.db.insertInto('auth_user_permissions').values({ ...base, user_id: holder.userId }).execute();
    else await app.deps.db.insertInto('auth_client_permissions').values({ ...base, client_id: holder.clientId! }).execute();
    app.deps.catalog.invalidate();
}

/** A client created through the API as the admin, with a plain secret; returns its id and Basic header. */
export async function createClient(app: TestApp, realmId: string, name = `client-${randomUUID().slice(0, 8)}`, extra: Record<string, unknown> = {}) {
    const secret = `secret-${randomUUID()}`;
    const created = await app.json<{ data: { id: string } }>({ method: 'POST', url: '/clients', payload: { name, realmId, secret, ...extra } }, 201);
    return { id: created.data.id, name, secret, header: basicHeader(created.data.id, secret) };
}

/** A user created through the API as the admin, with a password; returns its id and Basic header. */
export async function createUser(app: TestApp, realmId: string, name = `user-${randomUUID().slice(0, 8)}`, extra: Record<string, unknown> = {}) {
    const password = `pw-${randomUUID()}`;
    const created = await app.json<{ data: { id: string } }>({ method: 'POST', url: '/users', payload: { name, realmId, password, ...extra } }, 201);
    return { id: created.data.id, name, password, header: basicHeader(created.data.id, password) };
}

export async function countRows(app: TestApp, table: TableName): Promise<number> {
    const row = await app.deps.db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
    return Number((row as { n: unknown }).n);
}

export async function masterRealmId(app: TestApp): Promise<string> {
    return (await app.deps.db.selectFrom('auth_realms').select('id').where('name', '=', 'master').executeTakeFirstOrThrow()).id;
}
