import { randomUUID } from 'node:crypto';
import { PermissionName, RealmScope } from '@realmgate/core';
import { generate } from 'otplib';
import { beforeAll, expect, it } from 'vitest';
import { createActor } from '../actors.js';
import { useTestApp, type TestApp } from '../app.js';
import { describeEachDialect } from '../databases.js';
import { createRealm } from '../grant-fixtures.js';
import { MFA_OTP_GRANT_TYPE } from '../../src/oauth2/grants/mfa-otp.js';
import { SECOND_FACTOR_LIMITS } from '../../src/limits/second-factor-attempts.js';

/*
 * Wrong second factors at the password grant's mfa_token (RFC 6238 §5.1, RFC 4226 §7.3: the
 * verifier throttles and locks out guessing). The per-address limit is no bound when the guesser
 * picks its address (X-Forwarded-For under TRUST_PROXY=true, the default), so every wrong code
 * here comes from an address of its own: the ticket dies after five, the user's second factor
 * locks after ten — counted by ticket and by user id, never by address.
 */

const PASSWORD = 'secret-password';
type Body = Record<string, unknown> & { error?: string; code?: string; mfa_token?: string; access_token?: string };

/** a code of the next time step: inside the ±1 step window (RFC 6238 §5.2), later than the confirmation's */
const nextCode = (secret: string) => generate({ secret, epoch: Math.floor(Date.now() / 1000) + 30 });

let addresses = 0;
/** a source address of its own for each request, as a guesser rotating X-Forwarded-For sends */
const freshAddress = () => ({ 'x-forwarded-for': `198.51.${Math.floor(++addresses / 250)}.${addresses % 250 + 1}` });

async function enrolledUser(app: TestApp, realmId: string) {
    const actor = await createActor(app, realmId, [{ permission: PermissionName.USER_SELF_MANAGE, scope: RealmScope.OWN }]);
    const enrolled = await app.json<{ data: { id: string }; meta: { secret: string } }>({
        method: 'POST', url: '/user-authenticators', payload: { name: 'phone', currentPassword: PASSWORD }, as: actor.header,
    }, 201);
    const confirmed = await app.json<{ meta: { recoveryCodes: string[] } }>({
        method: 'POST', url: `/user-authenticators/${enrolled.data.id}/confirm`, payload: { code: await generate({ secret: enrolled.meta.secret }), currentPassword: PASSWORD }, as: actor.header,
    }, 200);
    return { ...actor, secret: enrolled.meta.secret, recoveryCodes: confirmed.meta.recoveryCodes };
}

async function mfaTokenOf(app: TestApp, realmId: string, username: string): Promise<string> {
    const answer = await app.request({
        method: 'POST', url: '/token', as: null, headers: freshAddress(), payload: { grant_type: 'password', username, password: PASSWORD, realm_id: realmId },
    });
    expect(answer.json<Body>(), answer.body).toMatchObject({ error: 'mfa_required' });
    return answer.json<Body>().mfa_token!;
}

function redeem(app: TestApp, mfaToken: string, factor: { otp: string } | { recovery_code: string }) {
    return app.request({ method: 'POST', url: '/token', as: null, headers: freshAddress(), payload: { grant_type: MFA_OTP_GRANT_TYPE, mfa_token: mfaToken, ...factor } });
}

const recoveryCodeUsed = async (app: TestApp, userId: string) =>
    (await app.deps.db.selectFrom('auth_user_recovery_codes').select('used_at').where('user_id', '=', userId).execute()).some((row) => row.used_at !== null);

