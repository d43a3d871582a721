import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { runCli } from '../../src/cli.js';
import { provision } from '../../src/provisioning/provision.js';
import { parseProvisioningFile } from '../../src/provisioning/files.js';
import { provisioningFileJsonSchema } from '../../src/provisioning/schema.js';
import { startTestApp, useTestApp, type TestApp } from '../app.js';
import { createTestDatabase, describeEachDialect } from '../databases.js';

const SCHEMA_DOC = fileURLToPath(new URL('../../../../docs/provisioning-file.schema.json', import.meta.url));
const EXAMPLE = fileURLToPath(new URL('../../../../examples/provisioning/realm.yaml', import.meta.url));
const REACTIVATE_ADMIN = fileURLToPath(new URL('../../../../examples/provisioning/reactivate-admin.yaml', import.meta.url));

/** Every row provisioning can touch, with its update stamp: equal snapshots mean nothing changed. */
const TABLES = [
    'auth_realms', 'auth_users', 'auth_clients', 'auth_roles', 'auth_permissions', 'auth_scopes', 'auth_policies',
    'auth_user_roles', 'auth_user_permissions', 'auth_role_permissions', 'auth_client_roles', 'auth_client_permissions',
    'auth_client_scopes', 'auth_permission_policies', 'auth_realm_default_roles',
] as const;

async function snapshot(app: TestApp): Promise<Record<string, string>> {
    const result: Record<string, string> = {};
    for (const table of TABLES) {
        const rows = await app.database.db.selectFrom(table).select(['id', 'updated_at']).orderBy('id').execute();
        result[table] = JSON.stringify(rows.map((row) => [row.id, String(row.updated_at)]));
    }
    // entries written beside earlier requests (sign-ins, token issuance) land first
    await app.deps.events.settled();
    const events = await app.database.db.selectFrom('auth_events').select((eb) => eb.fn.countAll().as('count')).executeTakeFirstOrThrow();
    result.auth_events = String(events.count);
    return result;
}

const folders: string[] = [];

/** A fresh folder `<tmp>/provisioning` holding the given files; its path. */
async function folderWith(files: Record<string, string>): Promise<string> {
    const root = await mkdtemp(join(tmpdir(), 'realmgate-provisioning-'));
    folders.push(root);
    const folder = join(root, 'provisioning');
    await mkdir(folder);
    for (const [name, text] of Object.entries(files)) await writeFile(join(folder, name), text);
    return folder;
}

afterAll(async () => {
    await Promise.all(folders.map((folder) => rm(folder, { recursive: true, force: true })));
});

async function realmId(app: TestApp, name: string): Promise<string | undefined> {
    return (await app.database.db.selectFrom('auth_realms').select('id').where('name', '=', name).executeTakeFirst())?.id;
}

async function client(app: TestApp, realm: string, name: string) {
    const id = await realmId(app, realm);
    return app.database.db.selectFrom('auth_clients').selectAll().where('realm_id', '=', id!).where('name', '=', name).executeTakeFirstOrThrow();
}

async function user(app: TestApp, realm: string, name: string) {
    const id = await realmId(app, realm);
    return app.database.db.selectFrom('auth_users').selectAll().where('realm_id', '=', id!).where('name', '=', name).executeTakeFirstOrThrow();
}

async function userRoleNames(app: TestApp, userId: string): Promise<string[]> {
    const rows = await app.database.db.selectFrom('auth_user_roles').innerJoin('auth_roles', 'auth_roles.id', 'auth_user_roles.role_id')
        .select('auth_roles.name').where('auth_user_roles.user_id', '=', userId).execute();
    return rows.map((row) => row.name).sort();
}

async function clientCredentials(app: TestApp, clientId: string, secret: string): Promise<number> {
    const response = await app.request({ method: 'POST', url: '/token', payload: { grant_type: 'client_credentials' }, as: app.basic(clientId, secret) });
    return response.statusCode;
}

