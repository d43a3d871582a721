import { createServer, type Server } from 'node:http';
import { MASTER_REALM } from '@realmgate/core';
import { chromium, type Browser, type BrowserContext, type CDPSession, type Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../app.js';
import { describeEachDialect } from '../databases.js';
import { freePort } from '../network.js';
import { ensureConsoleBuilt } from './console-harness.js';

/*
 * Passkeys end to end (WebAuthn Level 3, API.md §8): Debian's chromium with its virtual authenticator (CDP
 * `WebAuthn.addVirtualAuthenticator`: CTAP2, internal transport, resident keys, user verification)
 * against the real server, the account console as the application. A passkey is registered from
 * the console, then signs in with the button and with autofill, proves the second factor, is
 * refused when its counter goes back (a clone) or its user is not verified, a replayed assertion
 * and one made at another origin are refused, and its removal needs the current password.
 * PUBLIC_URL is http://localhost:<port> (a secure context whose host is a valid RP id; an IP
 * address is not). SQLite only: the SQL is the server-level tests' on every dialect, and one
 * browser per file keeps CI short.
 */
/** A page's own WebAuthn assertion (navigator.credentials.get) as AuthenticationResponseJSON, for the RP id `localhost`. */
const ASSERT_HERE = `async (challenge) => {
    const bytes = (text) => Uint8Array.from(atob(text.replace(/-/g, '+').replace(/_/g, '/').padEnd(Math.ceil(text.length / 4) * 4, '=')), (c) => c.charCodeAt(0));
    const text = (buffer) => btoa(String.fromCharCode(...new Uint8Array(buffer))).replace(/\\+/g, '-').replace(/\\//g, '_').replace(/=+$/, '');
    const got = await navigator.credentials.get({ publicKey: { challenge: bytes(challenge), rpId: 'localhost', userVerification: 'required', allowCredentials: [] } });
    const response = got.response;
    return {
        id: got.id, rawId: text(got.rawId), type: got.type, clientExtensionResults: {},
        response: {
            clientDataJSON: text(response.clientDataJSON), authenticatorData: text(response.authenticatorData), signature: text(response.signature),
            userHandle: response.userHandle ? text(response.userHandle) : undefined,
        },
    };
}`;

describeEachDialect('end to end: passkeys in chromium with a virtual authenticator', (dialect) => {
    let app: TestApp;
    let browser: Browser;
    let publicUrl: string;
    let context: BrowserContext;
    let page: Page;
    let cdp: CDPSession;
    let authenticatorId: string;
    let elsewhere: Server;
    let elsewhereUrl: string;
    const erin = { id: '', name: 'erin', password: 'erin-password-1' };

    beforeAll(async () => {
        ensureConsoleBuilt();
        const port = await freePort();
        publicUrl = `http://localhost:${port}`;
        app = await startTestApp(dialect, { publicUrl }, { consoles: ['account'] });
        await app.app.listen({ port, host: '127.0.0.1' });
        // another origin of the same host (another port): a page there may use the RP id `localhost` too
        elsewhere = createServer((_request, response) => response.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>elsewhere</title>'));
        const otherPort = await freePort();
        await new Promise<void>((resolve) => elsewhere.listen(otherPort, '127.0.0.1', resolve));
        elsewhereUrl = `http://localhost:${otherPort}`;
        browser = await chromium.launch({
            executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
            args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu', '--host-resolver-rules=MAP localhost 127.0.0.1'],
        });
        erin.id = (await app.json<{ data: { id: string } }>({ method: 'POST', url: '/users', payload: { name: erin.name, password: erin.password, emailVerified: true } }, 201)).data.id;
        // the self-service grant, given explicitly (no realm default role is assumed)
        const selfManage = await app.deps.db.selectFrom('auth_permissions').select('id').where('name', '=', 'user_self_manage').where('realm_id', 'is', null).executeTakeFirstOrThrow();
        await app.json({ method: 'POST', url: '/user-permissions', payload: { userId: erin.id, permissionId: selfManage.id } }, 201);
        context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
        context.setDefaultTimeout(10_000);
        page = await context.newPage();
        cdp = await context.newCDPSession(page);
        await cdp.send('WebAuthn.enable', { enableUI: false });
        authenticatorId = (await cdp.send('WebAuthn.addVirtualAuthenticator', {
            options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
        })).authenticatorId;
    }, 120_000);
    afterAll(async () => {
        await browser?.close();
        await new Promise((resolve) => elsewhere?.close(resolve));
        await app?.dispose();
    });

    /** signed out: no cookie of the server, the console's sign-in page of the master realm */
    async function toSignInPage(): Promise<void> {
        await context.clearCookies();
        await page.goto(`${publicUrl}/console/account/?realm=${MASTER_REALM}`);
        await page.getByLabel('Username or email').waitFor();
    }

    const passkeyRows = () => app.deps.db.selectFrom('auth_user_authenticators').select(['id', 'name', 'sign_count']).where('user_id', '=', erin.id).where('type', '=', 'webauthn').execute();
    const events = async (name: string) => {
        await app.deps.events.settled();
        return app.deps.db.selectFrom('auth_events').select(['name', 'ref_id']).where('name', '=', name).execute();
    };

    it('registers a passkey from the account console (after skipping the offer that follows the password sign-in)', async () => {
        await toSignInPage();
        await page.getByLabel('Username or email').fill(erin.name);
        await page.getByLabel('Password').fill(erin.password);
        // the page's script has asked the browser whether a passkey could be made here
        await expect.poll(() => page.locator('input[name="passkey_capable"]').inputValue()).toBe('1');
        await page.getByRole('button', { name: 'Sign in', exact: true }).click();
        await page.getByRole('heading', { name: 'Add a passkey to sign in faster' }).waitFor();
        await page.getByRole('button', { name: 'Skip' }).click();
        await page.getByRole('heading', { name: 'Your profile' }).waitFor();

        await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Two-factor authentication', exact: true }).click();
        await page.getByRole('heading', { name: 'Add a passkey', exact: true }).waitFor();
        await page.getByLabel('Current password').fill(erin.password);
        await page.getByLabel('Name of the passkey').fill('Laptop');
        await page.getByRole('button', { name: 'Add a passkey' }).click();
        await page.getByText('Laptop is added').waitFor();
        expect((await passkeyRows()).map((row) => row.name)).toEqual(['Laptop']);
        const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
        expect(credentials).toHaveLength(1);
        expect(credentials[0]!.isResidentCredential).toBe(true);
        expect(await events('user_authenticator.created')).toHaveLength(1);
    });

    it('signs in with passkey autofill in the username field (conditional mediation)', async () => {
        await context.clearCookies();
        const signInPage = page.waitForResponse((response) => response.url().startsWith(`${publicUrl}/authorize?`));
        await page.goto(`${publicUrl}/console/account/?realm=${MASTER_REALM}`);
        // the page signs in at once (the virtual authenticator answers its autofill request), which may
        // leave the browser without the body: the same request is answered again to read it
        const html = await (await fetch((await signInPage).url())).text();
        expect(html).toContain('autocomplete="username webauthn"');
        // the virtual authenticator answers the conditional request the page started on load
        await page.getByRole('heading', { name: 'Your profile' }).waitFor();
        // from here on the browser offers no autofill, so each page waits for the button or the password
        // (the virtual authenticator would answer every conditional request at once)
        await page.addInitScript("Object.defineProperty(PublicKeyCredential, 'isConditionalMediationAvailable', { value: () => Promise.resolve(false) });");
    });

    it('signs in with the "Sign in with a passkey" button; a replay of the posted assertion is refused', async () => {
        await toSignInPage();
        const posted = page.waitForRequest((request) => request.url() === `${publicUrl}/authorize/passkey` && request.method() === 'POST');
        await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
        const form = (await posted).postData()!;
        await page.getByRole('heading', { name: 'Your profile' }).waitFor();
        const row = (await passkeyRows())[0]!;
        expect(Number(row.sign_count)).toBeGreaterThan(0);
        expect((await events('passkeyUsed')).filter((event) => event.ref_id === row.id).length).toBeGreaterThan(0);
        // the same form again (its challenge spent, its counter not grown): refused, no new session
        const replayed = await context.request.post(`${publicUrl}/authorize/passkey`, {
            headers: { 'content-type': 'application/x-www-form-urlencoded', origin: publicUrl }, data: form, maxRedirects: 0,
        });
        expect(replayed.status()).toBe(401);
        expect(await replayed.text()).toContain('The passkey could not be verified');
    });

    it('refuses an assertion made at another origin, and a passkey whose user is not verified', async () => {
        await toSignInPage();
        const fields = Object.fromEntries(await page.locator('form[data-passkey="sign-in"] input[type="hidden"]').evaluateAll(
            (inputs) => inputs.map((input) => [input.getAttribute('name') ?? '', input.getAttribute('value') ?? ''] as const),
        ));
        const options = await page.evaluate(async (body) => (await (await fetch('/authorize/passkey-options', { method: 'POST', body: new URLSearchParams(body) })).json()) as { options: { challenge: string } },
            { ...fields, ceremony: 'sign-in' });
        // another origin of the same host runs the ceremony with that challenge
        const other = await context.newPage();
        const otherCdp = await context.newCDPSession(other);
        await otherCdp.send('WebAuthn.enable', { enableUI: false });
        const otherAuthenticator = (await otherCdp.send('WebAuthn.addVirtualAuthenticator', {
            options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
        })).authenticatorId;
        const [credential] = (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials;
        await otherCdp.send('WebAuthn.addCredential', { authenticatorId: otherAuthenticator, credential: credential! });
        await other.goto(elsewhereUrl);
        const assertion = await other.evaluate<Record<string, unknown>>(`(${ASSERT_HERE})(${JSON.stringify(options.options.challenge)})`);
        await other.close();
        const refused = await context.request.post(`${publicUrl}/authorize/passkey`, {
            headers: { origin: publicUrl }, form: { ...fields, passkey_response: JSON.stringify(assertion) }, maxRedirects: 0,
        });
        expect(refused.status()).toBe(401);

        // user verification missing: the browser refuses what the options require, nothing is posted
        await cdp.send('WebAuthn.setUserVerified', { authenticatorId, isUserVerified: false });
        try {
            await toSignInPage();
            await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
            await page.getByText('The passkey did not work. Try again.').waitFor();
            expect(page.url()).not.toContain('/console/account/?');
        } finally {
            await cdp.send('WebAuthn.setUserVerified', { authenticatorId, isUserVerified: true });
        }
    });

    it('offers the passkey beside the code as a second factor when the realm asks for one', async () => {
        await app.json({ method: 'POST', url: '/realms/master', payload: { mfaEnabled: true } }, 200);
        try {
            await toSignInPage();
            await page.getByLabel('Username or email').fill(erin.name);
            await page.getByLabel('Password').fill(erin.password);
            await page.getByRole('button', { name: 'Sign in', exact: true }).click();
            await page.getByRole('heading', { name: 'Two-factor authentication' }).waitFor();
            await page.getByRole('button', { name: 'Use a passkey' }).click();
            await page.getByRole('heading', { name: 'Your profile' }).waitFor();
        } finally {
            await app.json({ method: 'POST', url: '/realms/master', payload: { mfaEnabled: false } }, 200);
        }
    });

    it('refuses a cloned authenticator (its counter set back) and records it', async () => {
        const [credential] = (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials;
        expect(credential!.signCount).toBeGreaterThan(1);
        await cdp.send('WebAuthn.removeCredential', { authenticatorId, credentialId: credential!.credentialId });
        await cdp.send('WebAuthn.addCredential', { authenticatorId, credential: { ...credential!, signCount: 0 } });
        await toSignInPage();
        await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
        await page.getByText('The passkey could not be verified').waitFor();
        expect(await events('passkeyCloneSuspected')).toHaveLength(1);
    });

    it('removes the passkey only with the current password', async () => {
        await context.clearCookies();
        await page.goto(`${publicUrl}/console/account/?realm=${MASTER_REALM}`);
        await page.getByLabel('Username or email').fill(erin.name);
        await page.getByLabel('Password').fill(erin.password);
        await page.getByRole('button', { name: 'Sign in', exact: true }).click();
        await page.getByRole('heading', { name: 'Your profile' }).waitFor();
        await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Two-factor authentication', exact: true }).click();
        await page.getByRole('button', { name: 'Remove Laptop' }).click();
        await page.getByRole('dialog', { name: 'Remove Laptop?' }).getByRole('button', { name: 'Remove authenticator' }).click();
        await page.locator('.state-error').waitFor();
        expect(await passkeyRows()).toHaveLength(1);
        await page.getByLabel('Current password').fill(erin.password);
        await page.getByRole('button', { name: 'Remove Laptop' }).click();
        await page.getByRole('dialog', { name: 'Remove Laptop?' }).getByRole('button', { name: 'Remove authenticator' }).click();
        await page.getByText('Laptop is removed.').waitFor();
        expect(await passkeyRows()).toEqual([]);
        expect(await events('user_authenticator.deleted')).toHaveLength(1);
    });
}, ['sqlite']);