describeEachDialect('wrong second factors at the mfa-otp grant, from rotating addresses', (dialect) => {
    const app = useTestApp(dialect);
    let realm: string;
    beforeAll(async () => {
        realm = await createRealm(app, `mfa-limits-${randomUUID().slice(0, 8)}`);
        await app.json({ method: 'POST', url: `/realms/${realm}`, payload: { mfaEnabled: true } }, 200);
    });

    it('spend the mfa_token after five: the right code then gets the answer of a dead ticket', async () => {
        expect(SECOND_FACTOR_LIMITS.ticketMax).toBe(5);
        const user = await enrolledUser(app, realm);
        const mfaToken = await mfaTokenOf(app, realm, user.name);
        for (let attempt = 0; attempt < 5; attempt++) {
            const wrong = await redeem(app, mfaToken, { otp: String(100000 + attempt) });
            expect(wrong.statusCode, wrong.body).toBe(400);
            expect(wrong.json()).toMatchObject({ error: 'invalid_grant', message: 'The one-time code is invalid.' });
        }
        expect(await app.deps.db.selectFrom('auth_mfa_tickets').select('id').where('user_id', '=', user.userId).execute()).toHaveLength(0);
        const right = await redeem(app, mfaToken, { otp: await nextCode(user.secret) });
        const wrong = await redeem(app, mfaToken, { otp: '999999' });
        expect(right.statusCode).toBe(400);
        expect(right.json()).toEqual(wrong.json());
        expect(right.json<Body>().access_token).toBeUndefined();
        // an honest user signs in again and is let in with a code of its app
        const redeemed = await redeem(app, await mfaTokenOf(app, realm, user.name), { otp: await nextCode(user.secret) });
        expect(redeemed.statusCode, redeemed.body).toBe(200);
    });

    it('lock the user after ten over several tickets, codes and recovery codes alike: 429 with Retry-After, logged, the right factors refused', async () => {
        expect(SECOND_FACTOR_LIMITS.userMax).toBe(10);
        const user = await enrolledUser(app, realm);
        const first = await mfaTokenOf(app, realm, user.name);
        for (let attempt = 0; attempt < 5; attempt++) expect((await redeem(app, first, { otp: String(200000 + attempt) })).statusCode).toBe(400);
        const second = await mfaTokenOf(app, realm, user.name);
        for (let attempt = 0; attempt < 4; attempt++) expect((await redeem(app, second, { recovery_code: `wrong-${attempt}` })).statusCode).toBe(400);
        const locking = await redeem(app, second, { otp: '300000' });
        expect(locking.statusCode, locking.body).toBe(429);
        expect(locking.json()).toMatchObject({ code: 'login_attempt_throttled' });
        expect(Number(locking.headers['retry-after'])).toBeGreaterThan(60);

        // a fresh ticket, the right code or an unused recovery code: refused while locked, and nothing used up
        const third = await mfaTokenOf(app, realm, user.name);
        for (const factor of [{ otp: await nextCode(user.secret) }, { recovery_code: user.recoveryCodes[0]! }]) {
            const refused = await redeem(app, third, factor);
            expect(refused.statusCode, refused.body).toBe(429);
            expect(refused.json()).toMatchObject({ code: 'login_attempt_throttled' });
            expect(refused.headers['retry-after']).toBeDefined();
        }
        expect(await recoveryCodeUsed(app, user.userId)).toBe(false);

        await app.deps.events.settled();
        const logged = await app.deps.db.selectFrom('auth_events').select(['name', 'scope', 'ref_type', 'realm_id', 'data'])
            .where('ref_id', '=', user.userId).where('name', '=', 'secondFactorLocked').execute();
        expect(logged).toHaveLength(1);
        expect(logged[0]).toMatchObject({ scope: 'auth', ref_type: 'user', realm_id: realm });
        expect(String(logged[0]!.data)).not.toContain('300000');
        // another user of the realm is not affected
        const other = await enrolledUser(app, realm);
        expect((await redeem(app, await mfaTokenOf(app, realm, other.name), { otp: await nextCode(other.secret) })).statusCode).toBe(200);
    });
});

describeEachDialect('a spent mfa_token verifies no factor', (dialect) => {
    const app = useTestApp(dialect);

    it('answers a right and a wrong factor alike, and leaves a recovery code sent with it unused', async () => {
        const realm = await createRealm(app, `mfa-spent-${randomUUID().slice(0, 8)}`);
        await app.json({ method: 'POST', url: `/realms/${realm}`, payload: { mfaEnabled: true } }, 200);
        const user = await enrolledUser(app, realm);
        const mfaToken = await mfaTokenOf(app, realm, user.name);
        expect((await redeem(app, mfaToken, { otp: await nextCode(user.secret) })).statusCode).toBe(200);

        const right = await redeem(app, mfaToken, { recovery_code: user.recoveryCodes[0]! });
        const wrong = await redeem(app, mfaToken, { recovery_code: 'not-a-code' });
        const wrongOtp = await redeem(app, mfaToken, { otp: '000000' });
        expect(right.statusCode).toBe(400);
        expect(right.json()).toEqual(wrong.json());
        expect(wrongOtp.json()).toEqual(wrong.json());
        expect(right.json()).toMatchObject({ error: 'invalid_grant' });
        expect(await recoveryCodeUsed(app, user.userId)).toBe(false);
        // the recovery code is still good for a live ticket
        expect((await redeem(app, await mfaTokenOf(app, realm, user.name), { recovery_code: user.recoveryCodes[0]! })).statusCode).toBe(200);
    });
});
