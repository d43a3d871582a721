import { PermissionName, RealmScope } from '@realmgate/core';
import { beforeAll, expect, it } from 'vitest';
import { createActor } from '../../../test/actors.js';
import { useTestApp } from '../../../test/app.js';
import { describeEachDialect } from '../../../test/databases.js';
import { createRealm } from '../../../test/grant-fixtures.js';
import { login, probe } from '../../../test/sessions.js';

/** OWASP ASVS 5.0 §6.2.3: a bearer alone changes neither one's password nor one's email. */
describeEachDialect('own password and email changes need the current password', (dialect) => {
    const app = useTestApp(dialect);
    let realm: string;
    beforeAll(async () => {
        realm = await createRealm(app);
    });
    const CURRENT = 'secret-password';

    /** a user holding user_self_manage, signed in twice (createActor's password is CURRENT) */
    const signedIn = async () => {
        const actor = await createActor(app, realm, [{ permission: PermissionName.USER_SELF_MANAGE, scope: RealmScope.OWN }]);
        const current = await login(app, realm, actor.name, CURRENT);
        const other = await login(app, realm, actor.name, CURRENT);
        return { ...actor, current, other };
    };
    const stored = async (id: string) => app.deps.db.selectFrom('auth_users').select(['password', 'email']).where('id', '=', id).executeTakeFirstOrThrow();
    const wrongCurrent = (body: { code: string; issues?: { path: string[] }[] }) => {
        expect(body.code).toBe('invalid_credentials');
        expect(body.issues?.map((item) => item.path.join('.'))).toEqual(['currentPassword']);
    };

    it('POST /users/@me/password: without, with a wrong and with the right current password', async () => {
        const user = await signedIn();
        const before = (await stored(user.userId)).password;
        const change = (payload: Record<string, unknown>) => app.request({ method: 'POST', url: '/users/@me/password', payload, as: user.current.bearer });

        const missing = await change({ password: 'taken-over' });
        expect(missing.statusCode).toBe(400);
        const wrong = await change({ currentPassword: 'guessed', password: 'taken-over' });
        expect(wrong.statusCode).toBe(400);
        wrongCurrent(wrong.json());
        expect((await stored(user.userId)).password).toBe(before);
        expect(await probe(app, user.other.bearer)).toBe(200);

        const right = await change({ currentPassword: CURRENT, password: 'changed-password' });
        expect(right.statusCode, right.body).toBe(200);
        expect(right.json().data.id).toBe(user.userId);
        await login(app, realm, user.name, 'changed-password');
        // spec States: the session of the request continues, every other ends
        expect(await probe(app, user.current.bearer)).toBe(200);
        expect(await probe(app, user.other.bearer)).toBe(401);
    });

    it('POST /users/:id on oneself: a password or email change needs the current password; other members do not', async () => {
        const user = await signedIn();
        const update = (payload: Record<string, unknown>) => app.request({ method: 'POST', url: `/users/${user.userId}`, payload, as: user.current.bearer });
        const before = await stored(user.userId);

        for (const payload of [{ password: 'taken-over' }, { email: 'thief@example.com' }]) {
            const missing = await update(payload);
            expect(missing.statusCode, JSON.stringify(payload)).toBe(400);
            const wrong = await update({ ...payload, currentPassword: 'guessed' });
            expect(wrong.statusCode, JSON.stringify(payload)).toBe(400);
            wrongCurrent(wrong.json());
        }
        expect(await stored(user.userId)).toEqual(before);
        expect(await probe(app, user.other.bearer)).toBe(200);
        expect((await update({ displayName: 'No proof needed' })).statusCode).toBe(200);

        expect((await update({ email: 'me@example.com', currentPassword: CURRENT })).statusCode).toBe(200);
        expect((await stored(user.userId)).email).toBe('me@example.com');
        const changed = await update({ password: 'changed-password', currentPassword: CURRENT });
        expect(changed.statusCode, changed.body).toBe(200);
        await login(app, realm, user.name, 'changed-password');
        expect(await probe(app, user.other.bearer)).toBe(401);
    });

    it('an administrator changes another user\'s password and email without it', async () => {
        const user = await signedIn();
        await app.json({ method: 'POST', url: `/users/${user.userId}`, payload: { password: 'reset-password', email: 'new@example.com' } }, 200);
        await login(app, realm, user.name, 'reset-password');
        expect((await stored(user.userId)).email).toBe('new@example.com');
    });
});

describeEachDialect('a wrong current password counts as a failed authentication (spec Limits)', (dialect) => {
    const FAILURES = 2;
    const app = useTestApp(dialect, {}, { limits: { failureMax: FAILURES } });

    it('refuses the address after failureMax wrong current passwords', async () => {
        const realm = await createRealm(app);
        const actor = await createActor(app, realm, [{ permission: PermissionName.USER_SELF_MANAGE, scope: RealmScope.OWN }]);
        const { bearer } = await login(app, realm, actor.name, 'secret-password');
        for (let index = 0; index < FAILURES; index++) {
            const wrong = await app.request({ method: 'POST', url: '/users/@me/password', payload: { currentPassword: 'guessed', password: 'taken-over' }, as: bearer });
            expect(wrong.statusCode, wrong.body).toBe(400);
        }
        expect((await app.request({ method: 'GET', url: '/users/@me', as: bearer })).statusCode).toBe(429);
    });
});
