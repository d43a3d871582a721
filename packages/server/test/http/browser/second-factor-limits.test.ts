import { expect, it } from 'vitest';
import { useTestApp } from '../../app.js';
import { authorizeParams, browser, browserWorld, enrolTotp, locationParams, nextTotpCode, setCookieLine, type BrowserWorld } from '../../browser.js';
import { describeEachDialect } from '../../databases.js';

/*
 * The browser's second-factor page under a guesser that picks its address (X-Forwarded-For under
 * TRUST_PROXY=true, the default; RFC 6238 §5.1, RFC 4226 §7.3): wrong codes are counted on the
 * pending sign-in (it dies after five) and on the user (its second factor locks after ten), never
 * on the address — the same limits as the mfa-otp grant (authn/ticket-factor.ts).
 */
describeEachDialect('browser sign-in: wrong codes from rotating addresses', (dialect) => {
    const app = useTestApp(dialect);
    let addresses = 0;
    const freshAddress = () => ({ 'x-forwarded-for': `203.0.${Math.floor(++addresses / 250)}.${addresses % 250 + 1}` });

    const enrolledWorld = async () => {
        const world = await browserWorld(app, { firstParty: true });
        return { world, ...(await enrolTotp(app, world)) };
    };
    const toSecondPage = async (world: BrowserWorld) => {
        const client = browser(app);
        const page = await client.authorize(authorizeParams(world).params);
        const second = await client.submit(page, { username: world.user.name, password: world.user.password }, freshAddress());
        expect(second.statusCode, second.body).toBe(200);
        return { client, second };
    };

    it('end the pending sign-in at the fifth: the right code then asks to sign in again', async () => {
        const { world, secret } = await enrolledWorld();
        const { client, second } = await toSecondPage(world);
        for (let attempt = 0; attempt < 4; attempt++) {
            const wrong = await client.submit(second, { otp: String(100000 + attempt) }, freshAddress());
            expect(wrong.statusCode).toBe(401);
            expect(wrong.body).toContain('The code is incorrect or was already used.');
        }
        const spent = await client.submit(second, { otp: '100004' }, freshAddress());
        expect(spent.statusCode).toBe(401);
        expect(spent.body).toContain('Too many incorrect codes. Sign in again.');
        expect(spent.body).toContain('<label for="password">Password</label>');
        const right = await client.submit(second, { otp: await nextTotpCode(secret) }, freshAddress());
        expect(right.statusCode).toBe(401);
        expect(right.body).toContain('Sign in again');
        expect(setCookieLine(right, 'realmgate_session')).toBeUndefined();
        expect(await app.deps.db.selectFrom('auth_mfa_tickets').select('id').where('user_id', '=', world.user.id).execute()).toHaveLength(0);
    });

    it('lock the user\'s second factor at the tenth over two sign-ins: 429 with Retry-After, the right code refused on a new sign-in too', async () => {
        const { world, secret, recoveryCodes } = await enrolledWorld();
        const first = await toSecondPage(world);
        for (let attempt = 0; attempt < 5; attempt++) expect((await first.client.submit(first.second, { otp: String(200000 + attempt) }, freshAddress())).statusCode).toBe(401);
        const next = await toSecondPage(world);
        for (let attempt = 0; attempt < 4; attempt++) expect((await next.client.submit(next.second, { recovery_code: `wrong-${attempt}` }, freshAddress())).statusCode).toBe(401);
        const locking = await next.client.submit(next.second, { otp: '300000' }, freshAddress());
        expect(locking.statusCode).toBe(429);
        expect(locking.headers['content-type']).toContain('text/html');
        expect(Number(locking.headers['retry-after'])).toBeGreaterThan(60);
        expect(locking.body).toContain('Two-factor sign-in is paused');

        const last = await toSecondPage(world);
        const factors: Record<string, string>[] = [{ otp: await nextTotpCode(secret) }, { recovery_code: recoveryCodes[0]! }];
        for (const factor of factors) {
            const refused = await last.client.submit(last.second, factor, freshAddress());
            expect(refused.statusCode).toBe(429);
            expect(refused.headers['retry-after']).toBeDefined();
            expect(setCookieLine(refused, 'realmgate_session')).toBeUndefined();
        }
        await app.deps.events.settled();
        const logged = await app.deps.db.selectFrom('auth_events').select('name').where('ref_id', '=', world.user.id).where('name', '=', 'secondFactorLocked').execute();
        expect(logged).toHaveLength(1);
        // another user signs in as before
        const other = await enrolledWorld();
        const open = await toSecondPage(other.world);
        expect(locationParams(await open.client.submit(open.second, { otp: await nextTotpCode(other.secret) }, freshAddress())).params.code).toBeDefined();
    });
});
