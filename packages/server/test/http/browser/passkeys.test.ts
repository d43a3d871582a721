import { beforeEach, expect, it } from 'vitest';
import { useTestApp, type TestApp } from '../../app.js';
import { authorizeParams, browser, browserWorld, codeRow, enrolTotp, hiddenFields, locationParams, type BrowserWorld } from '../../browser.js';
import { describeEachDialect } from '../../databases.js';
import { SoftwareAuthenticator, type CeremonyKnobs } from '../../software-authenticator.js';
import { relyingPartyOf } from '../../../src/authn/passkey-ceremonies.js';
import { WINDOW_MS } from '../../../src/limits/limiter.js';
import { ACR } from '../../../src/tokens/claims.js';

/*
 * Passkeys (API.md §8) at the sign-in pages, with a software authenticator (test/software-authenticator.ts):
 * the discoverable sign-in, a passkey as the second factor, the refusals a browser would not let us
 * provoke (a wrong origin, a replayed challenge, a missing user verification, a counter that went
 * back, another realm's credential), the limits, and the realm switch.
 */

/** The acr of the browser session a minted code belongs to (OIDC Core §2: the strength of the sign-in). */
async function sessionAcrOf(app: TestApp, code: string): Promise<string | null> {
    const row = await codeRow(app, code);
    const session = await app.deps.db.selectFrom('auth_sessions').select('acr').where('id', '=', row!.session_id).executeTakeFirstOrThrow();
    return session.acr;
}

/** An administrator registers a passkey for the world's user (no fresh proof: its permission is the proof). */
async function registerFor(app: TestApp, world: BrowserWorld): Promise<{ authenticator: SoftwareAuthenticator; id: string }> {
    const rp = relyingPartyOf(app.deps.config.publicUrl);
    const authenticator = new SoftwareAuthenticator(rp.id, rp.origin, world.user.id);
    const options = await app.json<{ data: { challenge: string } }>({
        method: 'POST', url: '/user-authenticators/webauthn/registration-options', payload: { userId: world.user.id },
    }, 200);
    const created = await app.json<{ data: { id: string } }>({
        method: 'POST', url: '/user-authenticators/webauthn/registration', payload: { name: 'Laptop', userId: world.user.id, response: authenticator.register(options.data.challenge) },
    }, 201);
    return { authenticator, id: created.data.id };
}

