import { decodeJwt } from 'jose';
import { expect, it } from 'vitest';
import { useTestApp } from '../../app.js';
import { authorizeParams, browser, browserWorld, enrolTotp, locationParams, nextTotpCode, type BrowserWorld } from '../../browser.js';
import { describeEachDialect } from '../../databases.js';

/*
 * What the ID token and the UserInfo response say of the user and of the sign-in: `name` (OIDC
 * Core §5.1) from the display name when `profile` is granted (§5.4), and `acr` (Core §2) when the
 * request asked with `acr_values` (§3.1.2.1): one fixed value per authentication strength —
 * urn:realmgate:acr:pwd for a password, urn:realmgate:acr:mfa for a password and a second factor.
 */
describeEachDialect('ID token and UserInfo claims: name and acr', (dialect) => {
    const app = useTestApp(dialect);
    const PASSWORD = 'urn:realmgate:acr:pwd';
    const SECOND_FACTOR = 'urn:realmgate:acr:mfa';

    /** signs in through the browser (a second factor when `totp` is given), redeems the code: the token answer */
    const signIn = async (world: BrowserWorld, extra: Record<string, string> = {}, totp?: string) => {
        const client = browser(app);
        const { params, pair } = authorizeParams(world, extra);
        let answer = await client.submit(await client.authorize(params), { username: world.user.name, password: world.user.password });
        if (totp !== undefined) answer = await client.submit(answer, { otp: await nextTotpCode(totp) });
        const code = locationParams(answer).params.code!;
        const tokens = await app.json<{ access_token: string; id_token: string }>({
            method: 'POST', url: '/token', as: null,
            payload: { grant_type: 'authorization_code', code, redirect_uri: world.redirectUri, client_id: world.clientId, code_verifier: pair.verifier },
        }, 200);
        return { client, tokens, idToken: decodeJwt(tokens.id_token) };
    };
    const userinfo = (accessToken: string) => app.json<Record<string, unknown>>({ method: 'GET', url: '/userinfo', as: `Bearer ${accessToken}` }, 200);

    it('states the display name as name with the profile scope, in the ID token and at UserInfo; not without profile', async () => {
        const world = await browserWorld(app, { firstParty: true });
        await app.json({ method: 'POST', url: `/users/${world.user.id}`, payload: { displayName: 'Ada Lovelace' } }, 200);
        const { tokens, idToken } = await signIn(world);
        expect(idToken.name).toBe('Ada Lovelace');
        expect(await userinfo(tokens.access_token)).toMatchObject({ sub: world.user.id, name: 'Ada Lovelace' });
        const without = await signIn(world, { scope: 'openid' });
        expect(without.idToken.name).toBeUndefined();
        expect((await userinfo(without.tokens.access_token)).name).toBeUndefined();
    });

    it('omits name for a user without a display name (a claim without a value is absent, Core §5.3.2)', async () => {
        const world = await browserWorld(app, { firstParty: true });
        const { tokens, idToken } = await signIn(world);
        expect('name' in idToken).toBe(false);
        expect('name' in await userinfo(tokens.access_token)).toBe(false);
    });

    it('states acr only when acr_values was requested: the password value after a password', async () => {
        const world = await browserWorld(app, { firstParty: true });
        expect((await signIn(world)).idToken.acr).toBeUndefined();
        expect((await signIn(world, { acr_values: `${SECOND_FACTOR} ${PASSWORD}` })).idToken.acr).toBe(PASSWORD);
    });

    it('states the second-factor value after a password and a code, and keeps it for single sign-on from that session', async () => {
        const world = await browserWorld(app, { firstParty: true });
        const { secret } = await enrolTotp(app, world);
        const { client, idToken } = await signIn(world, { acr_values: SECOND_FACTOR }, secret);
        expect(idToken.acr).toBe(SECOND_FACTOR);
        // the browser's session answers the next request without a form: its strength is the session's
        const { params, pair } = authorizeParams(world, { acr_values: SECOND_FACTOR });
        const code = locationParams(await client.authorize(params)).params.code!;
        const tokens = await app.json<{ id_token: string }>({
            method: 'POST', url: '/token', as: null,
            payload: { grant_type: 'authorization_code', code, redirect_uri: world.redirectUri, client_id: world.clientId, code_verifier: pair.verifier },
        }, 200);
        expect(decodeJwt(tokens.id_token).acr).toBe(SECOND_FACTOR);
    });

    it('refuses a malformed acr_values at the redirect URI', async () => {
        const world = await browserWorld(app, { firstParty: true });
        const answer = await browser(app).authorize(authorizeParams(world, { acr_values: 'x'.repeat(5000) }).params);
        expect(locationParams(answer).params.error).toBe('invalid_request');
    });
});
