import { beforeAll, expect, it } from 'vitest';
import { useTestApp } from '../../../test/app.js';
import { describeEachDialect } from '../../../test/databases.js';
import { countRows, createRealm, globalId, insertClient, insertRole, insertUser } from '../../../test/grant-fixtures.js';

type Table = Parameters<typeof countRows>[1];
type ErrorBody = { code: string; issues?: { path: (string | number)[]; code: string }[] };

const HUGE = 'x'.repeat(20_000);

/*
 * Bad input on every junction create and update route (malformed input answers 400, never 500): missing, wrong-typed,
 * oversized and unknown members answer 400 with issues, and the database is unchanged afterwards.
 */
describeEachDialect('junction bad input', (dialect) => {
    const app = useTestApp(dialect);
    let valid: Record<string, Record<string, unknown>>;
    const tables: Record<string, Table> = {
        'role-permissions': 'auth_role_permissions',
        'user-permissions': 'auth_user_permissions',
        'client-permissions': 'auth_client_permissions',
        'user-roles': 'auth_user_roles',
        'client-roles': 'auth_client_roles',
        'client-scopes': 'auth_client_scopes',
    };

    beforeAll(async () => {
        const realmId = await createRealm(app);
        const user = (await insertUser(app, realmId)).id;
        const client = await insertClient(app, realmId);
        const role = await insertRole(app, realmId);
        const permissionId = await globalId(app, 'auth_permissions', 'scope_read');
        valid = {
            'role-permissions': { roleId: role, permissionId },
            'user-permissions': { userId: user, permissionId },
            'client-permissions': { clientId: client, permissionId },
            'user-roles': { userId: user, roleId: role },
            'client-roles': { clientId: client, roleId: role },
            'client-scopes': { clientId: client, scopeId: await globalId(app, 'auth_scopes', 'email') },
        };
    });

    /** Every body that must be refused, derived from a valid one. */
    function badBodies(body: Record<string, unknown>): Record<string, unknown>[] {
        const keys = Object.keys(body);
        const bodies: Record<string, unknown>[] = [{}, { ...body, unknownMember: 1 }, { ...body, id: '00000000-0000-4000-8000-000000000000' }];
        for (const key of keys) {
            const { [key]: _omitted, ...missing } = body;
            bodies.push(missing, { ...body, [key]: 42 }, { ...body, [key]: null }, { ...body, [key]: HUGE }, { ...body, [key]: 'not-a-uuid' });
        }
        if ('permissionId' in body) {
            bodies.push({ ...body, realmScope: 'everywhere' }, { ...body, realmScope: 1 }, { ...body, policyId: 'nope' }, { ...body, policyId: HUGE });
        }
        if ('scopeId' in body) bodies.push({ ...body, default: 'yes' });
        return bodies;
    }

    it('refuses bad create bodies with issues and changes nothing', async () => {
        for (const [collection, body] of Object.entries(valid)) {
            const before = await countRows(app, tables[collection]!);
            for (const payload of badBodies(body)) {
                const response = await app.request({ method: 'POST', url: `/${collection}`, payload });
                const label = `${collection} ${JSON.stringify(payload).slice(0, 120)}`;
                expect(response.statusCode, label).toBe(400);
                expect((response.json() as ErrorBody).issues?.length, label).toBeGreaterThan(0);
            }
            expect(await countRows(app, tables[collection]!), collection).toBe(before);
        }
    });

    it('refuses bad update bodies with issues and changes nothing', async () => {
        for (const [collection, body] of Object.entries(valid)) {
            const created = await app.json<{ data: Record<string, unknown> }>({ method: 'POST', url: `/${collection}`, payload: body }, 201);
            const id = created.data.id as string;
            const bodies: Record<string, unknown>[] = [{ unknownMember: true }, ...Object.keys(body).map((key) => ({ [key]: body[key] }))];
            if ('permissionId' in body) bodies.push({ realmScope: 'everywhere' }, { realmScope: null }, { policyId: 5 });
            if ('scopeId' in body) bodies.push({ default: 'yes' }, { default: null });
            for (const payload of bodies) {
                const response = await app.request({ method: 'POST', url: `/${collection}/${id}`, payload });
                const label = `${collection} ${JSON.stringify(payload)}`;
                expect(response.statusCode, label).toBe(400);
                expect((response.json() as ErrorBody).issues?.length, label).toBeGreaterThan(0);
            }
            const after = await app.json<{ data: Record<string, unknown> }>({ url: `/${collection}/${id}` }, 200);
            expect(after.data, collection).toEqual(created.data);
        }
    });
});
