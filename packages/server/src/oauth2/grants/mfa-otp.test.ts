import { randomUUID } from 'node:crypto';
import { PermissionName, RealmScope } from '@realmgate/core';
import { generate } from 'otplib';
import { beforeAll, describe, expect, it } from 'vitest';
import { createActor } from '../../../test/actors.js';
import { useTestApp, type TestApp } from '../../../test/app.js';
import { describeEachDialect } from '../../../test/databases.js';
import { createRealm } from '../../../test/grant-fixtures.js';
import { login, probe } from '../../../test/sessions.js';
import { MFA_OTP_GRANT_TYPE } from './mfa-otp.js';

const PASSWORD = 'secret-password';
type Body = Record<string, unknown> & { error?: string; mfa_token?: string; access_token?: string; refresh_token?: string };

/** a code of the next time step: inside the ±1 step window (RFC 6238 §5.2), later than the confirmation's */
const nextCode = (secret: string) => generate({ secret, epoch: Math.floor(Date.now() / 1000) + 30 });

async function setRealm(app: TestApp, realmId: string, settings: Record<string, boolean>): Promise<void> {
    await app.json({ method: 'POST', url: `/realms/${realmId}`, payload: settings }, 200);
}

/** a user holding user_self_manage who enrolled and confirmed one authenticator */
async function enrolledUser(app: TestApp, realmId: string) {
    const actor = await createActor(app, realmId, [{ permission: PermissionName.USER_SELF_MANAGE, scope: RealmScope.OWN }]);
    const enrolled = await app.json<{ data: { id: string }; meta: { secret: string } }>({
        method: 'POST', url: '/user-authenticators', payload: { name: 'phone', currentPassword: PASSWORD }, as: actor.header,
    }, 201);
    const secret = enrolled.meta.secret;
    const confirmed = await app.json<{ meta: { recoveryCodes: string[] } }>({
        method: 'POST', url: `/user-authenticators/${enrolled.data.id}/confirm`, payload: { code: await generate({ secret }), currentPassword: PASSWORD }, as: actor.header,
    }, 200);
    return { ...actor, secret, authenticatorId: enrolled.data.id, recoveryCodes: confirmed.meta.recoveryCodes };
}

function passwordGrant(app: TestApp, realmId: string, username: string, password = PASSWORD) {
    return app.request({ method: 'POST', url: '/token', as: null, payload: { grant_type: 'password', username, password, realm_id: realmId } });
}

async function mfaTokenOf(app: TestApp, realmId: string, username: string): Promise<string> {
    const answer = await passwordGrant(app, realmId, username);
    expect(answer.statusCode, answer.body).toBe(400);
    const body = answer.json<Body>();
    expect(body).toMatchObject({ error: 'mfa_required', code: 'mfa_required' });
    expect(body.access_token).toBeUndefined();
    return body.mfa_token!;
}

function redeem(app: TestApp, mfaToken: string, factor: { otp: string } | { recovery_code: string }) {
    return app.request({ method: 'POST', url: '/token', as: null, payload: { grant_type: MFA_OTP_GRANT_TYPE, mfa_token: mfaToken, ...factor } });
}

