import { randomUUID } from 'node:crypto';
import { ErrorCode } from '@realmgate/core';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { ADMIN, type TestApp } from '../../server/test/app.js';
import { createBrowserClient } from '../../server/test/browser.js';
import { describeEachDialect } from '../../server/test/databases.js';
import {
    basicAuth,
    checkIdToken,
    createAuthorizationRequest,
    createClient,
    handleAuthorizationCallback,
    isRealmgateError,
    passwordGrant,
    refreshingSession,
    type PendingAuthorization,
    type RealmgateClient,
    type TokenSet,
} from '../src/index.js';
import { caught, startListening } from './listening.js';

/*
 * A signed-in client against the real server: one refresh after a 401 to a real access token the
 * server has seen expire, shared by concurrent calls; the 401 kept with the refresh's failure as
 * its cause (the signing key of both tokens disabled); and the ID token checks of the authorization code helper
 * (OpenID Connect Core §3.1.3.7) on a real ID token: wrong nonce, audience, issuer, expiry.
 */

const headerOf = (jwt: string) => JSON.parse(Buffer.from(jwt.split('.')[0]!, 'base64url').toString('utf8')) as { kid: string };

describeEachDialect('client kit: refresh on 401 and the ID token checks', (dialect) => {
    let app: TestApp;
    let admin: RealmgateClient;
    let anonymous: RealmgateClient;
    let realmId: string;
    let realmName: string;
    const user = async () => {
        const name = `u-${randomUUID().slice(0, 8)}`;
        await admin.users.create({ name, realmId, password: `${name}-secret` });
        return { name, password: `${name}-secret` };
    };
    beforeAll(async () => {
        const started = await startListening(dialect);
        app = started.app;
        admin = createClient({ baseUrl: started.url, auth: basicAuth(ADMIN.name, ADMIN.password) });
        anonymous = createClient({ baseUrl: started.url });
        realmName = `si-${randomUUID().slice(0, 8)}`;
        realmId = (await admin.realms.create({ name: realmName })).data.id;
    });
    afterAll(async () => app?.dispose());

    it('a 401 to an expired access token refreshes once, shared by concurrent calls, and repeats each call once', async () => {
        const { name, password } = await user();
        const initial = await passwordGrant(anonymous, { username: name, password, realmId });
        const received = Date.now();
        const rotations: TokenSet[] = [];
        // a client whose clock lags: it believes the access token fresh when the server has seen it expire
        const session = refreshingSession(anonymous, initial, { now: () => received, onRotate: (tokens) => rotations.push(tokens) });
        const client = anonymous.withAuth(session);
        expect((await client.getUsersMe()).data.name).toBe(name);
        // the server's clock (this process's Date) moves past the access token's expiry, within the refresh token's
        vi.useFakeTimers({ toFake: ['Date'] });
        try {
            vi.setSystemTime(received + (initial.expires_in! + 60) * 1000);
            expect(await caught(anonymous.withAuth(`Bearer ${initial.access_token}`).getUsersMe())).toMatchObject({ statusCode: 401, code: ErrorCode.EXPIRED_TOKEN });
            const answers = await Promise.all([client.getUsersMe(), client.getUsersMe(), client.users.list({ filter: { name } })]);
            expect(answers.map((answer) => answer.data)).toEqual([expect.objectContaining({ name }), expect.objectContaining({ name }), expect.any(Array)]);
        } finally {
            vi.useRealTimers();
        }
        expect(rotations).toHaveLength(1);
        expect(session.current()!.access_token).toBe(rotations[0]!.access_token);
        expect(rotations[0]!.access_token).not.toBe(initial.access_token);
    });

    it('a refresh that fails keeps the 401, with the refresh\'s error as its cause; a fixed credential is not refreshed', async () => {
        const { name, password } = await user();
        const initial = await passwordGrant(anonymous, { username: name, password, realmId });
        const session = refreshingSession(anonymous, initial);
        // the key that signed both tokens is disabled: the server refuses the access token and the refresh token
        await admin.keys.update(headerOf(initial.access_token).kid, { status: 'disabled' });
        const refused = await caught(anonymous.withAuth(session).getUsersMe());
        expect(refused).toMatchObject({ statusCode: 401 });
        expect(isRealmgateError(refused.cause)).toBe(true);
        expect(refused.cause).toMatchObject({ code: ErrorCode.INVALID_GRANT });
        const fixed = await caught(anonymous.withAuth(`Bearer ${initial.access_token}`).getUsersMe());
        expect(fixed).toMatchObject({ statusCode: 401 });
        expect(fixed.cause).toBeUndefined();
    });

    it('the authorization code helper checks the ID token\'s nonce, audience, issuer and expiry', async () => {
        const redirectUri = 'https://app.example/callback';
        const clientId = await createBrowserClient(app, realmId, { redirectUri });
        const { issuer } = await anonymous.getRealmsByRealmWellKnownOpenidConfiguration({ params: { realm: realmName } });
        const { name, password } = await user();
        const bearer = `Bearer ${(await passwordGrant(anonymous, { username: name, password, realmId })).access_token}`;
        const authorize = async () => {
            const pending = await createAuthorizationRequest({ baseUrl: admin.baseUrl, issuer, clientId, redirectUri, scope: 'openid' });
            const answer = await anonymous.postAuthorize({ body: Object.fromEntries(new URL(pending.url).searchParams), auth: bearer });
            return { pending, callback: answer.url };
        };

        // a mismatching nonce refuses the redeemed tokens
        const replayed = await authorize();
        const wrongNonce: PendingAuthorization = { ...replayed.pending, nonce: 'another-request' };
        expect(await caught(handleAuthorizationCallback(anonymous, replayed.callback, wrongNonce))).toMatchObject({ code: ErrorCode.INVALID_TOKEN, message: expect.stringMatching(/nonce/) });

        // a callback naming another issuer (RFC 9207) is refused before any redemption
        const mixed = await authorize();
        const elsewhere = mixed.callback.replace(/([?&]iss=)[^&]*/, `$1${encodeURIComponent('https://attacker.example')}`);
        expect(elsewhere).not.toBe(mixed.callback);
        expect(await caught(handleAuthorizationCallback(anonymous, elsewhere, mixed.pending))).toMatchObject({ message: expect.stringMatching(/another issuer/) });

        // a good callback passes; its real ID token is then refused for another client, issuer or time
        const good = await authorize();
        const tokens = await handleAuthorizationCallback(anonymous, good.callback, good.pending);
        const idToken = tokens.id_token!;
        expect(checkIdToken(idToken, good.pending)).toMatchObject({ iss: issuer, aud: clientId, nonce: good.pending.nonce });
        const refusal = (check: () => unknown) => {
            try {
                check();
            } catch (error) {
                return isRealmgateError(error) ? error.message : String(error);
            }
            return 'accepted';
        };
        expect(refusal(() => checkIdToken(idToken, { ...good.pending, clientId: randomUUID() }))).toMatch(/not for this client/);
        expect(refusal(() => checkIdToken(idToken, { ...good.pending, issuer: `${issuer}-other` }))).toMatch(/issuer/);
        const exp = (checkIdToken(idToken, good.pending).exp as number) * 1000;
        expect(refusal(() => checkIdToken(idToken, good.pending, { now: () => exp + 61_000 }))).toMatch(/expired/);
        // within the clock tolerance it still passes
        expect(refusal(() => checkIdToken(idToken, good.pending, { now: () => exp + 30_000 }))).toBe('accepted');
        expect(refusal(() => checkIdToken(idToken, good.pending, { now: () => exp + 30_000, clockToleranceSeconds: 0 }))).toMatch(/expired/);
    });
});
