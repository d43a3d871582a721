import { randomUUID } from 'node:crypto';
import { decodeJwt } from 'jose';
import type { TestApp } from '../app.js';

/*
 * A realm holding one row of every administered kind, built through the API as the bootstrap
 * admin, with the ids of each kind: the rows the security suites aim at (fuzzed path parameters,
 * another realm's rows for the isolation suite).
 */

export type Kind =
    | 'realms' | 'paths' | 'users' | 'clients' | 'roles' | 'permissions' | 'scopes' | 'policies' | 'keys' | 'sessions' | 'session-tokens'
    | 'user-attributes' | 'role-attributes' | 'user-roles' | 'client-roles' | 'role-permissions' | 'user-permissions'
    | 'client-permissions' | 'client-scopes' | 'permission-policies';

export interface RealmWorld {
    realmId: string;
    realmName: string;
    /** ids of the realm's rows by collection (the realm itself under `realms`) */
    ids: Record<Kind, string[]>;
    /** names and ids that only this realm's rows carry: none may appear in another realm's answers */
    markers: string[];
    user: { id: string; name: string; password: string };
    client: { id: string; secret: string };
    roleId: string;
}

export async function buildRealmWorld(app: TestApp, label: string): Promise<RealmWorld> {
    const tag = `${label}-${randomUUID().slice(0, 6)}`;
    const post = async (url: string, payload: Record<string, unknown>) =>
        (await app.json<{ data: { id: string } }>({ method: 'POST', url, payload }, 201)).data.id;
    const realmName = `realm-${tag}`;
    const realmId = await post('/realms', { name: realmName });
    const names: string[] = [realmName];
    const named = (kind: string) => {
        const name = `${kind}-${tag}`;
        names.push(name);
        return name;
    };
    const pathId = await post('/paths', { name: named('path'), realmId });
    const password = `pw-${randomUUID()}`;
    const userName = named('user');
    const userId = await post('/users', { name: userName, realmId, password, email: `${userName}@example.test` });
    const secret = `secret-${randomUUID()}`;
    const clientId = await post('/clients', { name: named('client'), realmId, secret, grantTypes: ['client_credentials', 'password'] });
    const roleId = await post('/roles', { name: named('role'), realmId });
    const permissionId = await post('/permissions', { name: named('perm'), realmId });
    const scopeId = await post('/scopes', { name: named('scope'), realmId });
    const policyId = await post('/policies', { type: 'identity', name: named('policy'), realmId });
    const ids: Record<Kind, string[]> = {
        'realms': [realmId],
        'paths': [pathId],
        'users': [userId],
        'clients': [clientId],
        'roles': [roleId],
        'permissions': [permissionId],
        'scopes': [scopeId],
        'policies': [policyId],
        'user-attributes': [await post('/user-attributes', { name: named('uattr'), value: 'v', userId })],
        'role-attributes': [await post('/role-attributes', { name: named('rattr'), value: 'v', roleId })],
        'user-roles': [await post('/user-roles', { userId, roleId })],
        'client-roles': [await post('/client-roles', { clientId, roleId })],
        'role-permissions': [await post('/role-permissions', { roleId, permissionId })],
        'user-permissions': [await post('/user-permissions', { userId, permissionId })],
        'client-permissions': [await post('/client-permissions', { clientId, permissionId })],
        'client-scopes': [await post('/client-scopes', { clientId, scopeId })],
        'permission-policies': [await post('/permission-policies', { permissionId, policyId })],
        'keys': [],
        'sessions': [],
        'session-tokens': [],
    };
    // a live session of the realm's user, with its refresh token row
    const login = await app.request({ method: 'POST', url: '/token', as: null, payload: { grant_type: 'password', username: userName, password, realm_id: realmId } });
    if (login.statusCode !== 200) throw new Error(`login in ${realmName}: ${login.statusCode} ${login.body}`);
    const sessionId = String(decodeJwt((login.json() as { access_token: string }).access_token).session_id);
    ids.sessions.push(sessionId);
    const listIds = async (url: string) => (await app.json<{ data: { id: string }[] }>({ method: 'GET', url }, 200)).data.map((row) => row.id);
    ids['session-tokens'].push(...await listIds(`/session-tokens?filter[sessionId]=${sessionId}`));
    ids.keys.push(...await listIds(`/keys?filter[realmId]=${realmId}`));
    const markers = [...names, ...Object.values(ids).flat()];
    return { realmId, realmName, ids, markers, user: { id: userId, name: userName, password }, client: { id: clientId, secret }, roleId };
}
