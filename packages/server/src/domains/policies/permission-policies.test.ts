import { beforeAll, expect, it } from 'vitest';
import { useTestApp } from '../../../test/app.js';
import { describeEachDialect } from '../../../test/databases.js';
import { countRows, createPermission, createRealm, globalId, uniqueName } from '../../../test/grant-fixtures.js';

type List = { data: Record<string, unknown>[]; meta: { total: number } };
type ErrorBody = { code: string; issues?: { path: (string | number)[] }[] };

describeEachDialect('permission-policies', (dialect) => {
    const app = useTestApp(dialect);
    let realmA: string;
    let realmB: string;

    beforeAll(async () => {
        realmA = await createRealm(app);
        realmB = await createRealm(app);
    });

    const policy = async (realmId: string | null, extra: Record<string, unknown> = {}) => {
        const body = await app.json<{ data: { id: string } }>({
            method: 'POST', url: '/policies', payload: { type: 'identity', name: uniqueName('policy'), realmId, ...extra },
        }, 201);
        return body.data.id;
    };
    const bind = (permissionId: string, policyId: string) => app.request({ method: 'POST', url: '/permission-policies', payload: { permissionId, policyId } });

    it('POST /permissions binds system.default to the created permission', async () => {
        const permission = await createPermission(app, realmA);
        const list = await app.json<List>({ url: `/permission-policies?filter[permissionId]=${permission}` }, 200);
        expect(list.meta.total).toBe(1);
        expect(list.data[0]).toMatchObject({ permissionId: permission, policyId: await globalId(app, 'auth_policies', 'system.default') });
    });

    it('accepts a global policy or one of the permission\'s own realm, and only a root (400 otherwise)', async () => {
        const permission = await createPermission(app, realmA);
        const before = await countRows(app, 'auth_permission_policies');
        const foreign = await bind(permission, await policy(realmB));
        expect(foreign.statusCode).toBe(400);
        expect((foreign.json() as ErrorBody).issues?.[0]?.path).toEqual(['policyId']);
        const root = await policy(null, { type: 'composite' });
        const child = await policy(null, { parentId: root });
        expect((await bind(permission, child)).statusCode).toBe(400);
        expect((await bind(permission, '00000000-0000-4000-8000-000000000000')).statusCode).toBe(400);
        expect(await countRows(app, 'auth_permission_policies')).toBe(before);

        expect((await bind(permission, root)).statusCode).toBe(201);
        expect((await bind(permission, await policy(realmA))).statusCode).toBe(201);
        // a global permission takes global policies only
        const globalPermission = await createPermission(app, null);
        expect((await bind(globalPermission, await policy(realmA))).statusCode).toBe(400);
    });

    it('answers 409 for a duplicate binding and removes a binding with DELETE', async () => {
        const permission = await createPermission(app, realmA);
        const policyId = await policy(realmA);
        const created = await bind(permission, policyId);
        expect(created.statusCode).toBe(201);
        expect((await bind(permission, policyId)).statusCode).toBe(409);
        const id = (created.json() as { data: { id: string } }).data.id;
        const catalogBefore = await app.deps.catalog.get();
        expect(catalogBefore.permissions.find((entry) => entry.realm_id === realmA && entry.policies?.includes(policyId))).toBeDefined();
        await app.json({ method: 'DELETE', url: `/permission-policies/${id}` }, 200);
        expect((await app.request({ url: `/permission-policies/${id}` })).statusCode).toBe(404);
        // the binding write invalidated the catalog: the definition no longer names the policy
        const catalogAfter = await app.deps.catalog.get();
        expect(catalogAfter.permissions.find((entry) => entry.policies?.includes(policyId))).toBeUndefined();
    });

    it('answers 400 with issues for missing, wrong-typed, oversized and unknown members, changing nothing', async () => {
        const permission = await createPermission(app, realmA);
        const policyId = await policy(realmA);
        const before = await countRows(app, 'auth_permission_policies');
        const cases: Record<string, unknown>[] = [
            {},
            { permissionId: permission },
            { policyId },
            { permissionId: 5, policyId },
            { permissionId: permission, policyId: 'x'.repeat(10_000) },
            { permissionId: permission, policyId, extra: true },
            { permissionId: permission, policyId, realmId: realmA },
        ];
        for (const payload of cases) {
            const response = await app.request({ method: 'POST', url: '/permission-policies', payload });
            expect(response.statusCode, JSON.stringify(payload).slice(0, 60)).toBe(400);
            expect((response.json() as ErrorBody).issues?.length).toBeGreaterThan(0);
        }
        const id = (await app.json<List>({ url: `/permission-policies?filter[permissionId]=${permission}` }, 200)).data[0]!.id as string;
        const update = await app.request({ method: 'POST', url: `/permission-policies/${id}`, payload: { policyId } });
        expect(update.statusCode).toBe(400);
        expect(await countRows(app, 'auth_permission_policies')).toBe(before);
    });
});
