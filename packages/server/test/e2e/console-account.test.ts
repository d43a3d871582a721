import { join } from 'node:path';
import { MASTER_REALM } from '@realmgate/core';
import { generate } from 'otplib';
import { chromium, type Browser, type BrowserContext, type ConsoleMessage, type Page, type Request, type Response } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { recordConsent } from '../../src/storage/consents.js';
import { insertIdentityLink } from '../../src/storage/identity-providers.js';
import { startTestApp, type TestApp } from '../app.js';
import { axeViolations, ensureConsoleBuilt } from './console-harness.js';
import { nextTotpCode } from '../browser.js';
import { describeEachDialect } from '../databases.js';
import { startMailServer, type MailServer } from '../mail-server.js';
import { freePort } from '../network.js';

/*
 * The account console in Debian's chromium against the real server on loopback,
 * serving the built console (`npm run build -w @realmgate/console`) with the console session: a
 * plain user — no permission beyond user_self_manage, the self-service grant — signs in, every
 * page loads clean (no console error, no failed request, no serious axe-core violation at 360 px
 * and on a desktop), and the scenarios run through the pages as a person would. One browser.
 */
const PAGES = [
    { nav: 'Profile', heading: 'Your profile' },
    { nav: 'Password', heading: 'Password' },
    { nav: 'Sessions', heading: 'Sessions' },
    { nav: 'Two-factor authentication', heading: 'Two-factor authentication' },
    { nav: 'Linked accounts', heading: 'Linked accounts' },
    { nav: 'Applications', heading: 'Applications' },
] as const;

/** CONSOLE_SCREENSHOTS=<folder>: the main pages are saved there as PNG (the consoles guide's pictures come from docs/screenshots). */
const SCREENSHOTS = process.env.CONSOLE_SCREENSHOTS;
const screenshot = async (page: Page, name: string) => {
    if (SCREENSHOTS) await page.screenshot({ path: join(SCREENSHOTS, `account-${name}.png`) });
};

interface Watch { problems: string[]; stop(): void }

/** Console errors, failed requests and error answers of a page, from now on. */
function watch(page: Page): Watch {
    const problems: string[] = [];
    const onConsole = (message: ConsoleMessage) => { if (message.type() === 'error') problems.push(`console: ${message.text()}`); };
    const onError = (error: Error) => problems.push(`page error: ${error.message}`);
    const onFailed = (request: Request) => problems.push(`failed: ${request.method()} ${request.url()} ${request.failure()?.errorText ?? ''}`);
    const onResponse = (response: Response) => { if (response.status() >= 400) problems.push(`${response.status()}: ${response.request().method()} ${response.url()}`); };
    page.on('console', onConsole).on('pageerror', onError).on('requestfailed', onFailed).on('response', onResponse);
    return {
        problems,
        stop: () => { page.off('console', onConsole).off('pageerror', onError).off('requestfailed', onFailed).off('response', onResponse); },
    };
}

