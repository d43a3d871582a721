import { RealmScope } from '@realmgate/core';
import { beforeAll, expect, it } from 'vitest';
import { useTestApp } from '../app.js';
import { createActor, createRealm } from '../actors.js';
import { accessToken, bearer, grant, insertPermission, insertPolicy, permissionIdOf, systemDefaultId, unique } from '../check-fixtures.js';
import { describeEachDialect } from '../databases.js';
import { createClient, createUser } from '../identities.js';

type Result = { status: 'allow' | 'deny' | 'error'; message?: string };

const HOUR = 3_600_000;

describeEachDialect('POST /permissions/:id/check and POST /policies/:id/check', (dialect) => {
    const app = useTestApp(dialect);
    let realmA: string;
    let realmB: string;
    let userRead: string;
    let systemDefault: string;
    beforeAll(async () => {
        realmA = await createRealm(app, unique('check-a').replace(/_/g, '-'));
        realmB = await createRealm(app, unique('check-b').replace(/_/g, '-'));
        userRead = await permissionIdOf(app, 'user_read');
        systemDefault = await systemDefaultId(app);
    });

    const checkPermission = (id: string, payload: unknown, as: string | null) =>
        app.request({ method: 'POST', url: `/permissions/${id}/check`, payload: payload as Record<string, unknown>, as });
    const checkPolicy = (id: string, payload: unknown, as: string | null) =>
        app.request({ method: 'POST', url: `/policies/${id}/check`, payload: payload as Record<string, unknown>, as });
    const resultOf = async (response: Awaited<ReturnType<typeof checkPermission>>): Promise<Result> => {
        expect(response.statusCode, response.body).toBe(200);
        expect(response.headers['cache-control']).toBe('private, no-cache');
        return response.json() as Result;
    };
    const openWindow = () => ({ start: new Date(Date.now() - HOUR).toISOString(), end: new Date(Date.now() + HOUR).toISOString() });

    it('check rule 1: without identity the check is about the caller; a bearer without scope global is evaluated without identity', async () => {
        const holder = await createActor(app, realmA, [{ permission: 'user_read', scope: RealmScope.OWN }]);
        const other = await createActor(app, realmA, []);
        expect(await resultOf(await checkPermission(userRead, {}, holder.header))).toEqual({ status: 'allow' });
        expect(await resultOf(await checkPermission(userRead, undefined, holder.header))).toEqual({ status: 'allow' });
        expect((await resultOf(await checkPermission(userRead, {}, other.header))).status).toBe('deny');
        // an anonymous caller is checked as nobody: system.default needs an identity
        expect((await resultOf(await checkPermission(userRead, {}, null))).status).toBe('error');

        const web = await createClient(app, realmA);
        const narrow = await accessToken(app, {
            grant_type: 'password', username: holder.name, password: 'secret-password', realm_id: realmA, client_id: web.id, client_secret: web.secret, scope: 'openid',
        });
        const withheld = await resultOf(await checkPermission(userRead, {}, bearer(narrow)));
        expect(withheld.status).toBe('error');
        expect(withheld.message).toMatch(/identity/);
        const global = await accessToken(app, { grant_type: 'password', username: holder.name, password: 'secret-password', realm_id: realmA });
        expect((await resultOf(await checkPermission(userRead, {}, bearer(global)))).status).toBe('allow');
    });

    it('check rule 2: with identity null the check runs with no identity (status error when one is needed)', async () => {
        const holder = await createActor(app, realmA, [{ permission: 'user_read', scope: RealmScope.OWN }]);
        expect(await resultOf(await checkPermission(userRead, { identity: null }, holder.header))).toEqual({
            status: 'error', message: expect.any(String),
        });
        // a permission whose policies need no identity passes for nobody
        const window = await insertPolicy(app, 'date', openWindow());
        const timed = await insertPermission(app, { policies: [window] });
        expect(await resultOf(await checkPermission(timed.id, { identity: null }, holder.header))).toEqual({ status: 'allow' });
        const unrestricted = await insertPermission(app);
        expect(await resultOf(await checkPermission(unrestricted.id, { identity: null }, null))).toEqual({ status: 'allow' });
        // and the same for the policy route
        expect((await resultOf(await checkPolicy(systemDefault, { identity: null }, holder.header))).status).toBe('error');
        expect((await resultOf(await checkPolicy(window, { identity: null }, holder.header))).status).toBe('allow');
    });

    it('check rule 3: naming oneself needs nothing more; anyone else needs permission_check reaching the subject\'s stored realm', async () => {
        const plain = await createActor(app, realmA, [{ permission: 'user_read', scope: RealmScope.OWN }]);
        const self = { type: 'user', id: plain.userId };
        expect((await resultOf(await checkPermission(userRead, { identity: self }, plain.header))).status).toBe('allow');
        expect((await resultOf(await checkPolicy(systemDefault, { identity: self }, plain.header))).status).toBe('deny');

        const colleague = await createActor(app, realmA, [{ permission: 'user_read', scope: RealmScope.OWN }]);
        const theColleague = { type: 'user', id: colleague.userId };
        expect((await checkPermission(userRead, { identity: theColleague }, plain.header)).statusCode).toBe(403);
        expect((await checkPolicy(systemDefault, { identity: theColleague }, plain.header)).statusCode).toBe(403);

        const checker = await createActor(app, realmA, [{ permission: 'permission_check', scope: RealmScope.OWN }]);
        expect((await resultOf(await checkPermission(userRead, { identity: theColleague }, checker.header))).status).toBe('allow');
        // the subject is evaluated as itself, not as the checker: the checker lacks user_read
        expect((await resultOf(await checkPermission(userRead, {}, checker.header))).status).toBe('deny');

        // a subject stored in realm B is out of an own-reach grant; a realmId in the body does not count
        const foreign = await createActor(app, realmB, [{ permission: 'user_read', scope: RealmScope.OWN }]);
        const theForeigner = { type: 'user', id: foreign.userId };
        expect((await checkPermission(userRead, { identity: theForeigner }, checker.header)).statusCode).toBe(403);
        expect((await checkPermission(userRead, { identity: theForeigner, realmId: realmA }, checker.header)).statusCode).toBe(403);
        const wide = await createActor(app, realmA, [{ permission: 'permission_check', scope: RealmScope.ANY }]);
        expect((await resultOf(await checkPermission(userRead, { identity: theForeigner }, wide.header))).status).toBe('allow');
        // the body realmId names the resource realm the check is about
        expect((await resultOf(await checkPermission(userRead, { identity: theForeigner, realmId: realmA }, wide.header))).status).toBe('deny');

        // a token without scope global needs the grant even for its own identity
        const web = await createClient(app, realmA);
        const narrow = await accessToken(app, {
            grant_type: 'password', username: plain.name, password: 'secret-password', realm_id: realmA, client_id: web.id, client_secret: web.secret, scope: 'openid',
        });
        expect((await checkPermission(userRead, { identity: self }, bearer(narrow))).statusCode).toBe(403);
        const global = await accessToken(app, { grant_type: 'password', username: plain.name, password: 'secret-password', realm_id: realmA });
        expect((await resultOf(await checkPermission(userRead, { identity: self }, bearer(global)))).status).toBe('allow');
    });

    it('check rule 4: 403 without the grant, 404 for an unknown subject (or permission), 400 for a malformed identity', async () => {
        const checker = await createActor(app, realmA, [{ permission: 'permission_check', scope: RealmScope.OWN }]);
        const plain = await createActor(app, realmA, []);
        const unknown = { type: 'client', id: '00000000-0000-4000-8000-000000000001' };
        expect((await checkPermission(userRead, { identity: unknown }, checker.header)).statusCode).toBe(404);
        // without permission_check an unknown subject is a 403 like a known one: no existence oracle
        expect((await checkPermission(userRead, { identity: unknown }, plain.header)).statusCode).toBe(403);
        expect((await checkPermission(userRead, { identity: unknown }, null)).statusCode).toBe(403);
        expect((await checkPermission('00000000-0000-4000-8000-000000000002', {}, checker.header)).statusCode).toBe(404);
        expect((await checkPermission('not-a-uuid', {}, checker.header)).statusCode).toBe(404);
        expect((await checkPolicy('00000000-0000-4000-8000-000000000003', {}, checker.header)).statusCode).toBe(404);

        const malformed: [unknown, (string | number)[][]][] = [
            [{ identity: { type: 'user', id: plain.name } }, [['identity', 'id']]],
            [{ identity: { type: 'robot', id: plain.userId } }, [['identity', 'type']]],
            [{ identity: { type: 'user' } }, [['identity', 'id']]],
            [{ identity: { type: 'user', id: plain.userId, realmId: realmA } }, [['identity', 'realmId']]],
            [{ identity: 'me' }, [['identity']]],
            [{ identity: null, realmId: 5, extra: true }, [['extra'], ['realmId']]],
            [[], [[]]],
        ];
        for (const [payload, paths] of malformed) {
            for (const response of [await checkPermission(userRead, payload, checker.header), await checkPolicy(systemDefault, payload, checker.header)]) {
                expect(response.statusCode, JSON.stringify(payload)).toBe(400);
                expect(response.json().issues.map((found: { path: unknown }) => found.path), JSON.stringify(payload)).toEqual(paths);
            }
        }
    });

    it('check rule 5: a realm- or client-scoped permission is evaluated as itself', async () => {
        const name = unique('docs_edit');
        const global = await insertPermission(app, { name, policies: [systemDefault] });
        const local = await insertPermission(app, { name, realmId: realmA, policies: [systemDefault] });
        const user = await createActor(app, realmA, []);
        await grant(app, { userId: user.userId }, local.id, RealmScope.OWN);
        expect((await resultOf(await checkPermission(local.id, {}, user.header))).status).toBe('allow');
        expect((await resultOf(await checkPermission(global.id, {}, user.header))).status).toBe('deny');

        const web = await createClient(app, realmA);
        const owned = await insertPermission(app, { name, realmId: realmA, clientId: web.id, policies: [systemDefault] });
        const member = await createUser(app, realmA);
        await grant(app, { userId: member.id }, owned.id, RealmScope.OWN);
        expect((await resultOf(await checkPermission(owned.id, {}, member.header))).status).toBe('allow');
        expect((await resultOf(await checkPermission(local.id, {}, member.header))).status).toBe('deny');
        // through another client's token the caller's grant of it is withheld (spec Authentication rule 8)
        const rival = await createClient(app, realmA);
        const viaRival = await accessToken(app, {
            grant_type: 'password', username: member.name, password: member.password, realm_id: realmA, client_id: rival.id, client_secret: rival.secret,
        });
        expect((await resultOf(await checkPermission(owned.id, {}, bearer(viaRival)))).status).toBe('deny');
        // a client subject is checked with its own grants
        const service = await createClient(app, realmA);
        await grant(app, { clientId: service.id }, owned.id, RealmScope.OWN);
        expect((await resultOf(await checkPermission(owned.id, {}, service.header))).status).toBe('allow');
    });

    it('keeps realms apart: a foreign-realm caller checks only itself, and its grants do not reach another realm', async () => {
        const foreign = await createActor(app, realmB, [
            { permission: 'user_read', scope: RealmScope.OWN },
            { permission: 'permission_check', scope: RealmScope.OWN },
        ]);
        const insider = await createActor(app, realmA, [{ permission: 'user_read', scope: RealmScope.OWN }]);
        expect((await checkPermission(userRead, { identity: { type: 'user', id: insider.userId } }, foreign.header)).statusCode).toBe(403);
        expect((await resultOf(await checkPermission(userRead, { realmId: realmA }, foreign.header))).status).toBe('deny');
        expect((await resultOf(await checkPermission(userRead, {}, foreign.header))).status).toBe('allow');
        // another realm's permission is outside the foreign caller's read reach: 404, as an unknown id
        const local = await insertPermission(app, { realmId: realmA, policies: [systemDefault] });
        expect((await checkPermission(local.id, {}, foreign.header)).statusCode).toBe(404);
    });

    it('is no anonymous oracle: another realm\'s permission or policy id answers 404, identical to an unknown id', async () => {
        const permission = (await insertPermission(app, { realmId: realmA, policies: [systemDefault] })).id;
        const policy = await insertPolicy(app, 'realmMatch', {}, realmA);
        const unknown = '00000000-0000-4000-8000-000000000000';
        const foreign = await createActor(app, realmB, [{ permission: 'user_read', scope: RealmScope.OWN }]);
        const insider = await createActor(app, realmA, []);
        const reader = await createActor(app, realmB, [
            { permission: 'permission_read', scope: RealmScope.ANY }, { permission: 'policy_read', scope: RealmScope.ANY },
        ]);
        for (const [check, id] of [[checkPermission, permission], [checkPolicy, policy]] as const) {
            for (const [who, as] of [['anonymous', null], ['a foreign-realm caller', foreign.header]] as const) {
                for (const payload of [{}, { identity: null }, { identity: null, realmId: realmA }]) {
                    const known = await check(id, payload, as);
                    const absent = await check(unknown, payload, as);
                    expect(known.statusCode, `${who} ${known.body}`).toBe(404);
                    expect(known.body, who).toBe(absent.body);
                }
            }
            // the caller's own realm, and a read grant reaching the realm, still check
            expect((await resultOf(await check(id, { identity: null, realmId: realmA }, insider.header))).status).toMatch(/allow|deny|error/);
            expect((await resultOf(await check(id, { identity: null, realmId: realmA }, reader.header))).status).toMatch(/allow|deny|error/);
        }
        // a global row stays checkable by anyone (spec: the routes work without credentials)
        expect((await resultOf(await checkPermission(userRead, {}, null))).status).toBe('error');
    });

    it('does not collide with the resource routes: POST /permissions/:id still updates, GET /policies/:id still reads', async () => {
        const created = await app.json<{ data: { id: string } }>({ method: 'POST', url: '/permissions', payload: { name: unique('routed'), realmId: null } }, 201);
        const updated = await app.json<{ data: { description: string } }>({ method: 'POST', url: `/permissions/${created.data.id}`, payload: { description: 'still the update verb' } }, 200);
        expect(updated.data.description).toBe('still the update verb');
        // admin holds the provisioned permissions, not one created a moment ago
        expect((await resultOf(await checkPermission(created.data.id, {}, app.basic('admin', 'start123')))).status).toBe('deny');
        expect((await resultOf(await checkPermission(userRead, {}, app.basic('admin', 'start123')))).status).toBe('allow');
        expect((await app.request({ method: 'GET', url: `/policies/${systemDefault}` })).statusCode).toBe(200);
    });
});
