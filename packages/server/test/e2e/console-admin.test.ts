import Fastify, { type FastifyInstance } from 'fastify';
import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, startTestApp, type TestApp } from '../app.js';
import { freePort } from '../network.js';
import { ADMIN_CONSOLE_CLIENT } from '../../src/config/consoles.js';
import { registerConsoles } from '../../src/http/consoles.js';
import { registerSecurityHeaders } from '../../src/http/security-headers.js';
import { axeViolations, ensureConsoleBuilt, screenshot, watchedPage, type WatchedPage } from './console-harness.js';
import { launchChromium } from './relying-party.js';

/**
 * The admin console in a real browser: Debian's chromium against the server listening
 * on loopback with the built console, SQLite only and one browser for the file (the browser
 * suites' budget). Every page is checked for console errors, failed requests and serious axe-core
 * violations; the server's own sign-in page is what `GET /` leads to.
 */
describe('end to end: the admin console with chromium', () => {
    let app: TestApp;
    let publicUrl: string;
    let browser: Browser;
    let context: BrowserContext;
    let watched: WatchedPage;
    /** the admin console standalone on its own origin (what `start console admin` serves) */
    let standalone: FastifyInstance;
    let standaloneUrl: string;

    const SIGNED_OUT_PROBE = '/users/@me?fields=id';

    beforeAll(async () => {
        ensureConsoleBuilt();
        const port = await freePort();
        const consolePort = await freePort();
        publicUrl = `http://127.0.0.1:${port}`;
        standaloneUrl = `http://127.0.0.1:${consolePort}`;
        app = await startTestApp('sqlite', { publicUrl, console: { port: consolePort, publicUrl: standaloneUrl } }, { consoles: ['admin', 'account'] });
        await app.app.listen({ port, host: '127.0.0.1' });
        standalone = Fastify();
        await registerSecurityHeaders(standalone, standaloneUrl);
        await registerConsoles(standalone, { names: ['admin'], apiUrl: publicUrl, consoleUrl: standaloneUrl, mode: 'token' });
        await standalone.listen({ port: consolePort, host: '127.0.0.1' });
        browser = await launchChromium();
        context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
        // before the sign-in, the console's probe of the session answers 401 by design
        watched = await watchedPage(context, { answers: [SIGNED_OUT_PROBE] });
    });
    afterAll(async () => {
        await context?.close();
        await browser?.close();
        await standalone?.close();
        await app?.dispose();
    });

    async function expectAccessible(): Promise<void> {
        expect(await axeViolations(watched.page)).toEqual([]);
        watched.assertClean();
    }

    it('serves the console with a strict CSP, immutable assets and no-cache pages; GET / leads to it', async () => {
        const root = await fetch(`${publicUrl}/`, { redirect: 'manual' });
        expect(root.status).toBe(302);
        expect(root.headers.get('location')).toBe('/console/admin/');
        const page = await fetch(`${publicUrl}/console/admin/users/deep/link`);
        expect(page.status).toBe(200);
        expect(page.headers.get('cache-control')).toBe('no-cache');
        const policy = page.headers.get('content-security-policy') ?? '';
        expect(policy).toContain("script-src 'self'");
        expect(policy).toContain("frame-ancestors 'none'");
        expect(policy).not.toContain('unsafe-');
        const html = await page.text();
        const script = /src="(\/console\/assets\/[^"]+\.js)"/.exec(html)?.[1];
        expect(script).toBeDefined();
        // Vite emits no inline script or style the policy would block
        expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
        expect(html).not.toMatch(/<style/);
        const asset = await fetch(`${publicUrl}${script}`);
        expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
        // a page's script is challenged with Bearer, so no browser opens its Basic dialog over the console
        const probe = await fetch(`${publicUrl}/users/@me`, { headers: { 'x-requested-with': 'realmgate-console' } });
        expect(probe.status).toBe(401);
        expect(probe.headers.get('www-authenticate')).toBe('Bearer realm="realmgate"');
        expect((await fetch(`${publicUrl}/users/@me`)).headers.get('www-authenticate')).toMatch(/^Basic /);
        const config = await (await fetch(`${publicUrl}/console/admin/console-config.json`)).json();
        expect(config).toMatchObject({ mode: 'session', clientId: ADMIN_CONSOLE_CLIENT.id, redirectUri: `${publicUrl}/console/admin/` });
    });

    it('GET / lands on the realm screen, then the sign-in page of master\'s admin-console client; the bootstrap admin comes back to the console', async () => {
        const { page } = watched;
        await page.goto(`${publicUrl}/`);
        // the signed-out screen: the realm to sign in through, master by default
        expect(await page.getByLabel('Realm', { exact: true }).inputValue()).toBe('master');
        expect(await axeViolations(page)).toEqual([]);
        await page.getByRole('button', { name: 'Continue' }).click();
        await page.getByLabel('Username or email').waitFor();
        const url = new URL(page.url());
        expect(url.pathname).toBe('/authorize');
        expect(url.searchParams.get('client_id')).toBe(ADMIN_CONSOLE_CLIENT.id);
        expect(url.searchParams.get('code_challenge_method')).toBe('S256');
        await page.getByLabel('Username or email').fill(ADMIN.name);
        await page.getByLabel('Password').fill(ADMIN.password);
        await page.getByRole('button', { name: 'Sign in', exact: true }).click();
        await page.getByRole('heading', { name: 'Realms' }).waitFor();
        expect(new URL(page.url()).pathname).toBe('/console/admin/realms');
        // the code of the sign-in is not left in the address bar
        expect(new URL(page.url()).search).toBe('');
        await page.getByRole('link', { name: 'master', exact: true }).waitFor();
        await expectAccessible();
    });

    it('creates a realm (its 400 issues shown beside the field) and a user; a user created elsewhere appears without a reload', async () => {
        const { page } = watched;
        await page.getByRole('link', { name: 'New realm' }).click();
        await page.getByRole('heading', { name: 'New realm' }).waitFor();
        await expectAccessible();
        await page.getByRole('textbox', { name: 'Name', exact: true }).fill('not a valid name!');
        await page.getByRole('button', { name: 'Create realm' }).click();
        // the API's issue for `name`, tied to the field
        const fieldError = page.locator('#f-name-error');
        await fieldError.waitFor();
        expect(await page.getByRole('textbox', { name: 'Name', exact: true }).getAttribute('aria-invalid')).toBe('true');
        watched.reset();
        await page.getByRole('textbox', { name: 'Name', exact: true }).fill('console-a');
        await page.getByRole('textbox', { name: 'Display name', exact: true }).fill('Console A');
        await page.getByRole('button', { name: 'Create realm' }).click();
        // the new realm's overview, titled with its display name
        await page.getByRole('heading', { level: 1, name: 'Console A' }).waitFor();
        await expectAccessible();

        const sections = page.getByRole('navigation', { name: 'Realm sections' });
        await sections.getByRole('link', { name: 'Users', exact: true }).click();
        await page.getByRole('heading', { name: 'Users' }).waitFor();
        await page.getByText('No users yet.').waitFor();
        // the empty list offers the create action
        await page.getByRole('link', { name: 'Create the first user' }).waitFor();
        await expectAccessible();
        await page.getByRole('link', { name: 'New user' }).click();
        await page.getByRole('textbox', { name: 'Username', exact: true }).fill('carol');
        await page.getByRole('textbox', { name: 'Display name', exact: true }).fill('Carol');
        await page.getByLabel('Password').fill('carol-password-1');
        await page.getByRole('button', { name: 'Create user' }).click();
        await page.getByRole('heading', { name: 'Carol' }).waitFor();
        await expectAccessible();
        await screenshot(page, 'admin-user');
        for (const tab of ['Roles', 'Permissions', 'Sessions']) {
            await page.getByRole('navigation', { name: 'User' }).getByRole('link', { name: tab, exact: true }).click();
            await page.getByRole('heading', { name: tab, level: 2 }).waitFor();
            await page.locator('.state-loading').waitFor({ state: 'detached' });
            await expectAccessible();
        }

        await sections.getByRole('link', { name: 'Users', exact: true }).click();
        await page.getByRole('link', { name: 'carol', exact: true }).waitFor();
        await page.locator('html[data-realtime-subscribed~="users"]').waitFor({ state: 'attached' });
        const realm = await app.json<{ data: { id: string } }>({ method: 'GET', url: '/realms/console-a' }, 200);
        await app.json({ method: 'POST', url: '/users', payload: { name: 'dave', realmId: realm.data.id } }, 201);
        // the realtime bus: the list refreshes itself
        await page.getByRole('link', { name: 'dave', exact: true }).waitFor();
        watched.assertClean();
        await screenshot(page, 'admin-users');
    });

    it('picks the realm\'s default roles on its settings page: the built-in one is chosen, the choice saved is the realm\'s list', async () => {
        const { page } = watched;
        const realm = await app.json<{ data: { id: string; defaultRoleIds: string[] } }>({ method: 'GET', url: '/realms/console-a' }, 200);
        const reader = await app.json<{ data: { id: string } }>({ method: 'POST', url: '/roles', payload: { name: 'reader', realmId: realm.data.id } }, 201);
        await page.goto(`${publicUrl}/console/admin/realms/${realm.data.id}/settings`);
        await page.getByRole('heading', { name: 'Settings of realm console-a' }).waitFor();
        const field = page.getByLabel('Default roles');
        await field.locator('option', { hasText: 'reader' }).waitFor({ state: 'attached' });
        // the selected options' labels, read in the page (the server's tests have no DOM typings)
        const chosen = () => field.evaluate((select) => Array.from((select as unknown as { selectedOptions: ArrayLike<{ text: string }> }).selectedOptions, (option) => option.text));
        // the options and the realm's list arrive by separate reads: the selection follows the later one
        await expect.poll(chosen, { timeout: 10_000 }).toEqual(['default-roles']);
        await expectAccessible();
        await field.selectOption([{ label: 'reader' }]);
        await page.getByRole('button', { name: 'Save realm' }).click();
        await page.getByText('Saved.').waitFor();
        const saved = await app.json<{ data: { defaultRoleIds: string[] } }>({ method: 'GET', url: `/realms/${realm.data.id}` }, 200);
        expect(saved.data.defaultRoleIds).toEqual([reader.data.id]);
        await expect.poll(chosen, { timeout: 10_000 }).toEqual(['reader']);
        watched.assertClean();
        await app.json({ method: 'POST', url: `/realms/${realm.data.id}`, payload: { defaultRoleIds: realm.data.defaultRoleIds } }, 200);
    });

    it('brands a realm on its settings page: a colour that is not #rrggbb refused beside its field, then the picker\'s colour and a logo URL saved', async () => {
        const { page } = watched;
        const realm = await app.json<{ data: { id: string } }>({ method: 'GET', url: '/realms/console-a' }, 200);
        await page.goto(`${publicUrl}/console/admin/realms/${realm.data.id}/settings`);
        await page.getByRole('heading', { name: 'Settings of realm console-a' }).waitFor();
        const colour = page.getByRole('textbox', { name: 'Primary colour', exact: true });
        await colour.fill('blue');
        await page.getByRole('button', { name: 'Save realm' }).click();
        // the API's issue for `primaryColor` (its #rrggbb pattern), tied to the field
        await page.locator('#f-primaryColor-error').waitFor();
        expect(await colour.getAttribute('aria-invalid')).toBe('true');
        watched.reset();
        // the picker and the text are one value: choosing in the picker writes the text
        await page.getByLabel('Pick the primary colour').fill('#1a73e8');
        expect(await colour.inputValue()).toBe('#1a73e8');
        await page.getByRole('textbox', { name: 'Logo URL', exact: true }).fill('https://cdn.example.com/logo.svg');
        await expectAccessible();
        await page.getByRole('button', { name: 'Save realm' }).click();
        await page.getByText('Saved.').waitFor();
        const saved = await app.json<{ data: { primaryColor: string | null; logoUrl: string | null } }>({ method: 'GET', url: `/realms/${realm.data.id}` }, 200);
        expect(saved.data).toMatchObject({ primaryColor: '#1a73e8', logoUrl: 'https://cdn.example.com/logo.svg' });
        expect(await page.locator('#f-primaryColor-error').count()).toBe(0);
        // an emptied logo URL removes it (null), the colour stays
        await page.getByRole('textbox', { name: 'Logo URL', exact: true }).fill('');
        await page.getByRole('button', { name: 'Save realm' }).click();
        await expect.poll(async () => (await app.json<{ data: { primaryColor: string | null; logoUrl: string | null } }>({ method: 'GET', url: `/realms/${realm.data.id}` }, 200)).data)
            .toMatchObject({ primaryColor: '#1a73e8', logoUrl: null });
        watched.assertClean();
    });

    it('works 360 px wide', async () => {
        const { page } = watched;
        await page.setViewportSize({ width: 360, height: 740 });
        await page.goto(`${publicUrl}/console/admin/realms`);
        await page.getByRole('link', { name: 'console-a', exact: true }).waitFor();
        expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(360);
        await expectAccessible();
        await page.setViewportSize({ width: 1280, height: 800 });
        await screenshot(page, 'admin-realms');
    });

    it('a realm administrator of one realm signs in through that realm, sees its users, and is told plainly that another realm\'s pages are not theirs', async () => {
        const other = await app.json<{ data: { id: string } }>({ method: 'POST', url: '/realms', payload: { name: 'console-b' } }, 201);
        await app.json({ method: 'POST', url: '/users', payload: { name: 'erin', realmId: other.data.id } }, 201);
        const own = await app.json<{ data: { id: string } }>({ method: 'GET', url: '/realms/console-a' }, 200);
        const role = await app.json<{ data: { id: string }[] }>({ method: 'GET', url: '/roles?filter[name]=realm_admin' }, 200);
        const admin = await app.json<{ data: { id: string } }>({
            method: 'POST', url: '/users', payload: { name: 'ra', password: 'ra-password-1', realmId: own.data.id },
        }, 201);
        await app.json({ method: 'POST', url: '/user-roles', payload: { userId: admin.data.id, roleId: role.data[0]!.id } }, 201);
        const discovery = await app.json<{ realmgate_console_client_id: string }>({ method: 'GET', url: '/realms/console-a/.well-known/openid-configuration', as: null }, 200);
        const second = await browser.newContext();
        try {
            // before the sign-in, the console's probe of the session answers 401 by design
            const watchedAdmin = await watchedPage(second, { answers: [SIGNED_OUT_PROBE] });
            const { page } = watchedAdmin;
            // the realm-scoped entry of the admin console: realm console-a's own admin-console client
            await page.goto(`${publicUrl}/console/admin/?realm=console-a`);
            await page.getByLabel('Username or email').waitFor();
            expect(new URL(page.url()).searchParams.get('client_id')).toBe(discovery.realmgate_console_client_id);
            await page.getByLabel('Username or email').fill('ra');
            await page.getByLabel('Password').fill('ra-password-1');
            await page.getByRole('button', { name: 'Sign in', exact: true }).click();
            await page.getByRole('heading', { name: 'Realms' }).waitFor();

            await page.goto(`${publicUrl}/console/admin/realms/${own.data.id}/users`);
            await page.getByRole('heading', { name: 'Users' }).waitFor();
            await page.getByRole('link', { name: 'carol', exact: true }).waitFor();
            await page.goto(`${publicUrl}/console/admin/realms/${other.data.id}/users`);
            await page.getByRole('heading', { name: 'Not allowed' }).waitFor();
            expect(await page.getByRole('alert').textContent()).toContain('not allowed to view this page in this realm');
            // the server agrees: none of the other realm's users is read with this session
            const answer = await page.evaluate(async (realmId) => {
                const response = await fetch(`/realms/${realmId}/users`, { headers: { 'x-requested-with': 'test' } });
                return { status: response.status, total: response.ok ? ((await response.json()) as { meta: { total: number } }).meta.total : null };
            }, other.data.id);
            expect(answer.status === 403 || answer.total === 0, JSON.stringify(answer)).toBe(true);
            watchedAdmin.reset();
            // the realm list shows their own realm only (realm-gated by the server)
            await page.goto(`${publicUrl}/console/admin/realms`);
            await page.getByRole('link', { name: 'console-a', exact: true }).waitFor();
            expect(await page.getByRole('link', { name: 'console-b', exact: true }).count()).toBe(0);
            expect(await axeViolations(page)).toEqual([]);
            watchedAdmin.assertClean();
        } finally {
            await second.close();
        }
    });

    it('a user holding one role with user_read at own reach sees their realm\'s users and nothing more: no menu or button for what the grant lacks, "Not allowed" elsewhere', async () => {
        // the scenario: a realm, a user, a role with one permission at `own` reach, assigned
        const realm = await app.json<{ data: { id: string } }>({ method: 'POST', url: '/realms', payload: { name: 'console-grant' } }, 201);
        const user = await app.json<{ data: { id: string } }>({
            method: 'POST', url: '/users', payload: { name: 'gina', displayName: 'Gina', password: 'gina-password-1', realmId: realm.data.id },
        }, 201);
        await app.json({ method: 'POST', url: '/users', payload: { name: 'hank', realmId: realm.data.id } }, 201);
        const role = await app.json<{ data: { id: string } }>({ method: 'POST', url: '/roles', payload: { name: 'user-reader', realmId: realm.data.id } }, 201);
        const permission = await app.json<{ data: { id: string }[] }>({ method: 'GET', url: '/permissions?filter[name]=user_read' }, 200);
        await app.json({ method: 'POST', url: '/role-permissions', payload: { roleId: role.data.id, permissionId: permission.data[0]!.id, realmScope: 'own' } }, 201);
        await app.json({ method: 'POST', url: '/user-roles', payload: { userId: user.data.id, roleId: role.data.id } }, 201);
        const foreign = await app.json<{ data: { id: string } }>({ method: 'GET', url: '/realms/console-a' }, 200);
        const second = await browser.newContext({ viewport: { width: 1280, height: 800 } });
        try {
            const watchedUser = await watchedPage(second, { answers: [SIGNED_OUT_PROBE] });
            const { page } = watchedUser;
            await page.goto(`${publicUrl}/console/admin/?realm=console-grant`);
            await page.getByLabel('Username or email').fill('gina');
            await page.getByLabel('Password').fill('gina-password-1');
            await page.getByRole('button', { name: 'Sign in', exact: true }).click();
            // the console's home is the realms list, which realm_read gates: not theirs, and no menu leads there
            await page.getByRole('heading', { name: 'Not allowed' }).waitFor();
            expect(await page.getByRole('navigation', { name: 'Main' }).getByRole('link').count()).toBe(0);

            // their realm's users: the list, and of the realm's sections the users only
            await page.goto(`${publicUrl}/console/admin/realms/${realm.data.id}/users`);
            await page.getByRole('heading', { name: 'Users' }).waitFor();
            await page.getByRole('link', { name: 'hank', exact: true }).waitFor();
            const sections = page.getByRole('navigation', { name: 'Realm sections' });
            await sections.getByRole('link', { name: 'Users', exact: true }).waitFor();
            expect(await sections.getByRole('link').allTextContents()).toEqual(['Users']);
            expect(await page.getByRole('link', { name: 'New user' }).count()).toBe(0);
            expect(await axeViolations(page)).toEqual([]);
            // a user's page reads, but offers no change the grant lacks
            await page.getByRole('link', { name: 'hank', exact: true }).click();
            await page.getByRole('heading', { name: 'hank' }).waitFor();
            await page.locator('.state-loading').waitFor({ state: 'detached' });
            expect(await page.getByRole('button', { name: 'Delete user' }).count()).toBe(0);

            // what the grant lacks, in their own realm and in another: the page says so plainly
            for (const path of [`${realm.data.id}/clients`, `${realm.data.id}/keys`, `${realm.data.id}/users/new`, `${foreign.data.id}/users`]) {
                await page.goto(`${publicUrl}/console/admin/realms/${path}`);
                await page.getByRole('heading', { name: 'Not allowed' }).waitFor();
                expect(await page.getByRole('alert').textContent()).toContain('not allowed to view this page in this realm');
            }
            expect(await page.getByRole('link', { name: 'carol', exact: true }).count()).toBe(0);
            expect(await axeViolations(page)).toEqual([]);
            watchedUser.assertClean();
            // the server agrees: `own` reach reads no user of another realm
            const answer = await page.evaluate(async (realmId) => {
                const response = await fetch(`/realms/${realmId}/users`, { headers: { 'x-requested-with': 'test' } });
                return { status: response.status, total: response.ok ? ((await response.json()) as { meta: { total: number } }).meta.total : null };
            }, foreign.data.id);
            expect(answer.status === 403 || answer.total === 0, JSON.stringify(answer)).toBe(true);
        } finally {
            await second.close();
        }
    });

    it('standalone, the console signs in with code + PKCE as admin-console and calls the API across origins with its token', async () => {
        const own = await browser.newContext();
        try {
            const watchedStandalone = await watchedPage(own);
            const { page } = watchedStandalone;
            await page.goto(`${standaloneUrl}/?realm=master`);
            await page.getByLabel('Username or email').fill(ADMIN.name);
            await page.getByLabel('Password').fill(ADMIN.password);
            await page.getByRole('button', { name: 'Sign in', exact: true }).click();
            await page.getByRole('heading', { name: 'Realms' }).waitFor();
            expect(new URL(page.url()).origin).toBe(standaloneUrl);
            await page.getByRole('link', { name: 'console-a', exact: true }).waitFor();
            // no cookie of the API's origin is the credential here: the requests carry the bearer
            const authorization = page.waitForRequest((request) => request.url().startsWith(`${publicUrl}/realms`) && request.method() === 'GET');
            await page.getByRole('link', { name: 'Users of console-a' }).click();
            expect((await authorization).headers().authorization).toMatch(/^Bearer /);
            await page.getByRole('link', { name: 'carol', exact: true }).waitFor();
            watchedStandalone.assertClean();
        } finally {
            await own.close();
        }
    });
});
