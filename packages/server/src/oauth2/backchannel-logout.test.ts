import { PermissionName, RealmScope } from '@realmgate/core';
import { toDbDate } from '../db/values.js';
import { expect, it } from 'vitest';
import { createActor } from '../../test/actors.js';
import { useTestApp } from '../../test/app.js';
import { deliveredSessions, useBackchannelWorld } from '../../test/backchannel.js';
import { describeEachDialect } from '../../test/databases.js';
import { createClient } from '../../test/identities.js';
import { del, login, probe, refresh } from '../../test/sessions.js';

/**
 * Spec Events 6 and States "token active → revocation or session end" (OIDC Back-Channel Logout
 * 1.0): every path that revokes a session a client received tokens for POSTs one verified
 * logout_token per ended session to the client's backchannelLogoutUri.
 */
describeEachDialect('back-channel logout on every revocation path', (dialect) => {
    const app = useTestApp(dialect);
    const world = useBackchannelWorld(app);

    const through = { client_id: '', client_secret: '' };
    /** a user signed in `count` times through the client (sessions with client_id), plus its direct session */
    const signedIn = async (count: number) => {
        Object.assign(through, { client_id: world.client.name, client_secret: world.client.secret });
        const actor = await createActor(app, world.realm.id, [{ permission: PermissionName.USER_SELF_MANAGE, scope: RealmScope.OWN }]);
        const viaClient = [];
        for (let i = 0; i < count; i += 1) viaClient.push(await login(app, world.realm.id, actor.name, 'secret-password', through));
        const direct = await login(app, world.realm.id, actor.name, 'secret-password');
        return { ...actor, viaClient, direct, expected: viaClient.map((session) => [actor.userId, session.sessionId] as [string, string]).sort() };
    };
    const delivered = () => deliveredSessions(app, world.listener, world.realm, world.client.id);

    it('DELETE /sessions/:id by its owner', async () => {
        const user = await signedIn(1);
        await app.json({ method: 'DELETE', url: `/sessions/${user.viaClient[0]!.sessionId}`, as: user.direct.bearer }, 200);
        expect(await delivered()).toEqual(user.expected);
    });

    it('DELETE /sessions: self-service (the caller\'s other sessions) and the administrative force-logout', async () => {
        const own = await signedIn(2);
        expect((await del(app, '/sessions', own.direct.bearer)).statusCode).toBe(200);
        expect(await delivered()).toEqual(own.expected);
        const forced = await signedIn(2);
        const answer = await del(app, `/sessions?filter[userId]=${forced.userId}`);
        expect(answer.statusCode, answer.body).toBe(200);
        expect(await delivered()).toEqual(forced.expected);
        // the direct session (no client) ended too, and announced nothing
        expect(await probe(app, forced.direct.bearer)).toBe(401);
    });

    it('the refresh-token replay reaction', async () => {
        const user = await signedIn(1);
        const session = user.viaClient[0]!;
        expect((await refresh(app, session.refreshToken, through)).statusCode).toBe(200);
        expect((await refresh(app, session.refreshToken, through)).json()).toMatchObject({ error: 'invalid_grant' });
        expect(await delivered()).toEqual(user.expected);
    });

    it('POST /token/revoke (RFC 7009) of an access token', async () => {
        const user = await signedIn(1);
        const answer = await app.request({
            method: 'POST', url: '/token/revoke', as: app.basic(world.client.id, world.client.secret), payload: { token: user.viaClient[0]!.accessToken },
        });
        expect(answer.statusCode, answer.body).toBe(200);
        expect(await delivered()).toEqual(user.expected);
    });

    it('a password reset by an administrator ends and announces every session', async () => {
        const user = await signedIn(2);
        await app.json({ method: 'POST', url: `/users/${user.userId}`, payload: { password: 'reset-password' } }, 200);
        expect(await delivered()).toEqual(user.expected);
    });

    it('POST /users/@me/password: every other session ends and is announced, the current one lives', async () => {
        const user = await signedIn(2);
        const [current, ...others] = user.viaClient;
        const changed = await app.request({
            method: 'POST', url: '/users/@me/password', payload: { currentPassword: 'secret-password', password: 'changed-password' }, as: current!.bearer,
        });
        expect(changed.statusCode, changed.body).toBe(200);
        expect(await delivered()).toEqual(others.map((session) => [user.userId, session.sessionId]));
        expect(await probe(app, current!.bearer)).toBe(200);
    });

    it('deactivating the user', async () => {
        const user = await signedIn(2);
        await app.json({ method: 'POST', url: `/users/${user.userId}`, payload: { active: false } }, 200);
        expect(await delivered()).toEqual(user.expected);
    });

    it('the SessionStore revocation RP-initiated logout calls', async () => {
        const user = await signedIn(1);
        const ended = await app.deps.sessions.revoke(app.deps.db, user.viaClient[0]!.sessionId);
        expect(ended.map((session) => session.id)).toEqual([user.viaClient[0]!.sessionId]);
        expect(await delivered()).toEqual(user.expected);
    });

    it('deactivating the client: its relying party still hears of the sessions it held', async () => {
        const own = await createClient(app, world.realm.id, undefined, { backchannelLogoutUri: world.listener.uri });
        const actor = await createActor(app, world.realm.id, []);
        const session = await login(app, world.realm.id, actor.name, 'secret-password', { client_id: own.name, client_secret: own.secret });
        await app.json({ method: 'POST', url: `/clients/${own.id}`, payload: { active: false } }, 200);
        expect(await deliveredSessions(app, world.listener, world.realm, own.id)).toEqual([[actor.userId, session.sessionId]]);
    });

    it('a client without backchannelLogoutUri, a session without a client and DELETE /session-tokens send nothing', async () => {
        const silent = await createClient(app, world.realm.id);
        const actor = await createActor(app, world.realm.id, []);
        const session = await login(app, world.realm.id, actor.name, 'secret-password', { client_id: silent.name, client_secret: silent.secret });
        const direct = await login(app, world.realm.id, actor.name, 'secret-password');
        const user = await signedIn(1);
        // DELETE /session-tokens deletes refresh tokens: the session lives on (its access tokens answer), so nothing ended
        expect((await del(app, `/session-tokens?filter[sessionId]=${user.viaClient[0]!.sessionId}`)).statusCode).toBe(200);
        expect(await probe(app, user.viaClient[0]!.bearer)).toBe(200);
        await app.json({ method: 'DELETE', url: `/sessions/${session.sessionId}` }, 200);
        await app.json({ method: 'DELETE', url: `/sessions/${direct.sessionId}` }, 200);
        expect(await delivered()).toEqual([]);
    });

    it('an expired session sends nothing, neither when it expires nor when it is revoked later', async () => {
        const user = await signedIn(1);
        const sessionId = user.viaClient[0]!.sessionId;
        await app.deps.db.updateTable('auth_sessions').set({ expires_at: toDbDate(dialect, new Date(Date.now() - 60_000)) }).where('id', '=', sessionId).execute();
        expect(await probe(app, user.viaClient[0]!.bearer)).toBe(401);
        await app.json({ method: 'DELETE', url: `/sessions/${sessionId}` }, 200);
        expect(await delivered()).toEqual([]);
    });
});
