import { PermissionName, RealmScope } from '@realmgate/core';
import { beforeAll, expect, it } from 'vitest';
import { createActor } from '../../../test/actors.js';
import { useTestApp } from '../../../test/app.js';
import { describeEachDialect } from '../../../test/databases.js';
import { createRealm } from '../../../test/grant-fixtures.js';
import { createClient } from '../../../test/identities.js';
import { login, probe, refresh } from '../../../test/sessions.js';

/** Spec "States and transitions": the rows that end sessions when an identity changes. */
describeEachDialect('session lifecycle: password reset and change, user and client deactivation', (dialect) => {
    const app = useTestApp(dialect);
    let realm: string;
    beforeAll(async () => {
        realm = await createRealm(app);
    });

    const signedIn = async (count: number, grants: Parameters<typeof createActor>[2] = []) => {
        const actor = await createActor(app, realm, grants);
        const logins = [];
        for (let i = 0; i < count; i += 1) logins.push(await login(app, realm, actor.name, 'secret-password'));
        return { ...actor, logins };
    };
    const revokedAt = async (sessionId: string) =>
        (await app.deps.db.selectFrom('auth_sessions').select('revoked_at').where('id', '=', sessionId).executeTakeFirstOrThrow()).revoked_at;

    it('a password reset by an administrator ends every session of the user', async () => {
        const user = await signedIn(2);
        await app.json({ method: 'POST', url: `/users/${user.userId}`, payload: { password: 'reset-password' } }, 200);
        for (const session of user.logins) {
            expect(await probe(app, session.bearer)).toBe(401);
            expect((await refresh(app, session.refreshToken)).json()).toMatchObject({ error: 'invalid_grant' });
            expect(await revokedAt(session.sessionId)).not.toBeNull();
        }
        // the new password signs in
        await login(app, realm, user.name, 'reset-password');
    });

    it('a password change by the user itself keeps the current session and ends the others', async () => {
        const user = await signedIn(3, [{ permission: PermissionName.USER_SELF_MANAGE, scope: RealmScope.OWN }]);
        const [current, ...others] = user.logins;
        const changed = await app.request({ method: 'POST', url: `/users/${user.userId}`, payload: { password: 'changed-password', currentPassword: 'secret-password' }, as: current!.bearer });
        expect(changed.statusCode, changed.body).toBe(200);
        expect(await probe(app, current!.bearer)).toBe(200);
        const rotated = await refresh(app, current!.refreshToken);
        expect(rotated.statusCode, rotated.body).toBe(200);
        for (const session of others) {
            expect(await probe(app, session.bearer)).toBe(401);
            expect((await refresh(app, session.refreshToken)).json()).toMatchObject({ error: 'invalid_grant' });
        }
    });

    it('a password change through Basic carries no session, so every session ends', async () => {
        const user = await signedIn(1, [{ permission: PermissionName.USER_SELF_MANAGE, scope: RealmScope.OWN }]);
        await app.json({ method: 'POST', url: `/users/${user.userId}`, payload: { password: 'basic-changed', currentPassword: 'secret-password' }, as: user.header }, 200);
        expect(await probe(app, user.logins[0]!.bearer)).toBe(401);
    });

    it('an update that leaves the password alone ends nothing', async () => {
        const user = await signedIn(1);
        await app.json({ method: 'POST', url: `/users/${user.userId}`, payload: { displayName: 'Renamed', active: true } }, 200);
        expect(await probe(app, user.logins[0]!.bearer)).toBe(200);
    });

    it('deactivating a user ends its sessions for good: bearer 401, refresh invalid_grant, also after reactivation', async () => {
        const user = await signedIn(2);
        await app.json({ method: 'POST', url: `/users/${user.userId}`, payload: { active: false } }, 200);
        for (const session of user.logins) {
            expect(await probe(app, session.bearer)).toBe(401);
            expect((await refresh(app, session.refreshToken)).json()).toMatchObject({ error: 'invalid_grant' });
        }
        await app.json({ method: 'POST', url: `/users/${user.userId}`, payload: { active: true } }, 200);
        expect(await probe(app, user.logins[0]!.bearer)).toBe(401);
        expect(await revokedAt(user.logins[1]!.sessionId)).not.toBeNull();
        // PUT takes the same path
        const other = await signedIn(1);
        await app.json({ method: 'PUT', url: `/users/${other.userId}`, payload: { active: false } }, 200);
        expect(await revokedAt(other.logins[0]!.sessionId)).not.toBeNull();
    });

    it('deactivating a client ends its client_credentials sessions and the user sessions issued through it', async () => {
        const client = await createClient(app, realm);
        const token = await app.request({
            method: 'POST', url: '/token', as: null,
            payload: { grant_type: 'client_credentials', realm_id: realm, client_id: client.name, client_secret: client.secret },
        });
        expect(token.statusCode, token.body).toBe(200);
        const bearer = `Bearer ${(token.json() as { access_token: string }).access_token}`;
        expect(await probe(app, bearer, 'clients')).toBe(200);
        const user = await createActor(app, realm, []);
        const through = await login(app, realm, user.name, 'secret-password', { client_id: client.name, client_secret: client.secret });
        const direct = await login(app, realm, user.name, 'secret-password');
        expect(await probe(app, through.bearer)).toBe(200);

        await app.json({ method: 'POST', url: `/clients/${client.id}`, payload: { active: false } }, 200);
        expect(await probe(app, bearer, 'clients')).toBe(401);
        expect(await probe(app, through.bearer)).toBe(401);
        expect(await probe(app, direct.bearer)).toBe(200);
        await app.json({ method: 'POST', url: `/clients/${client.id}`, payload: { active: true } }, 200);
        expect(await probe(app, bearer, 'clients')).toBe(401);
        expect(await probe(app, through.bearer)).toBe(401);
        expect((await refresh(app, through.refreshToken, { client_id: client.name, client_secret: client.secret })).json()).toMatchObject({ error: 'invalid_grant' });
    });
});