describeEachDialect('browser sign-in with a passkey (API.md §8)', (dialect) => {
    const clock = { now: 50_000 * WINDOW_MS + 1_000 };
    const app = useTestApp(dialect, { rateLimit: { userMax: 1_000_000, clientMax: 1_000_000, anonymousMax: 1_000_000 } }, {
        limits: { failureMax: 1_000, clock: () => clock.now },
    });
    beforeEach(() => {
        clock.now = (Math.floor(clock.now / WINDOW_MS) + 1) * WINDOW_MS + 1_000;
    });
    let addresses = 0;

    /** a browser at the sign-in page, the options of a discoverable sign-in, and a way to post an answer */
    const atSignIn = async (world: BrowserWorld) => {
        const client = browser(app, `198.51.100.${++addresses}`);
        const page = await client.authorize(authorizeParams(world).params);
        const fields = hiddenFields(page.body);
        const options = async () => {
            const answer = await client.post('/authorize/passkey-options', { ...fields, ceremony: 'sign-in' });
            expect(answer.statusCode, answer.body).toBe(200);
            return answer.json<{ options: { challenge: string; allowCredentials: unknown[]; userVerification: string; rpId: string } }>().options;
        };
        const signIn = (response: unknown) => client.post('/authorize/passkey', { ...fields, passkey_response: JSON.stringify(response) });
        return { client, page, fields, options, signIn };
    };

    it('shows the button and autofill, and signs in with a discoverable passkey: the session states acr mfa, the use is evented', async () => {
        const world = await browserWorld(app, { firstParty: true });
        const { authenticator, id } = await registerFor(app, world);
        const { page, options, signIn } = await atSignIn(world);
        expect(page.body).toContain('Sign in with a passkey');
        expect(page.body).toContain('autocomplete="username webauthn"');
        expect(page.body).toContain('<script src="/assets/passkey.js" defer></script>');
        expect(page.headers['content-security-policy']).toContain("connect-src 'self'");
        const offered = await options();
        expect(offered.allowCredentials).toEqual([]);
        expect(offered.userVerification).toBe('required');
        expect(offered.rpId).toBe(relyingPartyOf(app.deps.config.publicUrl).id);
        const answer = await signIn(authenticator.assert(offered.challenge));
        const { base, params } = locationParams(answer);
        expect(base).toBe(world.redirectUri);
        expect(await sessionAcrOf(app, params.code!)).toBe(ACR.SECOND_FACTOR);
        await app.deps.events.settled();
        const used = await app.deps.db.selectFrom('auth_events').select(['name', 'data']).where('ref_id', '=', id).where('name', '=', 'passkeyUsed').execute();
        expect(used).toHaveLength(1);
        const row = await app.deps.db.selectFrom('auth_user_authenticators').select(['sign_count', 'last_used_at']).where('id', '=', id).executeTakeFirstOrThrow();
        expect(Number(row.sign_count)).toBe(authenticator.counter);
        expect(row.last_used_at).not.toBeNull();
    });

    it('refuses a wrong origin, another RP id, a missing user verification and a replayed challenge', async () => {
        const world = await browserWorld(app, { firstParty: true });
        const { authenticator } = await registerFor(app, world);
        const cases: CeremonyKnobs[] = [{ origin: 'https://evil.example' }, { rpId: 'evil.example' }, { userVerified: false }];
        for (const knobs of cases) {
            const { options, signIn } = await atSignIn(world);
            const refused = await signIn(authenticator.assert((await options()).challenge, knobs));
            expect(refused.statusCode, JSON.stringify(knobs)).toBe(401);
            expect(refused.body).toContain('The passkey could not be verified');
        }
        const { options, signIn } = await atSignIn(world);
        const challenge = (await options()).challenge;
        expect(locationParams(await signIn(authenticator.assert(challenge))).params.code).toBeDefined();
        // the same challenge again, even with a fresh signature and a grown counter: spent
        const replayed = await signIn(authenticator.assert(challenge));
        expect(replayed.statusCode).toBe(401);
        expect(replayed.headers.location).toBeUndefined();
    });

    it('spends a challenge once between two concurrent sign-ins presenting it', async () => {
        const world = await browserWorld(app, { firstParty: true });
        const { authenticator } = await registerFor(app, world);
        const { options, signIn } = await atSignIn(world);
        const challenge = (await options()).challenge;
        const answers = await Promise.all([signIn(authenticator.assert(challenge)), signIn(authenticator.assert(challenge))]);
        expect(answers.map((answer) => answer.statusCode).sort()).toEqual([303, 401]);
    });

    it('refuses a counter that went back as a possibly cloned authenticator, evented without key material', async () => {
        const world = await browserWorld(app, { firstParty: true });
        const { authenticator, id } = await registerFor(app, world);
        const first = await atSignIn(world);
        expect(locationParams(await first.signIn(authenticator.assert(await first.options().then((o) => o.challenge), { signCount: 7 }))).params.code).toBeDefined();
        const clone = await atSignIn(world);
        const refused = await clone.signIn(authenticator.assert((await clone.options()).challenge, { signCount: 3 }));
        expect(refused.statusCode).toBe(401);
        await app.deps.events.settled();
        const events = await app.deps.db.selectFrom('auth_events').select(['name', 'data']).where('ref_id', '=', id).where('name', '=', 'passkeyCloneSuspected').execute();
        expect(events).toHaveLength(1);
        expect(JSON.parse(String(events[0]!.data))).toEqual({ storedCounter: 7, presentedCounter: 3 });
        const stored = await app.deps.db.selectFrom('auth_user_authenticators').select(['public_key', 'sign_count']).where('id', '=', id).executeTakeFirstOrThrow();
        expect(String(events[0]!.data)).not.toContain(stored.public_key!);
        expect(Number(stored.sign_count)).toBe(7);
    });

    it('never signs a realm A passkey in to realm B', async () => {
        const worldA = await browserWorld(app, { firstParty: true });
        const worldB = await browserWorld(app, { firstParty: true });
        const { authenticator } = await registerFor(app, worldA);
        const atB = await atSignIn(worldB);
        const refused = await atB.signIn(authenticator.assert((await atB.options()).challenge));
        expect(refused.statusCode).toBe(401);
        // nor does a challenge issued for realm B's sign-in serve realm A
        const atA = await atSignIn(worldA);
        expect((await atA.signIn(authenticator.assert((await atB.options()).challenge))).statusCode).toBe(401);
    });

    it('offers a passkey beside the code on the second-factor page and accepts it; failed assertions count toward the user\'s second-factor lock', async () => {
        const world = await browserWorld(app, { firstParty: true });
        await enrolTotp(app, world);
        const { authenticator } = await registerFor(app, world);
        const client = browser(app, `198.51.100.${++addresses}`);
        const page = await client.authorize(authorizeParams(world).params);
        const second = await client.submit(page, { username: world.user.name, password: world.user.password });
        expect(second.body).toContain('Use a passkey');
        expect(second.body).toContain('<label for="otp">Authentication code</label>');
        const fields = hiddenFields(second.body);
        const options = async () => (await client.post('/authorize/passkey-options', { ...fields, ceremony: 'second-factor' })).json<{ options: { challenge: string; allowCredentials: { id: string }[] } }>().options;
        const offered = await options();
        expect(offered.allowCredentials.map((credential) => credential.id)).toEqual([authenticator.id]);
        const wrong = await client.post('/authorize/second-factor', { ...fields, passkey_response: JSON.stringify(authenticator.assert(offered.challenge, { userVerified: false })) });
        expect(wrong.statusCode).toBe(401);
        expect(wrong.body).toContain('The passkey could not be verified');
        const answer = await client.post('/authorize/second-factor', { ...fields, passkey_response: JSON.stringify(authenticator.assert((await options()).challenge)) });
        expect(locationParams(answer).base).toBe(world.redirectUri);
        expect(await sessionAcrOf(app, locationParams(answer).params.code!)).toBe(ACR.SECOND_FACTOR);

        // a passkey-only user: the page offers no code field; ten failed assertions lock its second factor
        const lone = await browserWorld(app, { firstParty: true });
        await app.json({ method: 'POST', url: `/realms/${lone.realmId}`, payload: { mfaEnabled: true } }, 200);
        const { authenticator: only } = await registerFor(app, lone);
        let locked = false;
        for (let attempt = 0; attempt < 12 && !locked; attempt++) {
            const browserOf = browser(app, `198.51.100.${++addresses}`);
            const secondPage = await browserOf.submit(await browserOf.authorize(authorizeParams(lone).params), { username: lone.user.name, password: lone.user.password });
            if (attempt === 0) expect(secondPage.body).not.toContain('name="otp"');
            const secondFields = hiddenFields(secondPage.body);
            const challenge = (await browserOf.post('/authorize/passkey-options', { ...secondFields, ceremony: 'second-factor' })).json<{ options: { challenge: string } }>().options.challenge;
            const refused = await browserOf.post('/authorize/second-factor', { ...secondFields, passkey_response: JSON.stringify(only.assert(challenge, { origin: 'https://evil.example' })) });
            locked = refused.statusCode === 429;
            if (!locked) expect(refused.statusCode).toBe(401);
            else expect(attempt).toBe(9);
        }
        expect(locked).toBe(true);
    });

    it('with passkeysEnabled false: no button, options answer 403, and a posted assertion is refused', async () => {
        const world = await browserWorld(app, { firstParty: true });
        const { authenticator } = await registerFor(app, world);
        const { options, signIn } = await atSignIn(world);
        const challenge = (await options()).challenge;
        await app.json({ method: 'POST', url: `/realms/${world.realmId}`, payload: { passkeysEnabled: false } }, 200);
        const { page, client, fields } = await atSignIn(world);
        expect(page.body).not.toContain('Sign in with a passkey');
        expect(page.body).toContain('autocomplete="username"');
        const refused = await client.post('/authorize/passkey-options', { ...fields, ceremony: 'sign-in' });
        expect(refused.statusCode).toBe(403);
        expect(refused.json()).toMatchObject({ code: 'access_denied' });
        const posted = await signIn(authenticator.assert(challenge));
        expect(posted.statusCode).toBe(403);
        expect(posted.body).toContain('Passkeys are not enabled for this realm');
        expect((await app.request({
            method: 'POST', url: '/user-authenticators/webauthn/registration-options', payload: { userId: world.user.id },
        })).statusCode).toBe(403);
    });

    it('answers malformed passkey forms with the page, never a server error', async () => {
        const world = await browserWorld(app, { firstParty: true });
        const { client, fields, signIn } = await atSignIn(world);
        for (const response of ['', 'not json', '{}', '[1]', JSON.stringify({ id: 'x', type: 'public-key', response: { clientDataJSON: 5 } })]) {
            const answer = await client.post('/authorize/passkey', { ...fields, passkey_response: response });
            expect(answer.statusCode, response).toBe(401);
        }
        expect((await signIn({ id: 'AAAA', rawId: 'AAAA', type: 'public-key', response: { clientDataJSON: 'AAAA', authenticatorData: 'AA', signature: 'AA' } })).statusCode).toBe(401);
        expect((await client.post('/authorize/passkey-options', { ...fields, ceremony: 'other' })).statusCode).toBe(400);
        expect((await client.post('/authorize/passkey-options', { ...fields, csrf: 'x'.repeat(43), ceremony: 'sign-in' })).statusCode).toBe(403);
        expect((await client.post('/authorize/passkey-options', { ...fields, ceremony: 'second-factor' })).statusCode).toBe(401);
        expect((await client.post('/authorize/passkey-options', { ...fields, ceremony: 'registration' })).statusCode).toBe(401);
    });

    it('offers to add a passkey after a password sign-in in a browser that can make one (passkeyPrompt), skippable, and registers it', async () => {
        const world = await browserWorld(app, { firstParty: true });
        const rp = relyingPartyOf(app.deps.config.publicUrl);
        const signInWithPassword = async (capable: string) => {
            const client = browser(app, `198.51.100.${++addresses}`);
            const page = await client.authorize(authorizeParams(world).params);
            expect(page.body).toContain('name="passkey_capable"');
            return { client, answer: await client.submit(page, { username: world.user.name, password: world.user.password, passkey_capable: capable }) };
        };
        // a browser without a platform authenticator (or without JavaScript) goes straight on
        expect(locationParams((await signInWithPassword('')).answer).base).toBe(world.redirectUri);
        const skipped = await signInWithPassword('1');
        expect(skipped.answer.statusCode).toBe(200);
        expect(skipped.answer.body).toContain('Add a passkey to sign in faster');
        expect(locationParams(await skipped.client.submit(skipped.answer, { skip: '1' })).base).toBe(world.redirectUri);

        const { client, answer: prompt } = await signInWithPassword('1');
        const fields = hiddenFields(prompt.body);
        const options = (await client.post('/authorize/passkey-options', { ...fields, ceremony: 'registration' })).json<{ options: { challenge: string; user: { id: string } } }>().options;
        expect(Buffer.from(options.user.id, 'base64url').toString()).toBe(world.user.id);
        const authenticator = new SoftwareAuthenticator(rp.id, rp.origin, world.user.id);
        const failed = await client.post('/authorize/passkey-prompt', { ...fields, passkey_response: JSON.stringify(authenticator.register(options.challenge, { userVerified: false })) });
        expect(failed.statusCode).toBe(400);
        expect(failed.body).toContain('The passkey was not added');
        const retry = (await client.post('/authorize/passkey-options', { ...fields, ceremony: 'registration' })).json<{ options: { challenge: string } }>().options;
        const done = await client.post('/authorize/passkey-prompt', { ...fields, passkey_response: JSON.stringify(authenticator.register(retry.challenge)) });
        expect(locationParams(done).base).toBe(world.redirectUri);
        const stored = await app.deps.db.selectFrom('auth_user_authenticators').select(['type', 'name']).where('user_id', '=', world.user.id).execute();
        expect(stored).toEqual([{ type: 'webauthn', name: 'Passkey' }]);
        // holding one now, the user is not asked again
        expect(locationParams((await signInWithPassword('1')).answer).base).toBe(world.redirectUri);

        // and a realm with passkeyPrompt off never asks
        const quiet = await browserWorld(app, { firstParty: true });
        await app.json({ method: 'POST', url: `/realms/${quiet.realmId}`, payload: { passkeyPrompt: false } }, 200);
        const other = browser(app, `198.51.100.${++addresses}`);
        const page = await other.authorize(authorizeParams(quiet).params);
        expect(locationParams(await other.submit(page, { username: quiet.user.name, password: quiet.user.password, passkey_capable: '1' })).base).toBe(quiet.redirectUri);
    });
});