describe('provisioning file format', () => {
    it('is published as JSON Schema naming every entry kind', () => {
        const schema = provisioningFileJsonSchema() as { properties: Record<string, unknown> };
        expect(Object.keys(schema.properties).sort()).toEqual(['permissions', 'policies', 'realms', 'roles', 'scopes']);
        expect(JSON.stringify(schema)).toContain('provisioning.client');
        // the documented copy (docs/operations/provisioning.md) is the schema the server validates with
        expect(JSON.parse(readFileSync(SCHEMA_DOC, 'utf8'))).toEqual(schema);
    });

    it('names the file and the path inside the document', () => {
        const file = 'realms:\n  - name: acme\n    clients:\n      - name: a\n      - name: b\n        grantTypes: client_credentials\n';
        expect(() => parseProvisioningFile('provisioning/realms.yaml', file))
            .toThrow('provisioning/realms.yaml: /realms/0/clients/1/grantTypes: must be array or null');
        expect(() => parseProvisioningFile('p.yaml', 'realms:\n  - name: acme\n    users:\n      - name: bob\n        colour: blue\n'))
            .toThrow('p.yaml: /realms/0/users/0/colour: is not a member of this entry');
        expect(() => parseProvisioningFile('p.json', '{"realms":[{"name":"acme","strategy":"replace"}]}'))
            .toThrow('p.json: /realms/0/strategy: must be "createOnly" or "merge"');
        expect(() => parseProvisioningFile('p.yml', 'realms:\n  - name: acme\n    users:\n      - name: bob\n      - name: bob\n'))
            .toThrow('p.yml: /realms/0/users/1/name: duplicates /realms/0/users/0/name "bob"');
        expect(() => parseProvisioningFile('p.json', JSON.stringify({ realms: [{ name: 'acme', users: [{ name: 'caf\u00e9' }, { name: 'cafe\u0301' }] }] })))
            .toThrow('p.json: /realms/0/users/1/name: duplicates /realms/0/users/0/name "caf\u00e9"');
        expect(() => parseProvisioningFile('p.yml', 'realms: [')).toThrow(/^p\.yml: \/: cannot be parsed/);
    });
});

