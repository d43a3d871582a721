import { createAuthorizationCheckEvaluator } from '@realmgate/access';
import { PermissionName, RealmScope } from '@realmgate/core';
import { beforeAll, expect, it } from 'vitest';
import { useTestApp } from '../app.js';
import { createActor, createRealm } from '../actors.js';
import { accessToken, bearer, grant, insertPermission, insertPolicy, permissionIdOf, systemDefaultId, unique } from '../check-fixtures.js';
import { describeEachDialect } from '../databases.js';
import { createClient, createUser } from '../identities.js';

type Entry = { name: string; realms: (string | null)[] };

const HOUR = 3_600_000;

describeEachDialect('POST /authorization/check (batch check)', (dialect) => {
    const app = useTestApp(dialect);
    let realmA: string;
    let realmB: string;
    const realmAName = unique('realm-a').replace(/_/g, '-');
    beforeAll(async () => {
        realmA = await createRealm(app, realmAName);
        realmB = await createRealm(app, unique('realm-b').replace(/_/g, '-'));
    });

    const check = (payload: unknown, as: string | null) =>
        app.request({ method: 'POST', url: '/authorization/check', payload: payload as Record<string, unknown>, as });
    const answer = async (payload: unknown, as: string | null): Promise<Entry[]> => {
        const response = await check(payload, as);
        expect(response.statusCode, response.body).toBe(200);
        return response.json() as Entry[];
    };
    const maxAgeOf = (cacheControl: unknown): number | null => {
        const match = /max-age=(\d+)/.exec(String(cacheControl));
        return match ? Number(match[1]) : null;
    };
    /** a window open now whose boundaries sit an hour either side, so no test depends on when it runs */
    const openWindow = () => ({ start: new Date(Date.now() - HOUR).toISOString(), end: new Date(Date.now() + HOUR).toISOString() });

    it('batch-check rule 1: a caller without an identity is answered as identity-less (no 401); on a default deployment the answer is empty', async () => {
        // every provisioned permission is bound to system.default, which needs an identity
        const builtIn = Object.values(PermissionName);
        const response = await check({ names: builtIn }, null);
        expect(response.statusCode).toBe(200);
        expect(response.json()).toEqual([]);
        expect(response.headers['cache-control']).toBe('private, no-cache');
        // no body at all checks every definition (other tests may have added unrestricted ones)
        const bare = await app.request({ method: 'POST', url: '/authorization/check', as: null });
        expect(bare.statusCode).toBe(200);
        expect((bare.json() as Entry[]).filter((entry) => (builtIn as string[]).includes(entry.name))).toEqual([]);
        // a definition whose policies need no identity passes for it, at the global rows its selector resolves to
        const open = await insertPermission(app);
        expect(await answer({ names: [open.name, 'user_read'] }, null)).toEqual([{ name: open.name, realms: [null] }]);
        // a wrong credential is still refused: identity-optional is not credential-optional
        expect((await check({}, app.basic('nobody', 'wrong'))).statusCode).toBe(401);
    });

    it('batch-check rule 2: a permission that reaches none of the requested realms is absent, so absent means denied', async () => {
        const actor = await createActor(app, realmA, [{ permission: 'user_read', scope: RealmScope.OWN }]);
        const entries = await answer({ names: ['user_read', 'user_create', 'no_such_permission'], realms: [realmA] }, actor.header);
        expect(entries).toEqual([{ name: 'user_read', realms: [realmA] }]);
        const gate = createAuthorizationCheckEvaluator(entries);
        expect(gate.has('user_read', realmA)).toBe(true);
        expect(gate.has('user_create')).toBe(false);
        // without names every definition is checked; beyond what any caller gets (unrestricted
        // definitions other tests add), only what the actor holds
        const all = await answer({ realms: 'own' }, actor.header);
        const baseline = await answer({ realms: 'own' }, (await createActor(app, realmA, [])).header);
        expect(all.filter((entry) => !baseline.some((other) => other.name === entry.name))).toEqual([{ name: 'user_read', realms: [realmA] }]);
    });

    it('batch-check rule 3: a symbolic selector resolves against the caller (own; ownOrNull, the default)', async () => {
        const actor = await createActor(app, realmA, [
            { permission: 'role_read', scope: RealmScope.OWN_OR_NULL },
            { permission: 'scope_read', scope: RealmScope.OWN },
        ]);
        const names = ['role_read', 'scope_read'];
        expect(await answer({ names, realms: 'own' }, actor.header)).toEqual([
            { name: 'role_read', realms: [realmA] },
            { name: 'scope_read', realms: [realmA] },
        ]);
        const byDefault = await answer({ names }, actor.header);
        expect(byDefault).toEqual([
            { name: 'role_read', realms: [realmA, null] },
            { name: 'scope_read', realms: [realmA] },
        ]);
        expect(await answer({ names, realms: 'ownOrNull' }, actor.header)).toEqual(byDefault);
    });

    it('batch-check rule 4: an explicit list is echoed as sent, duplicates dropped keeping the first; no realm existence disclosed', async () => {
        const any = await createActor(app, realmA, [{ permission: 'client_read', scope: RealmScope.ANY }]);
        const unknownRealm = '00000000-0000-4000-8000-000000000000';
        expect(await answer({ names: ['client_read'], realms: [realmB, realmA, null, realmB] }, any.header))
            .toEqual([{ name: 'client_read', realms: [realmB, realmA, null] }]);
        // an unknown realm is evaluated like any other value: `any` reaches it, nothing says it does not exist
        expect(await answer({ names: ['client_read'], realms: [unknownRealm, realmB] }, any.header))
            .toEqual([{ name: 'client_read', realms: [unknownRealm, realmB] }]);
        // a realm named as sent is echoed as sent, not resolved to its id
        const own = await createActor(app, realmA, [{ permission: 'client_read', scope: RealmScope.OWN }]);
        expect(await answer({ names: ['client_read'], realms: [realmAName, realmA] }, own.header))
            .toEqual([{ name: 'client_read', realms: [realmAName, realmA] }]);
        // an existing foreign realm and an unknown one are answered alike
        expect(await answer({ names: ['client_read'], realms: [realmB] }, own.header)).toEqual([]);
        expect(await answer({ names: ['client_read'], realms: [unknownRealm] }, own.header)).toEqual([]);
    });

    it('batch-check rule 5: there is no realms value any', async () => {
        const response = await check({ realms: 'any' }, null);
        expect(response.statusCode).toBe(400);
        expect(response.json().issues).toEqual([expect.objectContaining({ path: ['realms'] })]);
    });

    it('batch-check rule 6: a realm the caller never asked about does not count — a grant reaching only another realm denies', async () => {
        const actor = await createActor(app, realmA, [{ permission: 'policy_read', scope: RealmScope.OWN }]);
        expect(await answer({ names: ['policy_read'], realms: [realmB] }, actor.header)).toEqual([]);
        expect(await answer({ names: ['policy_read'], realms: [null] }, actor.header)).toEqual([]);
        // a realm-match policy on the definition compares with the requested realm, never the caller's own
        const matcher = await insertPolicy(app, 'realmMatch', { scope: 'own' });
        const definition = await insertPermission(app, { policies: [matcher] });
        expect(await answer({ names: [definition.name], realms: [realmB] }, actor.header)).toEqual([]);
        expect(await answer({ names: [definition.name], realms: [realmB, realmA] }, actor.header)).toEqual([{ name: definition.name, realms: [realmA] }]);
    });

    it('batch-check rule 7: a bare name means in at least one requested realm, so a grant with realmScope none does not pass', async () => {
        const actor = await createActor(app, realmA, [{ permission: 'permission_read', scope: RealmScope.NONE }]);
        expect(await answer({ names: ['permission_read'] }, actor.header)).toEqual([]);
        expect(await answer({ names: ['permission_read'], realms: [realmA, realmB, null] }, actor.header)).toEqual([]);
    });

    it('batch-check rule 8: max-age only when a date or time policy could change a verdict for the caller, never for a permission it cannot hold', async () => {
        const window = await insertPolicy(app, 'date', openWindow());
        // a window beside system.default: only a holder's verdict can change with it
        const guarded = await insertPermission(app, { policies: [await systemDefaultId(app), window] });
        const holder = await createActor(app, realmA, []);
        await grant(app, { userId: holder.userId }, guarded.id, RealmScope.OWN);
        const outsider = await createActor(app, realmA, []);

        const held = await check({ names: [guarded.name] }, holder.header);
        expect(held.json()).toEqual([{ name: guarded.name, realms: [realmA] }]);
        const maxAge = maxAgeOf(held.headers['cache-control']);
        expect(held.headers['cache-control']).toMatch(/^private, no-cache, max-age=\d+$/);
        expect(maxAge).toBeGreaterThan(0);
        expect(maxAge).toBeLessThanOrEqual(HOUR / 1000 + 1);

        // the outsider holds no grant and system.default denies every grant-less caller: nothing disclosed
        const hidden = await check({ names: [guarded.name] }, outsider.header);
        expect(hidden.json()).toEqual([]);
        expect(hidden.headers['cache-control']).toBe('private, no-cache');
        expect((await check({ names: [guarded.name] }, null)).headers['cache-control']).toBe('private, no-cache');

        // a window alone decides for everyone, so it counts for a denied caller too
        const closedLater = await insertPolicy(app, 'date', { start: new Date(Date.now() + HOUR).toISOString(), end: new Date(Date.now() + 2 * HOUR).toISOString() });
        const opensLater = await insertPermission(app, { policies: [closedLater] });
        const pending = await check({ names: [opensLater.name] }, null);
        expect(pending.json()).toEqual([]);
        expect(maxAgeOf(pending.headers['cache-control'])).toBeGreaterThan(0);
        expect(maxAgeOf(pending.headers['cache-control'])).toBeLessThanOrEqual(HOUR / 1000 + 1);

        // a junction window on the caller's own grant counts; a permission not asked about does not
        const junctionWindow = await insertPolicy(app, 'date', openWindow());
        const plain = await insertPermission(app, { policies: [await systemDefaultId(app)] });
        await grant(app, { userId: outsider.userId }, plain.id, RealmScope.OWN, junctionWindow);
        const viaJunction = await check({ names: [plain.name] }, outsider.header);
        expect(viaJunction.json()).toEqual([{ name: plain.name, realms: [realmA] }]);
        expect(maxAgeOf(viaJunction.headers['cache-control'])).toBeGreaterThan(0);
        expect((await check({ names: ['user_read'] }, holder.header)).headers['cache-control']).toBe('private, no-cache');
    });

    it('batch-check rule 9: a grant restricted by a junction policy that needs a resource row passes here', async () => {
        const rowPolicy = await insertPolicy(app, 'attributes', { query: { name: 'only-this-row' } });
        const actor = await createActor(app, realmA, []);
        await grant(app, { userId: actor.userId }, await permissionIdOf(app, 'user_update'), RealmScope.OWN, rowPolicy);
        expect(await answer({ names: ['user_update'] }, actor.header)).toEqual([{ name: 'user_update', realms: [realmA] }]);
    });

    it('batch-check rule 10: a public client (no secret) gates through this route with its users\' tokens', async () => {
        const spa = await app.json<{ data: { id: string } }>({ method: 'POST', url: '/clients', payload: { name: unique('spa'), realmId: realmA } }, 201);
        const actor = await createActor(app, realmA, [{ permission: 'user_read', scope: RealmScope.OWN }]);
        const token = await accessToken(app, { grant_type: 'password', username: actor.name, password: 'secret-password', realm_id: realmA, client_id: spa.data.id });
        const gate = createAuthorizationCheckEvaluator(await answer({ names: ['user_read', 'user_delete'] }, bearer(token)));
        expect(gate.has('user_read', realmA)).toBe(true);
        expect(gate.has('user_delete')).toBe(false);
    });

    it('answers 400 with issues beyond the limits: 257 names, 5 realms; 256 names and 4 realms are fine', async () => {
        const names = Array.from({ length: 257 }, (_, i) => `name_${i}`);
        const tooMany = await check({ names }, null);
        expect(tooMany.statusCode).toBe(400);
        expect(tooMany.json().issues).toEqual([expect.objectContaining({ path: ['names'], code: 'invalid_maxItems' })]);
        expect((await check({ names: names.slice(0, 256) }, null)).statusCode).toBe(200);
        const realms = [realmA, realmB, null, 'x', 'y'];
        const fiveRealms = await check({ realms }, null);
        expect(fiveRealms.statusCode).toBe(400);
        expect(fiveRealms.json().issues).toEqual([expect.objectContaining({ path: ['realms'], code: 'invalid_maxItems' })]);
        expect((await check({ realms: realms.slice(0, 4) }, null)).statusCode).toBe(200);
    });

    it('answers 400 with an issue per finding for malformed bodies', async () => {
        const cases: [unknown, (string | number)[][]][] = [
            [{ names: 'user_read' }, [['names']]],
            [{ names: ['user_read', 5, ''] }, [['names', 1], ['names', 2]]],
            [{ names: ['x'.repeat(256)] }, [['names', 0]]],
            [{ realms: { id: realmA } }, [['realms']]],
            [{ realms: [realmA, 7, ''] }, [['realms', 1], ['realms', 2]]],
            [{ realm: 'own', names: 1 }, [['realm'], ['names']]],
            [[], [[]]],
        ];
        for (const [payload, paths] of cases) {
            const response = await check(payload, null);
            expect(response.statusCode, JSON.stringify(payload)).toBe(400);
            expect(response.json().issues.map((found: { path: unknown }) => found.path), JSON.stringify(payload)).toEqual(paths);
        }
        const text = await app.request({ method: 'POST', url: '/authorization/check', payload: 'names=x', headers: { 'content-type': 'application/x-www-form-urlencoded' }, as: null });
        expect(text.statusCode).toBe(400);
    });

    it('keeps realms apart: a foreign-realm caller learns nothing about another realm from its own grants', async () => {
        const foreign = await createActor(app, realmB, [
            { permission: 'user_read', scope: RealmScope.OWN },
            { permission: 'role_read', scope: RealmScope.OWN_OR_NULL },
        ]);
        expect(await answer({ names: ['user_read', 'role_read'], realms: [realmA] }, foreign.header)).toEqual([]);
        expect(await answer({ names: ['user_read', 'role_read'] }, foreign.header)).toEqual([
            { name: 'user_read', realms: [realmB] },
            { name: 'role_read', realms: [realmB, null] },
        ]);
        // a definition owned by realm A is evaluated as itself: a realm-B caller holds no grant of it
        const local = await insertPermission(app, { realmId: realmA, policies: [await systemDefaultId(app)] });
        expect(await answer({ names: [local.name], realms: [realmA, realmB, null] }, foreign.header)).toEqual([]);
        const insider = await createActor(app, realmA, []);
        await grant(app, { userId: insider.userId }, local.id, RealmScope.OWN);
        expect(await answer({ names: [local.name], realms: [realmA, realmB, null] }, insider.header)).toEqual([{ name: local.name, realms: [realmA] }]);
    });

    it('evaluates a bearer with scope global with its identity, one without it without identity data', async () => {
        const actor = await createActor(app, realmA, [{ permission: 'user_read', scope: RealmScope.OWN }]);
        const global = await accessToken(app, { grant_type: 'password', username: actor.name, password: 'secret-password', realm_id: realmA });
        expect(await answer({ names: ['user_read'] }, bearer(global))).toEqual([{ name: 'user_read', realms: [realmA] }]);

        const web = await createClient(app, realmA);
        const narrow = await accessToken(app, {
            grant_type: 'password', username: actor.name, password: 'secret-password', realm_id: realmA, client_id: web.id, client_secret: web.secret, scope: 'openid',
        });
        expect(await answer({ names: ['user_read'] }, bearer(narrow))).toEqual([]);
        // still the caller: its selector resolves to its own realm, and an identity-free definition passes there
        const open = await insertPermission(app);
        expect(await answer({ names: [open.name, 'user_read'] }, bearer(narrow))).toEqual([{ name: open.name, realms: [realmA, null] }]);
    });

    it('narrows a bearer issued to a client to grants that apply through that client (spec Authentication rule 8)', async () => {
        const web = await createClient(app, realmA);
        const rival = await createClient(app, realmA);
        const user = await createUser(app, realmA);
        const feature = await insertPermission(app, { realmId: realmA, clientId: web.id, policies: [await systemDefaultId(app)] });
        await grant(app, { userId: user.id }, feature.id, RealmScope.OWN);
        await grant(app, { userId: user.id }, await permissionIdOf(app, 'user_read'), RealmScope.OWN);
        const login = (client: { id: string; secret: string }) => accessToken(app, {
            grant_type: 'password', username: user.name, password: user.password, realm_id: realmA, client_id: client.id, client_secret: client.secret,
        });
        const names = [feature.name, 'user_read'];
        expect(await answer({ names }, bearer(await login(web)))).toEqual([
            { name: feature.name, realms: [realmA] },
            { name: 'user_read', realms: [realmA] },
        ]);
        expect(await answer({ names }, bearer(await login(rival)))).toEqual([{ name: 'user_read', realms: [realmA] }]);
        // Basic is not narrowed
        expect(await answer({ names }, user.header)).toHaveLength(2);
    });
});
