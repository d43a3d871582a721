import { PermissionName, RealmScope } from '@realmgate/core';
import { beforeAll, expect, it } from 'vitest';
import { createActor } from '../../../test/actors.js';
import { useTestApp } from '../../../test/app.js';
import { describeEachDialect } from '../../../test/databases.js';
import { createRealm } from '../../../test/grant-fixtures.js';
import { del, issuePaths, login, probe, refresh } from '../../../test/sessions.js';

type Counted = { data: { count: number } };

describeEachDialect('DELETE /sessions and DELETE /session-tokens: self-service, force-logout, inapplicable filters', (dialect) => {
    const app = useTestApp(dialect);
    let realmA: string;
    let realmB: string;
    beforeAll(async () => {
        realmA = await createRealm(app);
        realmB = await createRealm(app);
    });

    /** a user of `realm` holding `grants`, signed in `count` times */
    const signedIn = async (realm: string, count: number, grants: Parameters<typeof createActor>[2] = []) => {
        const actor = await createActor(app, realm, grants);
        const logins = [];
        for (let i = 0; i < count; i += 1) logins.push(await login(app, realm, actor.name, 'secret-password'));
        return { ...actor, logins };
    };
    const count = async (url: string, as?: string) => {
        const response = await del(app, url, as);
        expect(response.statusCode, response.body).toBe(200);
        return (response.json() as Counted).data.count;
    };

    it('without a target key ends the caller\'s other sessions and keeps the current one', async () => {
        const user = await signedIn(realmA, 3);
        const bystander = await signedIn(realmA, 1);
        const [current, second, third] = user.logins;
        expect(await count('/sessions', current!.bearer)).toBe(2);
        expect(await probe(app, current!.bearer)).toBe(200);
        expect(await probe(app, second!.bearer)).toBe(401);
        expect(await probe(app, third!.bearer)).toBe(401);
        expect(await probe(app, bystander.logins[0]!.bearer)).toBe(200);
        // nothing left to end
        expect(await count('/sessions', current!.bearer)).toBe(0);
        // through Basic there is no current session: every session of the caller ends
        expect(await count('/sessions', user.header)).toBe(1);
        expect(await probe(app, current!.bearer)).toBe(401);
    });

    it('applies any other filter given on the self-service path', async () => {
        const user = await signedIn(realmA, 3);
        const [current, second] = user.logins;
        expect(await count('/sessions?filter[seenAt]=<2000-01-01T00:00:00Z', current!.bearer)).toBe(0);
        expect(await count(`/sessions?filter[createdAt]=>2000-01-01T00:00:00Z&filter[userAgent]=nobody`, current!.bearer)).toBe(0);
        expect(await probe(app, second!.bearer)).toBe(200);
        // no permission is needed to end one's own sessions
        expect(await count('/sessions?filter[expiresAt]=>2000-01-01T00:00:00Z', current!.bearer)).toBe(2);
    });

    it('keeps a relation-qualified key on the self-service path', async () => {
        const reader = await signedIn(realmA, 2, [{ permission: PermissionName.USER_READ, scope: RealmScope.ANY }]);
        const other = await signedIn(realmA, 1);
        // filter[user.id] naming someone else is no force-logout: it narrows the caller's own sessions to none
        expect(await count(`/sessions?filter[user.id]=${other.userId}`, reader.logins[0]!.bearer)).toBe(0);
        expect(await probe(app, other.logins[0]!.bearer)).toBe(200);
        expect(await count(`/sessions?filter[user.id]=${reader.userId}`, reader.logins[0]!.bearer)).toBe(1);
        expect(await probe(app, reader.logins[0]!.bearer)).toBe(200);
        expect(await probe(app, reader.logins[1]!.bearer)).toBe(401);
    });

    it('with a flat target key is the force-logout: it needs session_delete, gated by its reach', async () => {
        const victim = await signedIn(realmA, 2);
        const plain = await signedIn(realmA, 1);
        const refused = await del(app, `/sessions?filter[userId]=${victim.userId}`, plain.logins[0]!.bearer);
        expect(refused.statusCode).toBe(403);
        // a foreign realm's session_delete at own reach reaches none of realm A's sessions
        const foreign = await createActor(app, realmB, [{ permission: PermissionName.SESSION_DELETE, scope: RealmScope.OWN }]);
        for (const key of ['userId', 'sub']) expect(await count(`/sessions?filter[${key}]=${victim.userId}`, foreign.header)).toBe(0);
        expect(await count(`/sessions?filter[realmId]=${realmA}`, foreign.header)).toBe(0);
        expect(await probe(app, victim.logins[0]!.bearer)).toBe(200);
        // the caller's own sessions are not spared by a force-logout that names them
        const admin = await createActor(app, realmA, [{ permission: PermissionName.SESSION_DELETE, scope: RealmScope.OWN }]);
        expect(await count(`/sessions?filter[userId]=${victim.userId}&filter[subKind]=user`, admin.header)).toBe(2);
        expect(await probe(app, victim.logins[0]!.bearer)).toBe(401);
        expect(await probe(app, victim.logins[1]!.bearer)).toBe(401);
        expect(await probe(app, plain.logins[0]!.bearer)).toBe(200);
        // by id, and realm-wide
        const single = await signedIn(realmB, 2);
        expect(await count(`/sessions?filter[id]=${single.logins[0]!.sessionId}`)).toBe(1);
        expect(await probe(app, single.logins[1]!.bearer)).toBe(200);
        expect(await count(`/realms/${realmB}/sessions?filter[realmId]=${realmB}`)).toBeGreaterThanOrEqual(1);
        expect(await probe(app, single.logins[1]!.bearer)).toBe(401);
        expect(await probe(app, plain.logins[0]!.bearer)).toBe(200);
    });

    it('answers 400 with issues for a filter it cannot apply as written, and ends nothing', async () => {
        const user = await signedIn(realmA, 2);
        const [current, other] = user.logins;
        const cases: [string, string][] = [
            ['filter[nope]=1', 'filter.nope'],
            ['filter[userId]=not-a-uuid', 'filter.userId'],
            ['filter[userId]=', 'filter.userId'],
            ['filter[id]=', 'filter.id'],
            ['filter[createdAt]=2024-01-01T00:00:00Z', 'filter.createdAt'],
            ['filter[subKind]=robot', 'filter.subKind'],
            ['filter[user.name]=x', 'filter.user.name'],
            ['filter[client.nope]=x', 'filter.client.nope'],
            ['page[limit]=1', 'page'],
            ['sort=id', 'sort'],
        ];
        for (const [query, path] of cases) {
            const response = await del(app, `/sessions?${query}`, current!.bearer);
            expect(response.statusCode, query).toBe(400);
            expect(issuePaths(response.json()), query).toEqual([path]);
        }
        expect(await probe(app, other!.bearer)).toBe(200);
        // the same filters on the force-logout path of a caller holding the permission
        const admin = await createActor(app, realmA, [{ permission: PermissionName.SESSION_DELETE, scope: RealmScope.ANY }]);
        expect((await del(app, `/sessions?filter[realmId]=${realmA}&filter[user.name]=x`, admin.header)).statusCode).toBe(400);
        expect(await probe(app, other!.bearer)).toBe(200);
    });

    it('DELETE /session-tokens: self-service deletes the refresh tokens of the caller\'s other sessions', async () => {
        const user = await signedIn(realmA, 2);
        const [current, other] = user.logins;
        expect(await count('/session-tokens', current!.bearer)).toBe(1);
        expect((await refresh(app, other!.refreshToken)).json()).toMatchObject({ error: 'invalid_grant' });
        const rotated = await refresh(app, current!.refreshToken);
        expect(rotated.statusCode, rotated.body).toBe(200);
    });

    it('DELETE /session-tokens: a target key needs session_token_delete reaching the session\'s realm; bad filters answer 400', async () => {
        const user = await signedIn(realmA, 1);
        const target = user.logins[0]!;
        const plain = await signedIn(realmA, 1);
        expect((await del(app, `/session-tokens?filter[sessionId]=${target.sessionId}`, plain.logins[0]!.bearer)).statusCode).toBe(403);
        const foreign = await createActor(app, realmB, [{ permission: PermissionName.SESSION_TOKEN_DELETE, scope: RealmScope.OWN }]);
        expect(await count(`/session-tokens?filter[sessionId]=${target.sessionId}`, foreign.header)).toBe(0);
        expect(await count(`/session-tokens?filter[sessionId]=${target.sessionId}`)).toBe(1);
        expect((await refresh(app, target.refreshToken)).json()).toMatchObject({ error: 'invalid_grant' });
        for (const [query, path] of [
            ['filter[userId]=x', 'filter.userId'],
            ['filter[sessionId]=', 'filter.sessionId'],
            ['filter[updatedAt]=>2024-01-01T00:00:00Z', 'filter.updatedAt'],
            ['filter[session.userId]=' + user.userId, 'filter.session.userId'],
        ] as const) {
            const response = await del(app, `/session-tokens?${query}`, plain.logins[0]!.bearer);
            expect(response.statusCode, query).toBe(400);
            expect(issuePaths(response.json()), query).toEqual([path]);
        }
        // with session_read the relation filter applies, on the self-service path
        const reader = await signedIn(realmA, 2, [{ permission: PermissionName.SESSION_READ, scope: RealmScope.OWN }]);
        expect(await count(`/session-tokens?filter[session.userId]=${user.userId}`, reader.logins[0]!.bearer)).toBe(0);
        expect(await count(`/session-tokens?filter[session.userId]=${reader.userId}`, reader.logins[0]!.bearer)).toBe(1);
    });

    it('answers 401 without credentials', async () => {
        expect((await del(app, '/sessions', null)).statusCode).toBe(401);
        expect((await del(app, '/session-tokens', null)).statusCode).toBe(401);
    });
});
