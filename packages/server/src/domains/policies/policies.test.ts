import { beforeAll, expect, it } from 'vitest';
import { useTestApp } from '../../../test/app.js';
import { describeEachDialect } from '../../../test/databases.js';
import { countRows, createPermission, createRealm, globalId, uniqueName } from '../../../test/grant-fixtures.js';

type Body = { data: Record<string, unknown>; meta: Record<string, unknown> };
type ErrorBody = { statusCode: number; code: string; issues?: { path: (string | number)[]; code: string }[] };

describeEachDialect('policies', (dialect) => {
    const app = useTestApp(dialect);
    let realmA: string;
    let realmB: string;

    beforeAll(async () => {
        realmA = await createRealm(app);
        realmB = await createRealm(app);
    });

    const create = (payload: Record<string, unknown>) => app.request({ method: 'POST', url: '/policies', payload });
    const created = async (payload: Record<string, unknown>) => {
        const response = await create(payload);
        expect(response.statusCode, response.body).toBe(201);
        return (response.json() as Body).data;
    };
    const storedConfig = async (id: string) => {
        const row = await app.deps.db.selectFrom('auth_policies').select('config').where('id', '=', id).executeTakeFirstOrThrow();
        return JSON.parse(row.config) as Record<string, unknown>;
    };

    it('creates a policy with its configuration at the top level and stores the canonical configuration', async () => {
        const policy = await created({ type: 'attributeNames', name: uniqueName('names'), names: 'email', realmId: realmA });
        expect(policy).toMatchObject({ type: 'attributeNames', invert: false, names: ['email'], realmId: realmA, parentId: null, builtIn: false });
        // the validator's canonical output, without type/invert/children and without any entity column
        expect(await storedConfig(policy.id as string)).toEqual({ names: ['email'] });

        const read = await app.json<Body>({ url: `/policies/${policy.id}` }, 200);
        expect(read.data).toMatchObject({ id: policy.id, names: ['email'] });
        const composite = await created({ type: 'composite', name: uniqueName('composite'), invert: true, realmId: realmA });
        expect(await storedConfig(composite.id as string)).toEqual({ decisionStrategy: 'unanimous' });
        expect(composite).toMatchObject({ decisionStrategy: 'unanimous', invert: true, realmId: realmA });
    });

    it('refuses an attributes policy with $regex (spec Errors) and keeps the database unchanged', async () => {
        const before = await countRows(app, 'auth_policies');
        const response = await create({ type: 'attributes', name: uniqueName('regex'), query: { name: { $regex: '^a' } } });
        expect(response.statusCode).toBe(400);
        const body = response.json() as ErrorBody;
        expect(body.code).toBe('bad_request');
        expect(body.issues?.[0]?.path[0]).toBe('query');
        expect(await countRows(app, 'auth_policies')).toBe(before);
        // $startsWith is accepted
        await created({ type: 'attributes', name: uniqueName('prefix'), query: { name: { $startsWith: 'a' } } });
    });

    it('refuses an unknown type, unknown configuration keys and members no body may carry', async () => {
        const before = await countRows(app, 'auth_policies');
        const unknownType = await create({ type: 'nope', name: uniqueName('x') });
        expect(unknownType.statusCode).toBe(400);
        expect((unknownType.json() as ErrorBody).issues).toEqual([expect.objectContaining({ path: ['type'], code: 'unknown_policy_type' })]);
        const withheld = await create({ type: '$withheld', name: uniqueName('x') });
        expect(withheld.statusCode).toBe(400);
        const unknownKey = await create({ type: 'identity', name: uniqueName('x'), tpyes: ['user'] });
        expect(unknownKey.statusCode).toBe(400);
        expect((unknownKey.json() as ErrorBody).issues).toEqual([expect.objectContaining({ path: ['tpyes'], code: 'unknown_member' })]);
        for (const member of ['builtIn', 'children', 'config', 'id', 'createdAt']) {
            const response = await create({ type: 'composite', name: uniqueName('x'), [member]: member === 'children' ? [] : 'x' });
            expect(response.statusCode, member).toBe(400);
            expect((response.json() as ErrorBody).issues?.[0]?.path, member).toEqual([member]);
        }
        expect(await countRows(app, 'auth_policies')).toBe(before);
    });

    it('answers 400 with issues for missing, wrong-typed and oversized members', async () => {
        const before = await countRows(app, 'auth_policies');
        const cases: Record<string, unknown>[] = [
            { name: uniqueName('no-type') },
            { type: 'identity' },
            { type: 'identity', name: 42 },
            { type: 12, name: uniqueName('x') },
            { type: 'identity', name: uniqueName('x'), invert: 'yes' },
            { type: 'identity', name: 'x'.repeat(256) },
            { type: 'identity', name: uniqueName('x'), parentId: 'not-a-uuid' },
            { type: 'attributeNames', name: uniqueName('x'), names: Array.from({ length: 5000 }, (_, i) => `attribute-name-${i}-${'y'.repeat(10)}`) },
            { type: 'identity', name: uniqueName('x'), realmId: 'nope' },
        ];
        for (const payload of cases) {
            const response = await create(payload);
            expect(response.statusCode, JSON.stringify(payload).slice(0, 80)).toBe(400);
            expect((response.json() as ErrorBody).issues?.length).toBeGreaterThan(0);
        }
        const id = (await created({ type: 'identity', name: uniqueName('upd') })).id as string;
        for (const payload of [{ name: 7 }, { invert: 1 }, { types: ['robot'] }, { unknownKey: true }, { builtIn: true }]) {
            const response = await app.request({ method: 'POST', url: `/policies/${id}`, payload });
            expect(response.statusCode, JSON.stringify(payload)).toBe(400);
            expect((response.json() as ErrorBody).issues?.length).toBeGreaterThan(0);
        }
        expect(await storedConfig(id)).toEqual({});
        expect(await countRows(app, 'auth_policies')).toBe(before + 1);
    });

    it('merges configuration updates, starts clean on a type change and projects the result into the catalog', async () => {
        const policy = await created({ type: 'identity', name: uniqueName('id'), types: ['user'] });
        const id = policy.id as string;
        const updated = await app.json<Body>({ method: 'POST', url: `/policies/${id}`, payload: { displayName: 'Users only' } }, 200);
        expect(updated.data).toMatchObject({ types: ['user'], displayName: 'Users only' });
        const retyped = await app.json<Body>({ method: 'POST', url: `/policies/${id}`, payload: { type: 'attributeNames', names: ['a'] } }, 200);
        expect(retyped.data).toMatchObject({ type: 'attributeNames', names: ['a'] });
        expect(retyped.data.types).toBeUndefined();
        expect(await storedConfig(id)).toEqual({ names: ['a'] });
        const catalog = await app.deps.catalog.get();
        expect(catalog.policies[id]).toEqual({ type: 'attributeNames', invert: false, names: ['a'] });
    });

    it('keeps built-in policies: no delete, no type change, configuration only', async () => {
        const id = await globalId(app, 'auth_policies', 'system.default');
        expect((await app.request({ method: 'DELETE', url: `/policies/${id}` })).statusCode).toBe(400);
        expect((await app.request({ method: 'POST', url: `/policies/${id}`, payload: { type: 'identity' } })).statusCode).toBe(400);
        expect((await app.request({ method: 'POST', url: `/policies/${id}`, payload: { name: 'renamed' } })).statusCode).toBe(400);
        const child = await globalId(app, 'auth_policies', 'system.default.identity');
        expect((await app.request({ method: 'DELETE', url: `/policies/${child}` })).statusCode).toBe(400);
        expect((await app.json<Body>({ url: `/policies/${id}` }, 200)).data).toMatchObject({ builtIn: true, decisionStrategy: 'unanimous' });
    });

    it('builds trees from child rows: parent rules and GET /policies/:id/expanded', async () => {
        const root = await created({ type: 'composite', name: uniqueName('root'), decisionStrategy: 'affirmative', realmId: null });
        const leaf = await created({ type: 'identity', name: uniqueName('leaf'), parentId: root.id, realmId: null });
        const inner = await created({ type: 'composite', name: uniqueName('inner'), parentId: root.id, realmId: null });
        const deep = await created({ type: 'date', name: uniqueName('deep'), parentId: inner.id, start: '2020-01-01', realmId: null });

        const expanded = await app.json<Body>({ url: `/policies/${root.id}/expanded` }, 200);
        expect(expanded.data).toMatchObject({ id: root.id, decisionStrategy: 'affirmative' });
        // siblings are ordered by creation; equal timestamps fall back to the id, so compare as a set
        const children = expanded.data.children as Record<string, unknown>[];
        expect(children).toHaveLength(2);
        expect(children.find((child) => child.id === leaf.id)).not.toHaveProperty('children');
        expect(children.find((child) => child.id === inner.id)).toMatchObject({
            type: 'composite', children: [{ id: deep.id, type: 'date', start: '2020-01-01' }],
        });
        const catalog = await app.deps.catalog.get();
        expect(catalog.policies[root.id as string]).toMatchObject({ type: 'composite', decisionStrategy: 'affirmative' });
        expect((catalog.policies[root.id as string]!.children ?? []).map((node) => node.type).sort()).toEqual(['composite', 'identity']);
        expect(catalog.policies[leaf.id as string]).toBeUndefined();

        const refused = async (payload: Record<string, unknown>, url = '/policies') => {
            const response = await app.request({ method: 'POST', url, payload });
            expect(response.statusCode, JSON.stringify(payload)).toBe(400);
            expect((response.json() as ErrorBody).issues?.[0]?.path).toEqual(['parentId']);
        };
        await refused({ type: 'identity', name: uniqueName('x'), parentId: leaf.id, realmId: null });
        await refused({ type: 'identity', name: uniqueName('x'), parentId: root.id, realmId: realmA });
        await refused({ type: 'identity', name: uniqueName('x'), parentId: '00000000-0000-4000-8000-000000000000', realmId: null });
        await refused({ parentId: inner.id }, `/policies/${root.id}`);
        await refused({ parentId: root.id }, `/policies/${root.id}`);
        await refused({ parentId: deep.id }, `/policies/${inner.id}`);
        const composite = await app.request({ method: 'POST', url: `/policies/${inner.id}`, payload: { type: 'identity' } });
        expect(composite.statusCode).toBe(400);

        // moving a subtree to another composite of the same realm
        const other = await created({ type: 'composite', name: uniqueName('other'), realmId: null });
        await app.json({ method: 'POST', url: `/policies/${inner.id}`, payload: { parentId: other.id } }, 200);
        const after = await app.json<Body>({ url: `/policies/${other.id}/expanded` }, 200);
        expect(after.data.children).toEqual([expect.objectContaining({ id: inner.id, children: [expect.objectContaining({ id: deep.id })] })]);
        // deleting the root removes its children with it
        await app.json({ method: 'DELETE', url: `/policies/${root.id}` }, 200);
        expect(await app.deps.db.selectFrom('auth_policies').select('id').where('id', '=', leaf.id as string).executeTakeFirst()).toBeUndefined();
    });

    it('refuses to delete, re-parent or move a policy while something names it (409)', async () => {
        const permission = await createPermission(app, realmB);
        const policy = await created({ type: 'identity', name: uniqueName('bound'), realmId: realmB });
        await app.json({ method: 'POST', url: '/permission-policies', payload: { permissionId: permission, policyId: policy.id } }, 201);
        expect((await app.request({ method: 'DELETE', url: `/policies/${policy.id}` })).statusCode).toBe(409);
        expect((await app.request({ method: 'POST', url: `/policies/${policy.id}`, payload: { realmId: realmA } })).statusCode).toBe(409);
        const parent = await created({ type: 'composite', name: uniqueName('parent'), realmId: realmB });
        expect((await app.request({ method: 'POST', url: `/policies/${policy.id}`, payload: { parentId: parent.id } })).statusCode).toBe(409);
        const names = await app.json<{ data: { name: string }[] }>({ url: `/policies?filter[realmId]=${realmB}` }, 200);
        expect(names.data.map((row) => row.name).sort()).toEqual([policy.name, parent.name].sort());
    });
});
