import { generate } from 'otplib';
import { expect, it } from 'vitest';
import { describeEachDialect } from '../databases.js';
import { useReplicas } from '../replicas.js';
import type { ServerProcess } from '../server-process.js';

/*
 * Wrong second factors are counted in the limits' counter store — Redis, shared by the replicas —
 * by ticket and by user (limits/second-factor-attempts.ts): a guesser spreading its codes over
 * two replicas (and over addresses) meets the same limits as on one. Without Redis each replica
 * counts its own, so the suite needs TEST_REDIS_URL (set and unreachable fails, as everywhere).
 */
if (process.env.TEST_REDIS_URL) describeEachDialect('two replicas on one Redis: the second factor\'s limits', (dialect) => {
    const replicas = useReplicas(dialect);
    const MFA_OTP = 'urn:realmgate:params:oauth:grant-type:mfa-otp';
    let addresses = 0;
    const freshAddress = () => ({ 'x-forwarded-for': `198.18.${dialect.length}.${++addresses}` });

    it('spend a ticket and lock the user across replicas', async () => {
        const { a, b } = replicas;
        const realm = (await replicas.json<{ data: { id: string } }>(a, 'POST', '/realms', { name: `mfa-replicas-${dialect}`, mfaEnabled: true }, 201)).data;
        const user = (await replicas.json<{ data: { id: string } }>(b, 'POST', '/users', { name: 'guessed', password: 'user-password', realmId: realm.id }, 201)).data;
        const enrolled = await replicas.json<{ data: { id: string }; meta: { secret: string } }>(a, 'POST', '/user-authenticators', { name: 'phone', userId: user.id }, 201);
        const secret = enrolled.meta.secret;
        await replicas.json(b, 'POST', `/user-authenticators/${enrolled.data.id}/confirm`, { code: await generate({ secret }) }, 200);

        const mfaToken = async (replica: ServerProcess) => {
            const answer = await replicas.post(replica, '/token', { grant_type: 'password', username: 'guessed', password: 'user-password', realm_id: realm.id }, undefined, freshAddress());
            const body = await answer.json() as { error: string; mfa_token: string };
            expect(body.error).toBe('mfa_required');
            return body.mfa_token;
        };
        const redeem = (replica: ServerProcess, token: string, otp: string) =>
            replicas.post(replica, '/token', { grant_type: MFA_OTP, mfa_token: token, otp }, undefined, freshAddress());
        const nextCode = () => generate({ secret, epoch: Math.floor(Date.now() / 1000) + 30 });
        const both = [a, b];

        // five wrong codes over both replicas spend the ticket: the right code is refused on either
        const first = await mfaToken(a);
        for (let attempt = 0; attempt < 5; attempt++) expect((await redeem(both[attempt % 2]!, first, String(100000 + attempt))).status).toBe(400);
        const dead = await redeem(b, first, await nextCode());
        expect(dead.status).toBe(400);
        expect(await dead.json()).toMatchObject({ error: 'invalid_grant' });

        // five more on a second ticket, alternating: the tenth of the user locks its second factor on both
        const second = await mfaToken(b);
        for (let attempt = 0; attempt < 4; attempt++) expect((await redeem(both[attempt % 2]!, second, String(200000 + attempt))).status).toBe(400);
        const locking = await redeem(b, second, '299999');
        expect(locking.status).toBe(429);
        expect(locking.headers.get('retry-after')).not.toBeNull();
        for (const replica of both) {
            const refused = await redeem(replica, await mfaToken(replica), await nextCode());
            expect(refused.status).toBe(429);
            expect(await refused.json()).toMatchObject({ code: 'login_attempt_throttled' });
        }
    });
});
