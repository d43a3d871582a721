import { expect, it } from 'vitest';
import { useTestApp } from '../../app.js';
import { browser, browserWorld, createBrowserClient } from '../../browser.js';
import { describeEachDialect } from '../../databases.js';
import { authorizeDevice, DEVICE_GRANT } from '../../device-flow.js';
import { WINDOW_MS } from '../../../src/limits/limiter.js';

/*
 * RFC 8628 §5.1: user codes have little entropy, so their entry must be rate limited. Throttled
 * per address only, anonymous entry at `/device` fell to a guesser rotating addresses
 * (X-Forwarded-For under TRUST_PROXY=true); anonymous lookups now also share one throttle for the
 * whole deployment, while a browser signed in to the realm is throttled per session as before.
 */
describeEachDialect('the device page: anonymous code entry throttled as a whole', (dialect) => {
    const ANONYMOUS_MAX = 3;
    const clock = { now: 60_000 * WINDOW_MS + 1_000 };
    const app = useTestApp(dialect, {}, { limits: { clock: () => clock.now, deviceAnonymousMax: ANONYMOUS_MAX } });
    let addresses = 0;
    const newBrowser = () => browser(app, '127.0.0.1');
    const fromNewAddress = () => ({ 'x-forwarded-for': `192.0.2.${++addresses}` });

    it('refuses every address once anonymous wrong codes reach the limit in a minute; a signed-in browser still enters its code', async () => {
        const world = await browserWorld(app, { firstParty: true });
        const tv = { id: await createBrowserClient(app, world.realmId, { grantTypes: [DEVICE_GRANT] }) };
        const started = await authorizeDevice(app, tv);
        // a browser signed in to the realm before the guessing starts (through the flow of a first code)
        const signedIn = newBrowser();
        const first = await authorizeDevice(app, tv);
        const signInPage = await signedIn.get(`/device?user_code=${first.user_code}`, fromNewAddress());
        const confirm = await signedIn.submit(signInPage, { username: world.user.name, password: world.user.password }, fromNewAddress());
        expect(confirm.body).toContain('>Approve</button>');

        clock.now = (Math.floor(clock.now / WINDOW_MS) + 1) * WINDOW_MS + 1_000;
        for (let attempt = 0; attempt < ANONYMOUS_MAX; attempt++) {
            expect((await newBrowser().get('/device?user_code=ZZZZ-ZZZZ', fromNewAddress())).statusCode).toBe(400);
        }
        const refused = await newBrowser().get(`/device?user_code=${started.user_code}`, fromNewAddress());
        expect(refused.statusCode).toBe(429);
        expect(refused.headers['retry-after']).toBeDefined();
        const posted = newBrowser();
        const entry = await posted.get('/device', fromNewAddress());
        expect((await posted.submit(entry, { user_code: started.user_code }, fromNewAddress())).statusCode).toBe(429);

        const decision = await signedIn.get(`/device?user_code=${started.user_code}`, fromNewAddress());
        expect(decision.statusCode).toBe(200);
        expect(decision.body).toContain('>Approve</button>');
        // the next minute, anonymous entry works again
        clock.now = (Math.floor(clock.now / WINDOW_MS) + 1) * WINDOW_MS + 1_000;
        expect((await newBrowser().get(`/device?user_code=${started.user_code}`, fromNewAddress())).statusCode).toBe(200);
    });
});