describeEachDialect('provisioning files', (dialect) => {
    const app = useTestApp(dialect);

    it('applies the example file; applying it again changes nothing', async () => {
        const folder = await folderWith({ 'realm.yaml': await readFile(EXAMPLE, 'utf8') });
        const first = await provision(app.deps, folder);
        expect(first).toEqual({ files: 1, created: 7, updated: 0, bound: 5 });
        const alice = await user(app, 'acme', 'alice');
        // and the realm's default role, which every new user of the realm receives (API.md §8)
        expect(await userRoleNames(app, alice.id)).toEqual(['default-roles', 'support']);
        const service = await client(app, 'acme', 'ticket-service');
        expect(service.secret).not.toBe('ticket-service-secret');
        // the realm the file creates gets its console client in the same transaction (domains/realms.ts)
        const consoleClient = await client(app, 'acme', 'admin-console');
        expect(consoleClient.secret).toBeNull();
        expect(await clientCredentials(app, service.id, 'ticket-service-secret')).toBe(200);

        const before = await snapshot(app);
        const second = await provision(app.deps, folder);
        expect(second).toEqual({ files: 1, created: 0, updated: 0, bound: 0 });
        expect(await snapshot(app)).toEqual(before);
    });

    it('createOnly leaves an existing row and its bindings alone; merge writes the declared attributes and adds bindings', async () => {
        const declare = (extra: string) => folderWith({
            'r.yaml': `realms:\n  - name: strategies\n    roles:\n      - name: first\n      - name: second\n    users:\n      - name: bob\n${extra}`,
        });
        await provision(app.deps, await declare('        displayName: Bob\n        active: false\n        realmRoles: [first]\n'));
        const bob = await user(app, 'strategies', 'bob');
        const before = await snapshot(app);
        // createOnly (the default): the row exists, so neither the attribute nor the binding is applied
        await provision(app.deps, await declare('        displayName: Robert\n        realmRoles: [second]\n'));
        expect(await snapshot(app)).toEqual(before);
        // merge on one attribute: only `active` is written
        const summary = await provision(app.deps, await declare('        displayName: Robert\n        active: true\n        strategy: merge\n        mergeAttributes: [active]\n'));
        expect(summary.updated).toBe(1);
        expect(await user(app, 'strategies', 'bob')).toMatchObject({ display_name: 'Bob' });
        expect(Boolean((await user(app, 'strategies', 'bob')).active)).toBe(true);
        // merge: every declared attribute, and the missing binding is added (none removed)
        await provision(app.deps, await declare('        displayName: Robert\n        realmRoles: [second]\n        strategy: merge\n'));
        expect((await user(app, 'strategies', 'bob')).display_name).toBe('Robert');
        expect(await userRoleNames(app, bob.id)).toEqual(['default-roles', 'first', 'second']);
        // merging the same declaration again changes nothing
        const merged = await snapshot(app);
        await provision(app.deps, await declare('        displayName: Robert\n        realmRoles: [second]\n        strategy: merge\n'));
        expect(await snapshot(app)).toEqual(merged);
    });

    it('a realm entry names its default roles: exactly these on creation, the missing ones added under merge; its users receive them', async () => {
        const declare = (extra: string) => folderWith({
            'd.yaml': `realms:\n  - name: defaults\n    roles:\n      - name: member\n      - name: reader\n${extra}    users:\n      - name: carol\n`,
        });
        const listed = async () => {
            const realm = await app.database.db.selectFrom('auth_realms').select('id').where('name', '=', 'defaults').executeTakeFirstOrThrow();
            const rows = await app.database.db.selectFrom('auth_realm_default_roles').innerJoin('auth_roles', 'auth_roles.id', 'auth_realm_default_roles.role_id')
                .select('auth_roles.name').where('auth_realm_default_roles.realm_id', '=', realm.id).execute();
            return rows.map((row) => row.name).sort();
        };
        const first = await provision(app.deps, await declare('    defaultRoles: [member]\n'));
        expect(first.bound).toBe(1);
        expect(await listed()).toEqual(['member']);
        expect(await userRoleNames(app, (await user(app, 'defaults', 'carol')).id)).toEqual(['member']);
        // createOnly: the realm exists, the list is left alone
        const before = await snapshot(app);
        await provision(app.deps, await declare('    defaultRoles: [reader]\n'));
        expect(await snapshot(app)).toEqual(before);
        // merge adds the missing one, removes none
        await provision(app.deps, await declare('    strategy: merge\n    defaultRoles: [reader]\n'));
        expect(await listed()).toEqual(['member', 'reader']);
        // a name that is no role of the realm (here a global one) is refused with its place in the file
        await expect(provision(app.deps, await declare('    strategy: merge\n    defaultRoles: [admin]\n'))).rejects.toThrow('d.yaml: /realms/0/defaultRoles/0: names no role "admin" in this realm');
        expect(await listed()).toEqual(['member', 'reader']);
    });

    it('a built-in row is the exception: its declared bindings are added although it exists', async () => {
        await provision(app.deps, await folderWith({
            'global.yaml': 'permissions:\n  - name: provisioned_report_read\nroles:\n  - name: admin\n    globalPermissions: [provisioned_report_read]\n',
        }));
        const granted = await app.database.db.selectFrom('auth_role_permissions')
            .innerJoin('auth_roles', 'auth_roles.id', 'auth_role_permissions.role_id')
            .innerJoin('auth_permissions', 'auth_permissions.id', 'auth_role_permissions.permission_id')
            .select('auth_role_permissions.realm_scope')
            .where('auth_roles.name', '=', 'admin').where('auth_permissions.name', '=', 'provisioned_report_read').execute();
        expect(granted).toHaveLength(1);
    });

    it('declares policies with their configuration and binds them to permissions; merging the same policy again changes nothing', async () => {
        const folder = await folderWith({
            'policies.yaml': [
                'realms:',
                '  - name: guarded',
                '    policies:',
                '      - name: same-realm',
                '        type: realmMatch',
                '        attributeName: [realmId]',
                '        strategy: merge',
                '    permissions:',
                '      - name: doc_read',
                '        realmPolicies: [same-realm]',
                '        globalPolicies: [system.default]',
                '',
            ].join('\n'),
        });
        expect(await provision(app.deps, folder)).toMatchObject({ created: 3, bound: 1 });
        const bound = await app.database.db.selectFrom('auth_permission_policies')
            .innerJoin('auth_permissions', 'auth_permissions.id', 'auth_permission_policies.permission_id')
            .innerJoin('auth_policies', 'auth_policies.id', 'auth_permission_policies.policy_id')
            .select('auth_policies.name').where('auth_permissions.name', '=', 'doc_read').execute();
        // system.default is bound by the permission service itself on create (so the file's binding finds it there)
        expect(bound.map((row) => row.name).sort()).toEqual(['same-realm', 'system.default']);
        const policy = await app.json<{ data: Array<{ attributeName: string[] }> }>({ method: 'GET', url: '/policies?filter[name]=same-realm' }, 200);
        expect(policy.data[0]?.attributeName).toEqual(['realmId']);
        const before = await snapshot(app);
        expect(await provision(app.deps, folder)).toEqual({ files: 1, created: 0, updated: 0, bound: 0 });
        expect(await snapshot(app)).toEqual(before);
    });

    it('secretHashed with a plaintext stores the hash; a bcrypt value is kept verbatim; both authenticate with the plaintext', async () => {
        const hash = await app.deps.passwords.hash('verbatim-secret');
        await provision(app.deps, await folderWith({
            'clients.json': JSON.stringify({
                realms: [{
                    name: 'secrets',
                    clients: [
                        { name: 'hashed', secret: 'plain-secret', secretHashed: true, grantTypes: ['client_credentials'] },
                        { name: 'verbatim', secret: hash, secretHashed: true, grantTypes: ['client_credentials'], scope: 'dropped', rootUrl: 'dropped' },
                    ],
                }],
            }),
        }));
        const hashed = await client(app, 'secrets', 'hashed');
        expect(hashed.secret).toMatch(/^\$2[aby]\$/);
        expect(await app.deps.passwords.verify('plain-secret', hashed.secret!)).toBe(true);
        const verbatim = await client(app, 'secrets', 'verbatim');
        expect(verbatim.secret).toBe(hash);
        expect(Boolean(verbatim.secret_hashed)).toBe(true);
        expect(await clientCredentials(app, hashed.id, 'plain-secret')).toBe(200);
        expect(await clientCredentials(app, verbatim.id, 'verbatim-secret')).toBe(200);
        expect(await clientCredentials(app, verbatim.id, hash)).toBe(401);
    });

    it('finds a name written in another normalisation form, and two runs at once apply the set once (the provisioning lock)', async () => {
        const folder = await folderWith({ 'n.json': JSON.stringify({ realms: [{ name: 'locked', users: [{ name: 'jose\u0301', password: 'jose-password' }] }] }) });
        const [one, two] = await Promise.all([provision(app.deps, folder), provision(app.deps, folder)]);
        expect(one.created + two.created).toBe(2);
        const before = await snapshot(app);
        expect((await provision(app.deps, folder)).created).toBe(0);
        expect(await snapshot(app)).toEqual(before);
    });

    it('merge rotates a changed secret of a hashed client and leaves an unchanged one alone', async () => {
        const declare = (secret: string) => folderWith({
            'c.yaml': `realms:\n  - name: rotation\n    clients:\n      - name: worker\n        secret: ${secret}\n        secretHashed: true\n        grantTypes: [client_credentials]\n        strategy: merge\n`,
        });
        await provision(app.deps, await declare('first-secret'));
        const created = await client(app, 'rotation', 'worker');
        expect(await provision(app.deps, await declare('second-secret'))).toMatchObject({ updated: 1 });
        expect(await clientCredentials(app, created.id, 'second-secret')).toBe(200);
        expect(await clientCredentials(app, created.id, 'first-secret')).toBe(401);
        const rotated = await app.database.db.selectFrom('auth_events').select('id').where('name', '=', 'clientSecretRotated').where('ref_id', '=', created.id).execute();
        expect(rotated).toHaveLength(1);
        const before = await snapshot(app);
        expect(await provision(app.deps, await declare('second-secret'))).toMatchObject({ updated: 0 });
        expect(await snapshot(app)).toEqual(before);
    });

    it('refuses an invalid file with its name and path, writing nothing', async () => {
        const before = await snapshot(app);
        const folder = await folderWith({
            'a.yaml': 'realms:\n  - name: never-written-a\n',
            'b.yaml': 'realms:\n  - name: never-written-b\n    clients:\n      - name: a\n      - name: b\n        redirectUri: [https://app.example/cb]\n',
        });
        await expect(provision(app.deps, folder)).rejects.toThrow('provisioning/b.yaml: /realms/0/clients/1/redirectUri: must be string or null');
        expect(await snapshot(app)).toEqual(before);
    });

    it('applies nothing when an entry fails against the database: the whole set is one transaction', async () => {
        const before = await snapshot(app);
        const folder = await folderWith({
            '1-first.yaml': 'realms:\n  - name: atomic-one\n    users:\n      - name: carol\n        password: carol-password\n',
            '2-second.yaml': [
                'realms:',
                '  - name: atomic-two',
                '    roles:',
                '      - name: viewer',
                '    users:',
                '      - name: dave',
                '        realmRoles: [viewer]',
                '    clients:',
                '      - name: both-modes',
                '        secret: s3cret-value',
                '        secretHashed: true',
                '        secretEncrypted: true',
                '',
            ].join('\n'),
        });
        await expect(provision(app.deps, folder)).rejects.toThrow('provisioning/2-second.yaml: /realms/0/clients/0/secretEncrypted: secretHashed and secretEncrypted cannot both be true');
        expect(await snapshot(app)).toEqual(before);
        expect(await realmId(app, 'atomic-one')).toBeUndefined();

        const unknownRole = await folderWith({ 'r.yaml': 'realms:\n  - name: atomic-three\n    users:\n      - name: erin\n        realmRoles: [missing]\n' });
        await expect(provision(app.deps, unknownRole)).rejects.toThrow('provisioning/r.yaml: /realms/0/users/0/realmRoles/0: names no role "missing" in this realm');
        expect(await snapshot(app)).toEqual(before);
    });
});

