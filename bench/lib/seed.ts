/**
 * The benchmark's data, created through the public API as an operator would: a realm with three
 * confidential clients (one per secret storage mode), a user holding 50 grants through a role,
 * enough users to fill a page of 50, 1,000 permission definitions, and a second realm signing
 * with RS256.
 */
import { randomBytes } from 'node:crypto';
import { basic, inParallel, type Api } from './api.js';

const DEFINITIONS = 1_000;
const GRANTS = 50;
const CHECK_NAMES = 256;
/** users in the bench realm besides the bench user: a full page of 50 and a total beyond it */
const EXTRA_USERS = 60;
/**
 * Accounts the password-grant load rotates over: the server refuses more than a few concurrent
 * logins for one account from one address (spec Authentication rule 16), as it should.
 */
const LOGIN_USERS = 10;

export interface ClientFixture {
    id: string;
    secret: string;
    authorization: string;
}

export interface Fixtures {
    realmName: string;
    realmId: string;
    plain: ClientFixture;
    encrypted: ClientFixture;
    hashed: ClientFixture;
    user: { name: string; password: string };
    logins: { name: string; password: string }[];
    /** 256 definition names for the batch check: the 49 granted ones first */
    checkNames: string[];
    rs256: { realmName: string; client: ClientFixture; user: { name: string; password: string } };
}

const secret = () => randomBytes(32).toString('base64url');

async function client(api: Api, realmId: string, name: string, mode: Record<string, boolean>): Promise<ClientFixture> {
    const value = secret();
    const id = await api.create('clients', { realmId, name, secret: value, ...mode });
    return { id, secret: value, authorization: basic(id, value) };
}

async function globalPermissionId(api: Api, name: string): Promise<string> {
    const answer = await api.request<{ data: { id: string; realmId: string | null }[] }>('GET', `/permissions?filter[name]=${name}`);
    const row = answer.body.data.find((entry) => entry.realmId === null);
    if (!row) throw new Error(`no global permission ${name}`);
    return row.id;
}

let loginSerial = 0;

/** Accounts with passwords (the server hashes each: bcrypt at its cost). */
export async function seedLogins(api: Api, realmId: string, count: number): Promise<{ name: string; password: string }[]> {
    const logins = Array.from({ length: count }, () => ({ name: `login-${loginSerial++}`, password: secret() }));
    await inParallel(logins, 4, (login) => api.create('users', { realmId, name: login.name, password: login.password }));
    return logins;
}

export async function seedBenchRealm(api: Api): Promise<Fixtures> {
    const realmName = 'bench';
    const realmId = await api.create('realms', { name: realmName });
    const [plain, encrypted, hashed] = [
        await client(api, realmId, 'svc-plain', {}),
        await client(api, realmId, 'svc-encrypted', { secretEncrypted: true }),
        await client(api, realmId, 'svc-hashed', { secretHashed: true }),
    ];

    const names = Array.from({ length: DEFINITIONS }, (_, i) => `bench_resource_${String(i).padStart(4, '0')}`);
    const permissionIds = await inParallel(names, 8, (name) => api.create('permissions', { realmId, name }));

    // 50 grants: user_read in its own realm (the list scenario needs it) and 49 realm definitions
    const roleId = await api.create('roles', { realmId, name: 'bench-role' });
    const granted = [await globalPermissionId(api, 'user_read'), ...permissionIds.slice(0, GRANTS - 1)];
    await inParallel(granted, 8, (permissionId) => api.create('role-permissions', { roleId, permissionId, realmScope: 'own' }));
    const user = { name: 'bench-user', password: secret() };
    const userId = await api.create('users', { realmId, name: user.name, password: user.password });
    await api.create('user-roles', { userId, roleId });
    const logins = await seedLogins(api, realmId, LOGIN_USERS);
    await inParallel(Array.from({ length: EXTRA_USERS }, (_, i) => i), 8, (i) => api.create('users', { realmId, name: `member-${i}` }));

    // a second realm whose newest, highest-priority signing key is RS256
    const rsRealmName = 'bench-rs256';
    const rsRealmId = await api.create('realms', { name: rsRealmName });
    await api.create('keys', { realmId: rsRealmId, use: 'sig', algorithm: 'RS256', priority: 10 });
    const rsClient = await client(api, rsRealmId, 'svc-plain', {});
    const rsUser = { name: 'rs-user', password: secret() };
    await api.create('users', { realmId: rsRealmId, name: rsUser.name, password: rsUser.password });

    return {
        realmName, realmId, plain, encrypted, hashed, user, logins,
        checkNames: names.slice(0, CHECK_NAMES),
        rs256: { realmName: rsRealmName, client: rsClient, user: rsUser },
    };
}