describeEachDialect('multi-factor sign-in at the password grant (RFC 6238)', (dialect) => {
    const app = useTestApp(dialect);
    let realm: string;
    beforeAll(async () => {
        realm = await createRealm(app, `mfa-${randomUUID().slice(0, 8)}`);
        await setRealm(app, realm, { mfaEnabled: true });
    });

    it('asks for the code after the password and issues tokens in a new session for it; the code and the ticket work once', async () => {
        const user = await enrolledUser(app, realm);
        const mfaToken = await mfaTokenOf(app, realm, user.name);
        const code = await nextCode(user.secret);

        const redeemed = await redeem(app, mfaToken, { otp: code });
        expect(redeemed.statusCode, redeemed.body).toBe(200);
        const tokens = redeemed.json<Body>();
        expect(tokens.refresh_token).toEqual(expect.any(String));
        expect(await probe(app, `Bearer ${tokens.access_token!}`)).toBe(200);
        // the refresh token of that session works as any other
        const refreshed = await app.request({ method: 'POST', url: '/token', as: null, payload: { grant_type: 'refresh_token', refresh_token: tokens.refresh_token } });
        expect(refreshed.statusCode, refreshed.body).toBe(200);

        // single use: the redeemed ticket is gone, whatever the code
        const again = await redeem(app, mfaToken, { otp: code });
        expect(again.statusCode).toBe(400);
        expect(again.json()).toMatchObject({ error: 'invalid_grant' });
        // RFC 6238 §5.2: the same code is refused the second time, on a fresh ticket too
        const replayed = await redeem(app, await mfaTokenOf(app, realm, user.name), { otp: code });
        expect(replayed.statusCode).toBe(400);
        expect(replayed.json()).toMatchObject({ error: 'invalid_grant', message: 'The one-time code is invalid.' });
    });

    it('refuses a wrong code and leaves the ticket for an honest retry; a recovery code works once', async () => {
        const user = await enrolledUser(app, realm);
        expect(user.recoveryCodes).toHaveLength(10);
        const mfaToken = await mfaTokenOf(app, realm, user.name);
        for (const otp of ['000000', 'abcdef', '']) {
            const wrong = await redeem(app, mfaToken, { otp });
            expect(wrong.statusCode, otp).toBe(400);
        }
        // neither or both factors: the request is malformed
        expect((await app.request({ method: 'POST', url: '/token', as: null, payload: { grant_type: MFA_OTP_GRANT_TYPE, mfa_token: mfaToken } })).json())
            .toMatchObject({ error: 'invalid_request' });
        const recovered = await redeem(app, mfaToken, { recovery_code: user.recoveryCodes[0]!.toUpperCase() });
        expect(recovered.statusCode, recovered.body).toBe(200);
        expect(await probe(app, `Bearer ${recovered.json<Body>().access_token!}`)).toBe(200);

        const reused = await redeem(app, await mfaTokenOf(app, realm, user.name), { recovery_code: user.recoveryCodes[0]! });
        expect(reused.statusCode).toBe(400);
        const second = await redeem(app, await mfaTokenOf(app, realm, user.name), { recovery_code: user.recoveryCodes[1]! });
        expect(second.statusCode, second.body).toBe(200);
    });

    it('never accepts an mfa_token as a bearer; introspection answers a bare {active:false}; an expired one is refused', async () => {
        const user = await enrolledUser(app, realm);
        const mfaToken = await mfaTokenOf(app, realm, user.name);
        const asBearer = await app.request({ method: 'GET', url: '/users/@me', as: `Bearer ${mfaToken}` });
        expect(asBearer.statusCode).toBe(401);
        expect(asBearer.json()).toMatchObject({ code: 'invalid_token' });
        const introspected = await app.request({ method: 'POST', url: '/token/introspect', payload: { token: mfaToken } });
        expect(introspected.statusCode).toBe(200);
        expect(introspected.json()).toEqual({ active: false });

        const realmName = (await app.deps.db.selectFrom('auth_realms').select('name').where('id', '=', realm).executeTakeFirstOrThrow()).name;
        const expired = await app.deps.tokens.issueMfaToken(app.deps.db, {
            subject: { id: user.userId, kind: 'user', realmId: realm, realmName }, clientId: null, scope: 'global', ticketId: randomUUID(), expiresIn: -1,
        });
        const refused = await redeem(app, expired, { otp: await nextCode(user.secret) });
        expect(refused.statusCode).toBe(400);
        expect(refused.json()).toMatchObject({ error: 'invalid_grant', message: expect.stringContaining('expired') });
        // a ticket whose row was never issued (or was redeemed) is refused even with the right code
        const unissued = await app.deps.tokens.issueMfaToken(app.deps.db, {
            subject: { id: user.userId, kind: 'user', realmId: realm, realmName }, clientId: null, scope: 'global', ticketId: randomUUID(), expiresIn: 60,
        });
        expect((await redeem(app, unissued, { otp: await nextCode(user.secret) })).json()).toMatchObject({ error: 'invalid_grant' });
    });

    it('refuses Basic for a user with a confirmed authenticator while multi-factor is on, and signs in by password alone when off', async () => {
        const user = await enrolledUser(app, realm);
        const basic = await app.request({ method: 'GET', url: '/users/@me', as: user.header });
        expect(basic.statusCode).toBe(401);
        expect(basic.json()).toMatchObject({ code: 'mfa_required', message: expect.stringContaining('Basic') });
        // a user without a confirmed authenticator keeps Basic and the plain password grant
        const plain = await createActor(app, realm, []);
        expect((await app.request({ method: 'GET', url: '/users/@me', as: plain.header })).statusCode).toBe(200);
        expect((await passwordGrant(app, realm, plain.name)).statusCode).toBe(200);

        const other = await createRealm(app, `mfa-off-${randomUUID().slice(0, 8)}`);
        const offUser = await enrolledUser(app, other);
        expect((await app.request({ method: 'GET', url: '/users/@me', as: offUser.header })).statusCode).toBe(200);
        const issued = await passwordGrant(app, other, offUser.name);
        expect(issued.statusCode, issued.body).toBe(200);
        expect(issued.json<Body>().access_token).toEqual(expect.any(String));
    });

    it('under mfaRequired, refuses a password-only sign-in to a user who has not enrolled (mfa_required, no ticket)', async () => {
        const required = await createRealm(app, `mfa-req-${randomUUID().slice(0, 8)}`);
        await setRealm(app, required, { mfaRequired: true });
        const plain = await createActor(app, required, [{ permission: PermissionName.USER_SELF_MANAGE, scope: RealmScope.OWN }]);
        const refused = await passwordGrant(app, required, plain.name);
        expect(refused.statusCode).toBe(400);
        expect(refused.json()).toMatchObject({ error: 'mfa_required', message: expect.stringContaining('enrol') });
        expect(refused.json<Body>().mfa_token).toBeUndefined();
        // it enrols (Basic still works for it: it holds no confirmed authenticator) and then signs in with a code
        const user = await enrolledUser(app, required);
        const redeemed = await redeem(app, await mfaTokenOf(app, required, user.name), { otp: await nextCode(user.secret) });
        expect(redeemed.statusCode, redeemed.body).toBe(200);
    });

    it('refuses codes while the realm encryption key is disabled (spec States); recovery codes still work', async () => {
        const user = await enrolledUser(app, realm);
        const sealed = await app.deps.db.selectFrom('auth_user_authenticators').select('secret').where('id', '=', user.authenticatorId).executeTakeFirstOrThrow();
        const keyId = sealed.secret.split(':')[2]!;
        await app.json({ method: 'POST', url: `/keys/${keyId}`, payload: { status: 'disabled' } }, 200);
        try {
            const mfaToken = await mfaTokenOf(app, realm, user.name);
            expect((await redeem(app, mfaToken, { otp: await nextCode(user.secret) })).json()).toMatchObject({ error: 'invalid_grant' });
            expect((await redeem(app, mfaToken, { recovery_code: user.recoveryCodes[0]! })).statusCode).toBe(200);
        } finally {
            await app.json({ method: 'POST', url: `/keys/${keyId}`, payload: { status: 'active' } }, 200);
        }
        const redeemed = await redeem(app, await mfaTokenOf(app, realm, user.name), { otp: await nextCode(user.secret) });
        expect(redeemed.statusCode, redeemed.body).toBe(200);
    });

    it('binds the ticket to its realm: another realm\'s token endpoint refuses it', async () => {
        const user = await enrolledUser(app, realm);
        const mfaToken = await mfaTokenOf(app, realm, user.name);
        const foreign = await createRealm(app, `mfa-foreign-${randomUUID().slice(0, 8)}`);
        const answer = await app.request({
            method: 'POST', url: '/token', as: null,
            payload: { grant_type: MFA_OTP_GRANT_TYPE, mfa_token: mfaToken, otp: await nextCode(user.secret), realm_id: foreign },
        });
        expect(answer.statusCode).toBe(400);
    });
});