describeEachDialect('end to end: the account console in chromium', (dialect) => {
    let app: TestApp;
    let mail: MailServer;
    let browser: Browser;
    let publicUrl: string;
    let context: BrowserContext;
    let page: Page;
    const carol = { id: '', name: 'carol', password: 'carol-password-1', email: 'carol@example.test' };

    beforeAll(async () => {
        ensureConsoleBuilt();
        mail = await startMailServer();
        const port = await freePort();
        publicUrl = `http://127.0.0.1:${port}`;
        app = await startTestApp(dialect, { publicUrl, smtp: `smtp://127.0.0.1:${mail.port}?tls.rejectUnauthorized=false&from=auth%40example.test` }, { consoles: ['account'] });
        await app.app.listen({ port, host: '127.0.0.1' });
        browser = await chromium.launch({
            executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
            args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
        });
        // a plain user of the master realm (where the consoles' client lives): only the self-service grant
        carol.id = (await app.json<{ data: { id: string } }>({ method: 'POST', url: '/users', payload: { name: carol.name, password: carol.password, email: carol.email, emailVerified: true } }, 201)).data.id;
        const selfManage = await app.deps.db.selectFrom('auth_permissions').select('id').where('name', '=', 'user_self_manage').where('realm_id', 'is', null).executeTakeFirstOrThrow();
        await app.json({ method: 'POST', url: '/user-permissions', payload: { userId: carol.id, permissionId: selfManage.id } }, 201);
        context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
        page = await context.newPage();
        // a step that cannot happen fails on its own, well inside the test's time
        context.setDefaultTimeout(10_000);
        await signIn(page);
    }, 120_000);
    afterAll(async () => {
        await browser?.close();
        await app?.dispose();
        await mail?.close();
    });

    /** the console, the realm's sign-in page (and the second factor if `code` is given), back to the console */
    async function signIn(target: Page, password = carol.password, code?: () => Promise<string>, name = carol.name, realm = MASTER_REALM): Promise<void> {
        // the realm-scoped entry: the tab signs in through that realm's admin-console client
        await target.goto(`${publicUrl}/console/account/?realm=${realm}`);
        await target.getByLabel('Username or email').fill(name);
        await target.getByLabel('Password').fill(password);
        await target.getByRole('button', { name: 'Sign in', exact: true }).click();
        if (code) {
            await target.getByLabel('Authentication code').fill(await code());
            await target.getByRole('button', { name: 'Verify' }).click();
        }
        await target.getByRole('heading', { name: 'Your profile' }).waitFor();
    }

    const open = async (target: Page, nav: string, heading: string) => {
        // a narrow screen folds the menu behind its button
        const menu = target.getByRole('button', { name: 'Menu' });
        if (await menu.isVisible() && await menu.getAttribute('aria-expanded') === 'false') await menu.click();
        await target.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: nav, exact: true }).click();
        await target.getByRole('heading', { level: 1, name: heading, exact: true }).waitFor();
        await target.locator('.state-loading').waitFor({ state: 'detached' });
    };

    const passwordGrant = async (password: string) => {
        const master = await app.deps.db.selectFrom('auth_realms').select('id').where('name', '=', MASTER_REALM).executeTakeFirstOrThrow();
        return app.request({ method: 'POST', url: '/token', as: null, payload: { grant_type: 'password', username: carol.name, password, realm_id: master.id } });
    };

    it('every page loads with no console error, no failed request and no serious accessibility violation, at 360 px and on a desktop', async () => {
        const watched = watch(page);
        for (const viewport of [{ width: 360, height: 740 }, { width: 1280, height: 800 }]) {
            await page.setViewportSize(viewport);
            for (const { nav, heading } of PAGES) {
                await open(page, nav, heading);
                const violations = await axeViolations(page);
                expect(violations, `${heading} at ${viewport.width} px`).toEqual([]);
                // nothing wider than the window at 360 px, the narrowest screen the consoles support
                expect(await page.evaluate<boolean>('document.documentElement.scrollWidth <= window.innerWidth'), `${heading} at ${viewport.width} px`).toBe(true);
            }
        }
        expect(watched.problems).toEqual([]);
        watched.stop();
        await open(page, 'Profile', 'Your profile');
        await screenshot(page, 'profile');
    });

    it('changes the email: the address is unverified, a verification link is mailed and the page says so', async () => {
        await open(page, 'Profile', 'Your profile');
        await page.getByLabel('New email address').fill('carol.new@example.test');
        await page.getByLabel(/^Current password/).fill(carol.password);
        await page.getByRole('button', { name: 'Change email' }).click();
        await page.getByText('A link to verify carol.new@example.test is on its way.').waitFor();
        await expect(page.getByText('Not verified').isVisible()).resolves.toBe(true);
        expect((await mail.mailTo('carol.new@example.test')).text).toContain('/activate?code=');
        // verified again for the sign-ins below (an unverified address is refused where the realm requires it)
        await app.json({ method: 'POST', url: `/users/${carol.id}`, payload: { emailVerified: true } }, 200);
    });

    it('changes the password: a wrong current one is answered beside its field, then the old password is refused by the password grant', async () => {
        await open(page, 'Password', 'Password');
        const fill = async (current: string) => {
            await page.getByLabel('Current password').fill(current);
            await page.getByLabel(/^New password/).fill('carol-password-2');
            await page.getByLabel('Repeat the new password').fill('carol-password-2');
            await page.getByRole('button', { name: 'Change password' }).click();
        };
        await fill('not-my-password');
        const field = page.getByLabel('Current password');
        await expect.poll(() => field.getAttribute('aria-invalid')).toBe('true');
        expect(await page.locator('#password-currentPassword-error').innerText()).not.toBe('');
        await fill(carol.password);
        await page.getByText('Your password is changed.').waitFor();
        expect((await passwordGrant(carol.password)).statusCode).toBe(400);
        expect((await passwordGrant('carol-password-2')).statusCode).toBe(200);
        carol.password = 'carol-password-2';
        // this browser stayed signed in
        await open(page, 'Profile', 'Your profile');
    });

    it('revokes another browser\'s session (confirmed): that browser is signed out at its next request', async () => {
        const other = await browser.newContext({ userAgent: 'Second browser (e2e)' });
        try {
            const second = await other.newPage();
            await signIn(second);
            await open(page, 'Sessions', 'Sessions');
            await page.getByText('This browser').waitFor();
            await page.getByRole('row').filter({ hasText: 'Second browser (e2e)' }).waitFor();
            await screenshot(page, 'sessions');
            const row = page.getByRole('row').filter({ hasText: 'Second browser (e2e)' });
            await row.getByRole('button', { name: /Revoke/ }).click();
            const dialog = page.getByRole('dialog', { name: 'Revoke this session?' });
            await dialog.getByRole('button', { name: 'Revoke session' }).click();
            await page.getByText('The session is revoked.').waitFor();
            await expect.poll(() => page.getByRole('row').filter({ hasText: 'Second browser (e2e)' }).count()).toBe(0);
            // the other browser's next API call answers 401: it is taken to the sign-in page
            await second.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Sessions', exact: true }).click();
            await second.getByText('Your session has ended.').waitFor();
            await second.getByLabel('Username or email').waitFor({ timeout: 10_000 });
        } finally {
            await other.close();
        }
    });

    it('revokes the consent given to an application (confirmed)', async () => {
        const client = (await app.json<{ data: { id: string } }>({ method: 'POST', url: '/clients', payload: { name: 'photos', displayName: 'Photo app', redirectUri: 'https://photos.example/cb' } }, 201)).data;
        const master = await app.deps.db.selectFrom('auth_realms').select('id').where('name', '=', MASTER_REALM).executeTakeFirstOrThrow();
        await recordConsent(app.deps.db, dialect, { userId: carol.id, clientId: client.id, realmId: master.id, scopes: ['openid', 'email'] });
        await open(page, 'Applications', 'Applications');
        const item = page.getByRole('listitem').filter({ hasText: 'Photo app' });
        await expect.poll(() => item.getByRole('list', { name: 'Scopes granted to Photo app' }).innerText()).toMatch(/openid\s+email/);
        expect(await axeViolations(page)).toEqual([]);
        await screenshot(page, 'applications');
        await item.getByRole('button', { name: 'Revoke access of Photo app' }).click();
        await page.getByRole('dialog', { name: 'Revoke access of Photo app?' }).getByRole('button', { name: 'Revoke access' }).click();
        await page.getByText('Photo app no longer has access.').waitFor();
        await page.getByText('No application has your consent.').waitFor();
        expect(await app.deps.db.selectFrom('auth_user_consents').select('id').where('user_id', '=', carol.id).execute()).toEqual([]);
    });

    it('unlinks an upstream identity provider (confirmed)', async () => {
        const master = await app.deps.db.selectFrom('auth_realms').select('id').where('name', '=', MASTER_REALM).executeTakeFirstOrThrow();
        const provider = (await app.json<{ data: { id: string } }>({
            method: 'POST', url: '/identity-providers', payload: {
                realmId: master.id, name: 'upstream', displayName: 'Upstream ID', protocol: 'oidc', issuer: 'https://idp.example', clientId: 'rp', clientSecret: 'rp-secret',
            },
        }, 201)).data;
        await insertIdentityLink(app.deps.db, dialect, { providerId: provider.id, userId: carol.id, realmId: master.id, subject: 'carol-upstream' }, new Date());
        await open(page, 'Linked accounts', 'Linked accounts');
        await page.getByText('your identity there: carol-upstream').waitFor();
        expect(await axeViolations(page)).toEqual([]);
        await page.getByRole('button', { name: 'Unlink Upstream ID' }).click();
        await page.getByRole('dialog', { name: 'Unlink Upstream ID?' }).getByRole('button', { name: 'Unlink' }).click();
        await page.getByText('Upstream ID is unlinked.').waitFor();
        await page.getByText('No linked account.', { exact: false }).waitFor();
    });

    it('enrols a TOTP authenticator from the QR code page, is asked for its code at the next sign-in, then removes it (confirmed)', async () => {
        await app.json({ method: 'POST', url: '/realms/master', payload: { mfaEnabled: true } }, 200);
        try {
            await open(page, 'Two-factor authentication', 'Two-factor authentication');
            // a change of one's own authenticators needs the current password, typed once on the page
            await page.getByLabel('Current password').fill(carol.password);
            await page.getByLabel('Name of the device or app').fill('Phone');
            await page.getByRole('button', { name: 'Add authenticator' }).click();
            const qr = page.getByRole('img', { name: 'QR code of the setup key for Phone' });
            await qr.waitFor();
            // the server's SVG data URL decodes under the console's img-src
            await expect.poll(() => page.evaluate<boolean>("document.querySelector('img.qr').complete && document.querySelector('img.qr').naturalWidth > 0")).toBe(true);
            const secret = (await page.getByTestId('totp-secret').innerText()).replace(/\s/g, '');
            expect(secret).toMatch(/^[A-Z2-7]{16,}$/);
            expect(await axeViolations(page)).toEqual([]);
            await screenshot(page, 'two-factor');
            await page.getByLabel('Code from the app').fill(await generate({ secret }));
            await page.getByRole('button', { name: 'Confirm', exact: true }).click();
            await page.getByRole('heading', { name: 'Your recovery codes' }).waitFor();
            await expect.poll(() => page.locator('.codes li').count()).toBeGreaterThan(0);
            expect(await axeViolations(page)).toEqual([]);
            await expect(page.getByText('Confirmed', { exact: true }).isVisible()).resolves.toBe(true);

            // a new browser: the password, then the authentication code
            const other = await browser.newContext();
            try {
                await signIn(await other.newPage(), carol.password, () => nextTotpCode(secret));
            } finally {
                await other.close();
            }

            await page.getByRole('button', { name: 'Remove Phone' }).click();
            await page.getByRole('dialog', { name: 'Remove Phone?' }).getByRole('button', { name: 'Remove authenticator' }).click();
            await page.getByText('No authenticator yet.').waitFor();
        } finally {
            await app.json({ method: 'POST', url: '/realms/master', payload: { mfaEnabled: false } }, 200);
        }
    });

    it('a user holding no permission at all sees its sessions and applications, and is told whom to ask for self-service changes', async () => {
        // the realm's default roles (API.md §8) emptied: a user created now receives no permission at all
        const master = await app.json<{ data: { defaultRoleIds: string[] } }>({ method: 'GET', url: '/realms/master' }, 200);
        await app.json({ method: 'POST', url: '/realms/master', payload: { defaultRoleIds: [] } }, 200);
        try {
            await app.json({ method: 'POST', url: '/users', payload: { name: 'dave', password: 'dave-password-1' } }, 201);
        } finally {
            await app.json({ method: 'POST', url: '/realms/master', payload: { defaultRoleIds: master.data.defaultRoleIds } }, 200);
        }
        const other = await browser.newContext();
        try {
            const dave = await other.newPage();
            await signIn(dave, 'dave-password-1', undefined, 'dave');
            await dave.getByText('Your account may not change its name or email address itself.').waitFor();
            await open(dave, 'Password', 'Password');
            await dave.getByText('Ask an administrator of your realm for the permission “user_self_manage”.').waitFor();
            expect(await dave.getByRole('button', { name: 'Change password' }).count()).toBe(0);
            await open(dave, 'Sessions', 'Sessions');
            await dave.getByText('This browser').waitFor();
            await open(dave, 'Applications', 'Applications');
            await dave.getByText('No application has your consent.').waitFor();
        } finally {
            await other.close();
        }
    });

    it('a plain user of another realm signs in through that realm (chosen on the signed-out screen) and sees their profile; sign-out returns to that realm\'s sign-in', async () => {
        const realm = (await app.json<{ data: { id: string } }>({ method: 'POST', url: '/realms', payload: { name: 'tenant-a', displayName: 'Tenant A' } }, 201)).data;
        await app.json({ method: 'POST', url: '/users', payload: { name: 'frank', password: 'frank-password-1', realmId: realm.id, email: 'frank@tenant-a.example' } }, 201);
        const discovery = await app.json<{ authorization_endpoint: string; realmgate_console_client_id: string }>({ method: 'GET', url: '/realms/tenant-a/.well-known/openid-configuration', as: null }, 200);
        const other = await browser.newContext();
        try {
            const frank = await other.newPage();
            const watched = watch(frank);
            // no ?realm=: the signed-out screen asks for the realm (master by default)
            await frank.goto(`${publicUrl}/console/account/`);
            const field = frank.getByLabel('Realm', { exact: true });
            expect(await field.inputValue()).toBe(MASTER_REALM);
            expect(await axeViolations(frank)).toEqual([]);
            await field.fill('tenant-a');
            await frank.getByRole('button', { name: 'Continue' }).click();
            await frank.getByLabel('Username or email').waitFor();
            // that realm's authorization endpoint (from its discovery document) and its own console client
            const authorize = new URL(frank.url());
            expect(`${authorize.origin}${authorize.pathname}`).toBe(discovery.authorization_endpoint);
            expect(authorize.searchParams.get('client_id')).toBe(discovery.realmgate_console_client_id);
            await frank.getByLabel('Username or email').fill('frank');
            await frank.getByLabel('Password').fill('frank-password-1');
            await frank.getByRole('button', { name: 'Sign in', exact: true }).click();
            await frank.getByRole('heading', { name: 'Your profile' }).waitFor();
            await frank.getByText('frank@tenant-a.example').first().waitFor();
            // no administrator granted frank anything: the realm's default role lets him manage his account
            await frank.getByLabel('Display name').fill('Frank of Tenant A');
            await frank.getByRole('button', { name: 'Save profile' }).click();
            await frank.getByText('Your profile is saved.').waitFor();
            expect(watched.problems).toEqual([]);
            watched.stop();
            // the console session belongs to frank of tenant-a
            const me = await frank.evaluate(async () => (await (await fetch('/users/@me?fields=name,realmId', { headers: { 'x-requested-with': 'test' } })).json()) as { data: { name: string; realmId: string } });
            expect(me.data).toMatchObject({ name: 'frank', realmId: realm.id });
            // signing out comes back to the same realm's sign-in page
            await frank.getByRole('button', { name: 'Sign out' }).click();
            const confirm = frank.getByRole('button', { name: /sign out|log out|yes/i });
            await Promise.race([confirm.first().click().catch(() => undefined), frank.getByLabel('Username or email').waitFor()]);
            await frank.getByLabel('Username or email').waitFor();
            expect(new URL(frank.url()).searchParams.get('client_id')).toBe(discovery.realmgate_console_client_id);
        } finally {
            await other.close();
        }
    });

    it('signs this browser out by revoking its own session', async () => {
        await open(page, 'Sessions', 'Sessions');
        const row = page.getByRole('row').filter({ hasText: 'This browser' });
        await row.getByRole('button', { name: /Sign out/ }).click();
        await page.getByRole('dialog', { name: 'Sign out this browser?' }).getByRole('button', { name: 'Sign out here' }).click();
        await page.getByLabel('Username or email').waitFor({ timeout: 10_000 });
    });
}, ['sqlite']);
