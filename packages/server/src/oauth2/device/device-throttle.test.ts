import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestApp, useTestApp, type TestApp } from '../../../test/app.js';
import { describeEachDialect } from '../../../test/databases.js';
import { authorizeDevice, DEVICE_GRANT, verify } from '../../../test/device-flow.js';
import { createRealm } from '../../../test/grant-fixtures.js';
import { createClient, createUser } from '../../../test/identities.js';
import { login } from '../../../test/sessions.js';
import { DEVICE_VERIFICATION_MAX } from '../../limits/device-verification.js';
import { WINDOW_MS } from '../../limits/limiter.js';

/** A limiter clock one second into a window; `next` moves it one second into the next window. */
function windowClock() {
    const clock = { now: 30_000 * WINDOW_MS + 1_000, next() {
        clock.now = (Math.floor(clock.now / WINDOW_MS) + 1) * WINDOW_MS + 1_000;
    } };
    return clock;
}

const WRONG = 'ZZZZ-ZZZZ';

describeEachDialect('device user-code entry is throttled per address and per session (RFC 8628 §5.1)', (dialect) => {
    const clock = windowClock();
    const app = useTestApp(dialect, {}, { limits: { clock: () => clock.now } });
    let realm: string;
    let user: { name: string; password: string };
    let client: { id: string; secret: string };
    beforeAll(async () => {
        realm = await createRealm(app);
        user = await createUser(app, realm);
        client = await createClient(app, realm, undefined, { grantTypes: [DEVICE_GRANT] });
    });
    beforeEach(() => clock.next());
    const bearer = async () => (await login(app, realm, user.name, user.password)).bearer;

    it(`answers 429 device_verification_throttled with Retry-After after ${DEVICE_VERIFICATION_MAX} wrong codes, until the window ends`, async () => {
        const started = await authorizeDevice(app, client);
        const [first, second] = [await bearer(), await bearer()];
        for (let index = 0; index < DEVICE_VERIFICATION_MAX; index++) {
            expect((await verify(app, 'lookup', first, WRONG, '198.51.100.1')).statusCode).toBe(404);
        }
        // even the right code is refused now, by every action: guessing cannot go on
        for (const action of ['lookup', 'approve', 'deny'] as const) {
            const refused = await verify(app, action, first, started.user_code, '198.51.100.1');
            expect(refused.statusCode).toBe(429);
            expect(refused.json()).toMatchObject({ code: 'device_verification_throttled', retryAfter: 59 });
            expect(refused.headers['retry-after']).toBe('59');
        }
        // per session: the same session from another address
        expect((await verify(app, 'lookup', first, started.user_code, '198.51.100.2')).statusCode).toBe(429);
        // per address: another session from the same address
        expect((await verify(app, 'lookup', second, started.user_code, '198.51.100.1')).statusCode).toBe(429);
        // neither: answered
        expect((await verify(app, 'lookup', second, started.user_code, '198.51.100.3')).statusCode).toBe(200);
        clock.next();
        expect((await verify(app, 'approve', first, started.user_code, '198.51.100.1')).statusCode).toBe(200);
    });

    it('counts only wrong codes: right ones never throttle', async () => {
        const started = await authorizeDevice(app, client);
        const session = await bearer();
        for (let index = 0; index < DEVICE_VERIFICATION_MAX + 2; index++) {
            expect((await verify(app, 'lookup', session, started.user_code, '198.51.100.4')).statusCode).toBe(200);
        }
    });

    it('a malformed code is a wrong code too (never a 500)', async () => {
        const session = await bearer();
        expect((await verify(app, 'lookup', session, '', '198.51.100.5')).statusCode).toBe(400);
        for (const typed of ['AEIOU-123', 'x'.repeat(64)]) {
            expect((await verify(app, 'lookup', session, typed, '198.51.100.5')).statusCode).toBe(404);
        }
    });
});

// like describeEachDialect: without TEST_REDIS_URL no test is registered (set and unreachable fails)
if (process.env.TEST_REDIS_URL) describe('device user-code throttle shared through Redis by two app instances', () => {
    const clock = windowClock();
    let a: TestApp;
    let b: TestApp;
    beforeAll(async () => {
        const prefix = `realmgate:test:${randomBytes(6).toString('hex')}:`;
        const options = { limits: { prefix, clock: () => clock.now } };
        [a, b] = await Promise.all([startTestApp('sqlite', { redisUrl: process.env.TEST_REDIS_URL! }, options), startTestApp('sqlite', { redisUrl: process.env.TEST_REDIS_URL! }, options)]);
    });
    afterAll(async () => {
        await a?.dispose();
        await b?.dispose();
    });

    it('refuses on one replica an address that entered wrong codes on the other', async () => {
        const bearerOf = async (app: TestApp) => {
            const realm = await createRealm(app);
            const user = await createUser(app, realm);
            return (await login(app, realm, user.name, user.password)).bearer;
        };
        const [onA, onB] = [await bearerOf(a), await bearerOf(b)];
        for (let index = 0; index < DEVICE_VERIFICATION_MAX; index++) expect((await verify(a, 'lookup', onA, WRONG, '192.0.2.7')).statusCode).toBe(404);
        expect((await verify(b, 'lookup', onB, WRONG, '192.0.2.7')).statusCode).toBe(429);
        expect((await verify(b, 'lookup', onB, WRONG, '192.0.2.8')).statusCode).toBe(404);
    });
});
