import { afterAll, beforeAll, expect, it } from 'vitest';
import { useTestApp, type TestApp } from '../../app.js';
import { describeEachDialect } from '../../databases.js';
import { createRealm, uniqueName } from '../../grant-fixtures.js';
import { linkIn, startMailServer, type MailServer } from '../../mail-server.js';
import type { Config, DeepPartial } from '../../../src/config/schema.js';

const MINUTE = 60_000;
const HOUR = 3_600_000;

/*
 * The mails a request anyone may send triggers are throttled per address (one a minute, five an
 * hour, in the counter store of the request limits), while the answers stay what they were: 202
 * for a reset (spec Endpoints: no account enumeration), 201 for a registration. The limits' clock
 * is moved instead of waiting for a window to end.
 */
describeEachDialect('mail throttled per address', (dialect) => {
    let mail: MailServer;
    const overrides: DeepPartial<Config> = {};
    let offset = 0;
    beforeAll(async () => {
        mail = await startMailServer();
        overrides.smtp = `smtp://127.0.0.1:${mail.port}?tls.rejectUnauthorized=false&from=auth%40example.test`;
    });
    afterAll(async () => mail.close());
    const app: TestApp = useTestApp(dialect, overrides, { limits: { clock: () => Date.now() + offset } });

    let realmId: string;
    const realmName = uniqueName('throttle');
    beforeAll(async () => {
        realmId = await createRealm(app, realmName);
        await app.json({ method: 'POST', url: `/realms/${realmId}`, payload: { registrationEnabled: true } }, 200);
    });

    const register = (name: string, email: string) =>
        app.request({ method: 'POST', url: `/realms/${realmId}/register`, as: null, payload: { name, email, password: 'first-password-1' } });
    const forgot = (payload: Record<string, string>) => app.request({ method: 'POST', url: `/realms/${realmId}/password-forgot`, as: null, payload });
    const mailsTo = async (email: string, subject: RegExp) => {
        await app.deps.mailer!.settled();
        return mail.received.filter((message) => message.to.includes(email) && subject.test(message.text)).length;
    };

    it('sends one reset mail for 25 requests, then one a minute and five an hour; every answer is the same 202', async () => {
        const name = uniqueName('flooded');
        const email = `${name}@example.test`;
        expect((await register(name, email)).statusCode).toBe(201);
        const answers = [];
        for (let index = 0; index < 25; index++) answers.push(await forgot(index % 2 ? { name } : { email }));
        expect(answers.map((answer) => answer.statusCode)).toEqual(Array(25).fill(202));
        expect(new Set(answers.map((answer) => answer.body)).size).toBe(1);
        expect(await mailsTo(email, /Subject: Reset your password/)).toBe(1);
        // the throttled requests stored no code of their own: the one mailed link still works
        const mailed = mail.received.find((message) => message.to.includes(email) && /Subject: Reset your password/.test(message.text))!;
        const link = new URL(linkIn(mailed, `${app.deps.config.publicUrl}/realms/${realmName}/reset-password?code=`));
        expect((await app.request({ method: 'GET', url: `${link.pathname}${link.search}`, as: null })).statusCode).toBe(200);

        const start = offset;
        try {
            // a minute later each: the second to fifth mails of the hour leave
            for (let sent = 2; sent <= 5; sent++) {
                offset += MINUTE + 1000;
                expect((await forgot({ name })).statusCode).toBe(202);
                expect((await forgot({ name })).statusCode).toBe(202);
                expect(await mailsTo(email, /Subject: Reset your password/)).toBe(sent);
            }
            // the sixth of the hour does not, though its minute is free
            offset += MINUTE + 1000;
            expect((await forgot({ name })).statusCode).toBe(202);
            expect(await mailsTo(email, /Subject: Reset your password/)).toBe(5);
            // once the hour of the first mail is over, one leaves again
            offset = start + HOUR + 1000;
            expect((await forgot({ name })).statusCode).toBe(202);
            expect(await mailsTo(email, /Subject: Reset your password/)).toBe(6);
        } finally {
            offset = start + HOUR + 1000;
        }
    });

    it('throttles activation mails to one address across registrations, and the resend of one\'s own link answers 429 with Retry-After', async () => {
        const email = `${uniqueName('target')}@example.test`;
        const names = [uniqueName('first'), uniqueName('second'), uniqueName('third')];
        for (const name of names) expect((await register(name, email)).statusCode).toBe(201);
        expect(await mailsTo(email, /Subject: Confirm your address/)).toBe(1);

        const name = names[0]!;
        const bearer = await app.json<{ access_token: string }>({
            method: 'POST', url: '/token', as: null, payload: { grant_type: 'password', username: name, password: 'first-password-1', realm_id: realmId },
        }, 200);
        const resend = await app.request({ method: 'POST', url: '/users/@me/verification', as: `Bearer ${bearer.access_token}` });
        expect(resend.statusCode, resend.body).toBe(429);
        expect(resend.json()).toMatchObject({ code: 'too_many_requests', retryAfter: 60 });
        expect(resend.headers['retry-after']).toBe('60');
        offset += MINUTE + 1000;
        expect((await app.request({ method: 'POST', url: '/users/@me/verification', as: `Bearer ${bearer.access_token}` })).statusCode).toBe(202);
        expect(await mailsTo(email, /Subject: Confirm your address/)).toBe(2);
    });
});
