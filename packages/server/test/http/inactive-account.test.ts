import { randomUUID } from 'node:crypto';
import { afterEach, expect, it, vi } from 'vitest';
import { useTestApp } from '../app.js';
import { authorizeParams, browser, browserWorld } from '../browser.js';
import { describeEachDialect } from '../databases.js';
import { createRealm } from '../grant-fixtures.js';
import { createUser } from '../identities.js';

/*
 * A deactivated account's right password must not be told from a wrong one (OWASP ASVS V2.2,
 * RFC 6749 §5.2 invalid_grant for any invalid resource owner credentials): the password grant and
 * Basic answer a deactivated user exactly as a wrong password, and its password is verified in
 * full every time: a verification remembered while it was active (secrets/remembered.ts) would
 * answer its right password faster than a wrong one — on the browser's sign-in form too.
 */
describeEachDialect('a deactivated account answers as a wrong password', (dialect) => {
    const app = useTestApp(dialect);
    afterEach(() => vi.restoreAllMocks());

    it('at the password grant and with Basic, whether or not its password was right and remembered before', async () => {
        const realm = await createRealm(app, `inactive-${randomUUID().slice(0, 8)}`);
        const user = await createUser(app, realm);
        const grant = (password: string) => app.request({
            method: 'POST', url: '/token', as: null, payload: { grant_type: 'password', username: user.name, password, realm_id: realm },
        });
        // signed in while active: the right password is verified (and remembered) once
        expect((await grant(user.password)).statusCode).toBe(200);
        expect((await app.request({ method: 'GET', url: '/users/@me', as: user.header })).statusCode).toBe(200);
        await app.json({ method: 'POST', url: `/users/${user.id}`, payload: { active: false } }, 200);
        const verify = vi.spyOn(app.deps.passwords, 'verify');

        const right = await grant(user.password);
        const wrong = await grant(`${user.password}-wrong`);
        expect(wrong.statusCode).toBe(400);
        expect(right.statusCode).toBe(wrong.statusCode);
        expect(right.json()).toEqual(wrong.json());
        expect(right.json()).toMatchObject({ error: 'invalid_grant', message: 'The username or password is invalid.' });

        const basicRight = await app.request({ method: 'GET', url: '/users/@me', as: user.header });
        const basicWrong = await app.request({ method: 'GET', url: '/users/@me', as: app.basic(user.id, `${user.password}-wrong`) });
        expect(basicWrong.statusCode).toBe(401);
        expect(basicRight.statusCode).toBe(basicWrong.statusCode);
        expect(basicRight.json()).toEqual(basicWrong.json());
        // four verifications of the deactivated user's password, none answered from or added to memory
        expect(verify.mock.calls).toHaveLength(4);
        for (const call of verify.mock.calls) expect(call[2]).toEqual({ remember: false });
    });

    it('at the browser sign-in form, whose right password is verified in full as a wrong one', async () => {
        const world = await browserWorld(app, { firstParty: true });
        const signIn = async (password: string) => {
            const client = browser(app);
            return client.submit(await client.authorize(authorizeParams(world).params), { username: world.user.name, password });
        };
        // signed in while active: the right password is verified (and remembered) once
        expect((await signIn(world.user.password)).statusCode).toBe(303);
        await app.json({ method: 'POST', url: `/users/${world.user.id}`, payload: { active: false } }, 200);
        const verify = vi.spyOn(app.deps.passwords, 'verify');
        const right = await signIn(world.user.password);
        const wrong = await signIn(`${world.user.password}-wrong`);
        expect(right.statusCode).toBe(401);
        expect(wrong.statusCode).toBe(401);
        expect(right.body).toContain('The username or password is incorrect.');
        expect(verify.mock.calls).toHaveLength(2);
        for (const call of verify.mock.calls) expect(call[2]).toEqual({ remember: false });
    });
});
