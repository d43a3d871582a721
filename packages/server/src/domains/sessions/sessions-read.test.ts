import { PermissionName, RealmScope } from '@realmgate/core';
import { beforeAll, expect, it } from 'vitest';
import { createActor } from '../../../test/actors.js';
import { useTestApp } from '../../../test/app.js';
import { describeEachDialect } from '../../../test/databases.js';
import { createRealm } from '../../../test/grant-fixtures.js';
import { issuePaths, login, probe, type Login } from '../../../test/sessions.js';

type List = { data: Record<string, unknown>[]; meta: { total: number } };

describeEachDialect('sessions and session tokens: reads, realm isolation, DELETE /sessions/:id', (dialect) => {
    const app = useTestApp(dialect);
    let realmA: string;
    let realmB: string;
    let userA: Awaited<ReturnType<typeof createActor>>;
    let userB: Awaited<ReturnType<typeof createActor>>;
    let sessionA: Login;
    let sessionB: Login;
    beforeAll(async () => {
        realmA = await createRealm(app);
        realmB = await createRealm(app);
        userA = await createActor(app, realmA, []);
        userB = await createActor(app, realmB, []);
        sessionA = await login(app, realmA, userA.name, 'secret-password', {}, 'agent-a');
        sessionB = await login(app, realmB, userB.name, 'secret-password');
    });

    const ids = (list: List) => list.data.map((row) => row.id);

    it('lists sessions with their fields; createdAt is the authentication time, secrets of the login are absent', async () => {
        const list = await app.json<List>({ method: 'GET', url: `/sessions?filter[userId]=${userA.userId}` }, 200);
        expect(list.meta.total).toBe(1);
        const [row] = list.data;
        expect(row).toMatchObject({
            id: sessionA.sessionId, sub: userA.userId, subKind: 'user', userId: userA.userId, clientId: null, realmId: realmA,
            userAgent: 'agent-a', revokedAt: null, seenAt: expect.any(String), expiresAt: expect.any(String), createdAt: expect.any(String),
        });
        expect(Object.keys(row!).sort()).toEqual([
            'clientId', 'createdAt', 'expiresAt', 'id', 'ipAddress', 'realmId', 'revokedAt', 'seenAt', 'sub', 'subKind', 'updatedAt', 'userAgent', 'userId',
        ]);
        const single = await app.json<{ data: Record<string, unknown> }>({ method: 'GET', url: `/sessions/${sessionA.sessionId}` }, 200);
        expect(single.data).toEqual(row);
    });

    it('filters seenAt and createdAt by range only (equality answers 400) and revokedAt by null', async () => {
        const past = '2000-01-01T00:00:00Z';
        expect((await app.json<List>({ method: 'GET', url: `/sessions?filter[seenAt]=>${past}&filter[userId]=${userA.userId}` }, 200)).meta.total).toBe(1);
        expect((await app.json<List>({ method: 'GET', url: `/sessions?filter[seenAt]=<${past}` }, 200)).meta.total).toBe(0);
        expect((await app.json<List>({ method: 'GET', url: `/sessions?filter[createdAt]=>=${past}&filter[revokedAt]=null&filter[userId]=${userA.userId}` }, 200)).meta.total).toBe(1);
        for (const key of ['seenAt', 'createdAt']) {
            const response = await app.request({ method: 'GET', url: `/sessions?filter[${key}]=${past}` });
            expect(response.statusCode).toBe(400);
            expect(issuePaths(response.json())).toEqual([`filter.${key}`]);
        }
        // session tokens carry createdAt alone
        expect((await app.request({ method: 'GET', url: `/session-tokens?filter[updatedAt]=>${past}` })).statusCode).toBe(400);
        expect((await app.request({ method: 'GET', url: `/session-tokens?filter[createdAt]=${past}` })).statusCode).toBe(400);
    });

    it('gates lists and single reads by the reach of session_read (own, ownOrNull, any) for a foreign-realm caller', async () => {
        for (const scope of [RealmScope.OWN, RealmScope.OWN_OR_NULL]) {
            const reader = await createActor(app, realmB, [{ permission: PermissionName.SESSION_READ, scope }]);
            const list = await app.json<List>({ method: 'GET', url: '/sessions', as: reader.header }, 200);
            expect(list.data.every((row) => row.realmId === realmB)).toBe(true);
            expect(ids(list)).toContain(sessionB.sessionId);
            expect(list.meta.total).toBe(list.data.length);
            expect((await app.request({ method: 'GET', url: `/sessions/${sessionA.sessionId}`, as: reader.header })).statusCode).toBe(403);
            expect((await app.json<List>({ method: 'GET', url: `/realms/${realmA}/sessions`, as: reader.header }, 200)).meta.total).toBe(0);
        }
        const any = await createActor(app, realmB, [{ permission: PermissionName.SESSION_READ, scope: RealmScope.ANY }]);
        expect(ids(await app.json<List>({ method: 'GET', url: '/sessions', as: any.header }, 200))).toEqual(expect.arrayContaining([sessionA.sessionId, sessionB.sessionId]));
        expect((await app.request({ method: 'GET', url: `/sessions/${sessionA.sessionId}`, as: any.header })).statusCode).toBe(200);
        const none = await createActor(app, realmA, []);
        expect((await app.json<List>({ method: 'GET', url: '/sessions', as: none.header }, 200)).meta.total).toBe(0);
        expect((await app.request({ method: 'GET', url: `/sessions/${sessionA.sessionId}`, as: none.header })).statusCode).toBe(403);
    });

    it('a user without session_read reads its own sessions, list and single, and no one else\'s (the account console)', async () => {
        const mine = await login(app, realmA, userA.name, 'secret-password');
        const list = await app.json<List>({ method: 'GET', url: '/sessions?filter[revokedAt]=null&page[limit]=100', as: mine.bearer }, 200);
        expect(ids(list)).toEqual(expect.arrayContaining([sessionA.sessionId, mine.sessionId]));
        expect(list.data.every((row) => row.sub === userA.userId && row.subKind === 'user')).toBe(true);
        expect(list.meta.total).toBe(list.data.length);
        expect((await app.json<{ data: { id: string } }>({ method: 'GET', url: `/sessions/${sessionA.sessionId}`, as: mine.bearer }, 200)).data.id).toBe(sessionA.sessionId);
        // another realm's user: neither in its list nor readable one by one
        expect(ids(await app.json<List>({ method: 'GET', url: '/sessions?page[limit]=100', as: sessionB.bearer }, 200))).not.toContain(sessionA.sessionId);
        expect((await app.request({ method: 'GET', url: `/sessions/${sessionA.sessionId}`, as: sessionB.bearer })).statusCode).toBe(403);
        expect((await app.json<List>({ method: 'GET', url: `/realms/${realmB}/sessions`, as: mine.bearer }, 200)).meta.total).toBe(0);
    });

    it('gates session tokens by the realm of their session', async () => {
        const reader = await createActor(app, realmB, [{ permission: PermissionName.SESSION_TOKEN_READ, scope: RealmScope.OWN }]);
        const list = await app.json<List>({ method: 'GET', url: '/session-tokens', as: reader.header }, 200);
        expect(list.data.map((row) => row.sessionId)).toContain(sessionB.sessionId);
        expect(list.data.map((row) => row.sessionId)).not.toContain(sessionA.sessionId);
        const [tokenOfA] = (await app.json<List>({ method: 'GET', url: `/session-tokens?filter[sessionId]=${sessionA.sessionId}` }, 200)).data;
        expect(tokenOfA).toMatchObject({ kind: 'refresh_token', sessionId: sessionA.sessionId });
        expect(Object.keys(tokenOfA!).sort()).toEqual(['createdAt', 'expiresAt', 'id', 'kind', 'sessionId']);
        expect((await app.request({ method: 'GET', url: `/session-tokens/${tokenOfA!.id as string}`, as: reader.header })).statusCode).toBe(403);
        // a relation filter the caller may not read through is refused on a list (403)
        expect((await app.request({ method: 'GET', url: `/session-tokens?filter[session.userId]=${userA.userId}`, as: reader.header })).statusCode).toBe(403);
    });

    it('reads the current session at @me (bearer) and refuses @me without one (Basic)', async () => {
        const me = await app.json<{ data: { id: string } }>({ method: 'GET', url: '/sessions/@me', as: sessionB.bearer }, 200);
        expect(me.data.id).toBe(sessionB.sessionId);
        expect((await app.request({ method: 'GET', url: '/sessions/@me', as: userB.header })).statusCode).toBe(404);
        expect((await app.request({ method: 'GET', url: '/sessions/@me', as: null })).statusCode).toBe(401);
    });

    it('offers no create or update through the API', async () => {
        expect((await app.request({ method: 'POST', url: '/sessions', payload: { sub: userA.userId } })).statusCode).toBe(404);
        expect((await app.request({ method: 'POST', url: `/sessions/${sessionA.sessionId}`, payload: { revokedAt: null } })).statusCode).toBe(404);
        expect((await app.request({ method: 'PUT', url: `/sessions/${sessionA.sessionId}`, payload: {} })).statusCode).toBe(404);
        expect((await app.request({ method: 'POST', url: '/session-tokens', payload: {} })).statusCode).toBe(404);
    });

    it('DELETE /sessions/:id: the owner ends its own, a foreign realm needs reach, the token then answers 401', async () => {
        const owner = await login(app, realmA, userA.name, 'secret-password');
        const other = await login(app, realmA, userA.name, 'secret-password');
        const ended = await app.json<{ data: { revokedAt: string | null } }>({ method: 'DELETE', url: `/sessions/${other.sessionId}`, as: owner.bearer }, 200);
        expect(ended.data.revokedAt).toEqual(expect.any(String));
        expect(await probe(app, other.bearer)).toBe(401);
        expect(await probe(app, owner.bearer)).toBe(200);

        const target = await login(app, realmA, userA.name, 'secret-password');
        const own = await createActor(app, realmB, [{ permission: PermissionName.SESSION_DELETE, scope: RealmScope.OWN }]);
        expect((await app.request({ method: 'DELETE', url: `/sessions/${target.sessionId}`, as: own.header })).statusCode).toBe(403);
        expect((await app.request({ method: 'DELETE', url: `/realms/${realmB}/sessions/${target.sessionId}`, as: own.header })).statusCode).toBe(404);
        expect(await probe(app, target.bearer)).toBe(200);
        const any = await createActor(app, realmB, [{ permission: PermissionName.SESSION_DELETE, scope: RealmScope.ANY }]);
        expect((await app.request({ method: 'DELETE', url: `/sessions/${target.sessionId}`, as: any.header })).statusCode).toBe(200);
        expect(await probe(app, target.bearer)).toBe(401);
        // ending an ended session answers the record again
        expect((await app.request({ method: 'DELETE', url: `/sessions/${target.sessionId}`, as: any.header })).statusCode).toBe(200);
        expect((await app.request({ method: 'DELETE', url: '/sessions/6f1c0f7e-4c47-4a43-9c59-4a1de2b8e5a1' })).statusCode).toBe(404);

        // @me ends the request's own session (a logout)
        expect((await app.request({ method: 'DELETE', url: '/sessions/@me', as: owner.bearer })).statusCode).toBe(200);
        expect(await probe(app, owner.bearer)).toBe(401);
        expect((await app.request({ method: 'DELETE', url: '/sessions/@me', as: userA.header })).statusCode).toBe(404);
    });

    it('DELETE /session-tokens/:id deletes a refresh token of a reachable session only', async () => {
        const fresh = await login(app, realmA, userA.name, 'secret-password');
        const [row] = (await app.json<List>({ method: 'GET', url: `/session-tokens?filter[sessionId]=${fresh.sessionId}` }, 200)).data;
        const own = await createActor(app, realmB, [{ permission: PermissionName.SESSION_TOKEN_DELETE, scope: RealmScope.OWN }]);
        expect((await app.request({ method: 'DELETE', url: `/session-tokens/${row!.id as string}`, as: own.header })).statusCode).toBe(403);
        expect((await app.request({ method: 'DELETE', url: `/session-tokens/${row!.id as string}` })).statusCode).toBe(200);
        const replay = await app.request({ method: 'POST', url: '/token', as: null, payload: { grant_type: 'refresh_token', refresh_token: fresh.refreshToken } });
        expect(replay.json()).toMatchObject({ error: 'invalid_grant' });
    });
});