describeEachDialect('the mfa_token is bound to the client of the password request', (dialect) => {
    const app = useTestApp(dialect);

    it('redeems only through the same client, with the scope bound at the password step', async () => {
        const realm = await createRealm(app);
        await setRealm(app, realm, { mfaEnabled: true });
        const client = await app.json<{ data: { id: string } }>({ method: 'POST', url: '/clients', payload: { name: `spa-${randomUUID().slice(0, 8)}`, realmId: realm } }, 201);
        const user = await enrolledUser(app, realm);
        const answer = await app.request({
            method: 'POST', url: '/token', as: null,
            payload: { grant_type: 'password', username: user.name, password: PASSWORD, realm_id: realm, client_id: client.data.id },
        });
        expect(answer.statusCode, answer.body).toBe(400);
        const mfaToken = answer.json<Body>().mfa_token!;
        const otp = await nextCode(user.secret);
        const clientless = await redeem(app, mfaToken, { otp });
        expect(clientless.json()).toMatchObject({ error: 'invalid_grant', message: expect.stringContaining('another client') });
        const redeemed = await app.request({
            method: 'POST', url: '/token', as: null, payload: { grant_type: MFA_OTP_GRANT_TYPE, mfa_token: mfaToken, otp, client_id: client.data.id },
        });
        expect(redeemed.statusCode, redeemed.body).toBe(200);
        const claims = JSON.parse(Buffer.from(redeemed.json<Body>().access_token!.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;
        expect(claims).toMatchObject({ sub: user.userId, client_id: client.data.id, realm_id: realm, kind: 'access_token' });
    });
});

describe('wrong one-time codes', () => {
    describeEachDialect('count as failed authentications (spec Limits)', (dialect) => {
        const FAILURES = 2;
        const app = useTestApp(dialect, {}, { limits: { failureMax: FAILURES } });

        it('refuses the address after failureMax wrong codes, as after wrong passwords', async () => {
            const realm = await createRealm(app);
            await setRealm(app, realm, { mfaEnabled: true });
            const user = await enrolledUser(app, realm);
            const mfaToken = await mfaTokenOf(app, realm, user.name);
            for (let index = 0; index < FAILURES; index++) expect((await redeem(app, mfaToken, { otp: '000000' })).statusCode).toBe(400);
            expect((await redeem(app, mfaToken, { otp: await nextCode(user.secret) })).statusCode).toBe(429);
        });
    });

    describeEachDialect('count as failed authentications at confirmation too (spec Limits)', (dialect) => {
        const FAILURES = 2;
        // an app of its own: the address's failures of the suite above would refuse it at once
        const app = useTestApp(dialect, {}, { limits: { failureMax: FAILURES } });

        it('refuses the address after failureMax wrong confirmation codes', async () => {
            const realm = await createRealm(app);
            const actor = await createActor(app, realm, [{ permission: PermissionName.USER_SELF_MANAGE, scope: RealmScope.OWN }]);
            const { bearer } = await login(app, realm, actor.name, PASSWORD);
            const enrolled = await app.json<{ data: { id: string } }>({ method: 'POST', url: '/user-authenticators', payload: { name: 'phone', currentPassword: PASSWORD }, as: bearer }, 201);
            for (let index = 0; index < FAILURES; index++) {
                const wrong = await app.request({ method: 'POST', url: `/user-authenticators/${enrolled.data.id}/confirm`, payload: { code: '000000', currentPassword: PASSWORD }, as: bearer });
                expect(wrong.statusCode, wrong.body).toBe(400);
            }
            expect((await app.request({ method: 'GET', url: '/users/@me', as: bearer })).statusCode).toBe(429);
        });
    });
});