describeEachDialect('provisioning at boot and by the CLI', (dialect) => {
    afterEach(() => {
        vi.unstubAllEnvs();
        vi.restoreAllMocks();
    });

    it('the boot applies WRITABLE_DIRECTORY_PATH/provisioning and refuses a bad file before serving', async () => {
        const folder = await folderWith({
            'realm.yaml': 'realms:\n  - name: booted\n    users:\n      - name: frank\n        password: frank-password\n',
            'example.yaml': await readFile(EXAMPLE, 'utf8'),
            'reactivate-admin.yaml': await readFile(REACTIVATE_ADMIN, 'utf8'),
        });
        // USER_ADMIN_ENABLED=false deactivates the admin at bootstrap; the reactivation example's merge
        // on `active` reactivates it in the same start (spec States)
        const app = await startTestApp(dialect, { writableDirectoryPath: join(folder, '..'), userAdmin: { enabled: false } });
        try {
            expect(await realmId(app, 'booted')).toBeDefined();
            expect(await realmId(app, 'acme')).toBeDefined();
            expect((await app.request({ method: 'GET', url: '/realms' })).statusCode).toBe(200);
            const token = await app.request({ method: 'POST', url: '/token', payload: { grant_type: 'password', username: 'frank', password: 'frank-password', realm_id: await realmId(app, 'booted') }, as: null });
            expect(token.statusCode, token.body).toBe(200);
        } finally {
            await app.dispose();
        }
        const bad = await folderWith({ 'bad.yaml': 'realms:\n  - name: booted\n    users: nobody\n' });
        await expect(startTestApp(dialect, { writableDirectoryPath: join(bad, '..') })).rejects.toThrow('provisioning/bad.yaml: /realms/0/users: must be array');
    });

    it('`realmgate provision <path>` applies a file and, run again, changes nothing', async () => {
        const folder = await folderWith({});
        const writable = join(folder, '..');
        const database = dialect === 'sqlite' ? undefined : await createTestDatabase(dialect);
        try {
            vi.stubEnv('WRITABLE_DIRECTORY_PATH', writable);
            vi.stubEnv('DB_TYPE', dialect);
            if (database) vi.stubEnv('DB_URL', database.location);
            const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
            await runCli(['provision', EXAMPLE]);
            expect(log).toHaveBeenLastCalledWith('Applied 1 file(s): 7 created, 0 updated, 5 bindings added.');
            await runCli(['provision', EXAMPLE]);
            expect(log).toHaveBeenLastCalledWith('Applied 1 file(s): 0 created, 0 updated, 0 bindings added.');
        } finally {
            await database?.drop();
        }
    });
});
