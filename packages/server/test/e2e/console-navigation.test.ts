import type { Browser, BrowserContext, Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fillEventAggregates } from '../../src/domains/event-log/maintenance.js';
import { ADMIN, startTestApp, type TestApp } from '../app.js';
import { freePort } from '../network.js';
import { login } from '../sessions.js';
import { axeViolations, ensureConsoleBuilt, screenshot, watchedPage, type WatchedPage } from './console-harness.js';
import { launchChromium } from './relying-party.js';

/**
 * The admin console's navigation in chromium (SQLite, one browser for the file): every section of a
 * realm reached from the side menu with no serious axe violation at 1280 and 360 px (where the menu
 * folds behind its button); the realm's display name in the title and the breadcrumb; names for
 * the ids of events and sessions, read in one request per entity type, a deleted user shown by its
 * id; the overview; the dark colour scheme; keyboard movement through a list; the German catalogue
 * chosen from the browser's language.
 */
/** 26 pages, each scanned by axe: more than the default test time on a shared machine */
const TIMEOUT = 120_000;
const SECTIONS = ['Overview', 'Users', 'Clients', 'Roles', 'Permissions', 'Policies', 'Scopes', 'Sessions', 'Keys', 'Identity providers', 'Folders', 'Events', 'Settings'];

describe('end to end: the admin console\'s navigation, names and locales with chromium', () => {
    let app: TestApp;
    let publicUrl: string;
    let browser: Browser;
    let context: BrowserContext;
    let watched: WatchedPage;
    let realm: { id: string; name: string };
    let carol: { id: string };
    let gone: { id: string };

    beforeAll(async () => {
        ensureConsoleBuilt();
        const port = await freePort();
        publicUrl = `http://127.0.0.1:${port}`;
        app = await startTestApp('sqlite', { publicUrl }, { consoles: ['admin', 'account'] });
        await app.app.listen({ port, host: '127.0.0.1' });
        realm = (await app.json<{ data: { id: string; name: string } }>({ method: 'POST', url: '/realms', payload: { name: 'nav-realm', displayName: 'Navigation Realm' } }, 201)).data;
        carol = (await app.json<{ data: { id: string } }>({ method: 'POST', url: '/users', payload: { name: 'carol', password: 'carol-password-1', realmId: realm.id } }, 201)).data;
        for (const name of ['dave', 'erin']) await app.json({ method: 'POST', url: '/users', payload: { name, realmId: realm.id } }, 201);
        await app.json({ method: 'POST', url: '/clients', payload: { name: 'nav-app', realmId: realm.id, redirectUri: 'https://app.example.com/cb' } }, 201);
        gone = (await app.json<{ data: { id: string } }>({ method: 'POST', url: '/users', payload: { name: 'gone', password: 'gone-password-1', realmId: realm.id } }, 201)).data;
        // sign-ins: events whose actor is carol, and one whose user is deleted afterwards
        await login(app, realm.id, 'carol', 'carol-password-1');
        await login(app, realm.id, 'gone', 'gone-password-1');
        await app.json({ method: 'DELETE', url: `/users/${gone.id}` }, 200);
        // the event log is written after the answer: the day's aggregates are filled once both sign-ins are in
        await app.deps.events.settled();
        await fillEventAggregates(app.deps, new Date());
        browser = await launchChromium();
        context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
        // before the sign-in, the console's probe of the session answers 401 by design
        watched = await watchedPage(context, { answers: ['/users/@me?fields=id'] });
        await signIn(watched.page);
    });
    afterAll(async () => {
        await context?.close();
        await browser?.close();
        await app?.dispose();
    });

    /** the sign-in page's labels in the browser's language (views/strings.ts, views/strings-de.ts) */
    const SIGN_IN_LABELS = {
        en: { username: 'Username or email', password: 'Password', button: 'Sign in' },
        de: { username: 'Benutzername oder E-Mail-Adresse', password: 'Passwort', button: 'Anmelden' },
    } as const;

    async function signIn(page: Page, language: keyof typeof SIGN_IN_LABELS = 'en'): Promise<void> {
        const labels = SIGN_IN_LABELS[language];
        await page.goto(`${publicUrl}/console/admin/?realm=master`);
        await page.getByLabel(labels.username).fill(ADMIN.name);
        // the sign-in page follows the browser's Accept-Language (http/page-locale.ts)
        expect(await page.getAttribute('html', 'lang')).toBe(language);
        await page.getByLabel(labels.password, { exact: true }).fill(ADMIN.password);
        await page.getByRole('button', { name: labels.button, exact: true }).click();
        await page.locator('main h1').first().waitFor();
    }

    const settled = (page: Page) => page.locator('.state-loading').first().waitFor({ state: 'hidden' });

    async function expectAccessible(page: Page, where: string): Promise<void> {
        expect(await axeViolations(page), where).toEqual([]);
    }

    it('reaches every section of a realm from the side menu, accessible at 1280 and at 360 px behind the menu button', async () => {
        const { page } = watched;
        await page.goto(`${publicUrl}/console/admin/realms/${realm.id}`);
        const sections = page.getByRole('navigation', { name: 'Realm sections' });
        await sections.getByRole('link', { name: 'Users', exact: true }).waitFor();
        expect(await sections.getByRole('link').allTextContents()).toEqual(SECTIONS);
        for (const width of [1280, 360]) {
            await page.setViewportSize({ width, height: 800 });
            for (const section of SECTIONS) {
                if (width === 360) {
                    const menu = page.getByRole('button', { name: 'Menu' });
                    expect(await menu.getAttribute('aria-expanded')).toBe('false');
                    expect(await sections.isVisible()).toBe(false);
                    await menu.click();
                    expect(await menu.getAttribute('aria-expanded')).toBe('true');
                } else {
                    expect(await page.getByRole('button', { name: 'Menu' }).isVisible()).toBe(false);
                }
                await sections.getByRole('link', { name: section, exact: true }).click();
                // the section is marked current (read by CSS: at 360 px the menu has folded again, hidden from roles)
                await expect.poll(() => page.locator('#console-side a[aria-current="page"]').textContent()).toBe(section);
                await page.locator('main h1').first().waitFor();
                await settled(page);
                expect(await page.locator('main .state-error').count(), section).toBe(0);
                await expectAccessible(page, `${section} at ${width} px`);
                if (width === 360) expect(await page.evaluate<number>('document.documentElement.scrollWidth'), section).toBeLessThanOrEqual(360);
            }
        }
        await page.setViewportSize({ width: 1280, height: 800 });
        watched.assertClean();
    }, TIMEOUT);

    it('names the realm by its display name in the title and the breadcrumb, and switches realms keeping the section', async () => {
        const { page } = watched;
        await page.setViewportSize({ width: 1280, height: 800 });
        await page.goto(`${publicUrl}/console/admin/realms/${realm.id}/users`);
        await page.getByRole('heading', { level: 1, name: 'Users' }).waitFor();
        const crumbs = page.getByRole('navigation', { name: 'Breadcrumb' });
        await crumbs.getByRole('link', { name: 'Navigation Realm' }).waitFor();
        await expect.poll(() => page.title()).toBe('Users – Navigation Realm – Realmgate admin');
        const master = await app.json<{ data: { id: string } }>({ method: 'GET', url: '/realms/master' }, 200);
        await page.getByLabel('Realm', { exact: true }).selectOption({ label: 'master' });
        await page.waitForURL(`**/realms/${master.data.id}/users`);
        await page.getByRole('link', { name: ADMIN.name, exact: true }).waitFor();
        await expect.poll(() => page.title()).toBe('Users – master – Realmgate admin');
        watched.assertClean();
    });

    /** the list reads with an id filter the page sends while `step` runs, by path */
    async function nameReads(page: Page, step: () => Promise<void>): Promise<string[]> {
        const reads: string[] = [];
        const listener = (request: Request) => {
            const url = new URL(request.url());
            if (url.searchParams.has('filter[id]')) reads.push(url.pathname);
        };
        page.on('request', listener);
        try {
            await step();
        } finally {
            page.off('request', listener);
        }
        return reads.sort();
    }

    it('shows names for the ids of events and sessions (one read per entity type), the id on hover, a deleted user by its id', async () => {
        const { page } = watched;
        const events = await nameReads(page, async () => {
            await page.goto(`${publicUrl}/console/admin/realms/${realm.id}/events`);
            await page.getByRole('heading', { level: 1, name: 'Events' }).waitFor();
            const actor = page.locator('main table').last().getByRole('link', { name: 'carol', exact: true }).first();
            await actor.waitFor();
            expect(await actor.getAttribute('title')).toBe(carol.id);
            expect(await actor.getAttribute('href')).toBe(`/console/admin/realms/${realm.id}/users/${carol.id}`);
            await page.locator('main table').last().locator('code.entity-id', { hasText: gone.id }).first().waitFor();
        });
        // one read per entity type on the page: the users and clients the events point at, the realm's
        // name; then the ids the realm lacks (the master administrator, the deleted user) once more in /users
        expect(events).toEqual(['/realms', `/realms/${realm.id}/clients`, `/realms/${realm.id}/users`, '/users']);
        // the master realm's administrator who created the users, by name, linking into the master realm
        const admin = page.locator('main table').last().getByRole('link', { name: ADMIN.name, exact: true }).first();
        await admin.waitFor();
        const master = await app.json<{ data: { id: string } }>({ method: 'GET', url: '/realms/master' }, 200);
        expect(await admin.getAttribute('href')).toMatch(new RegExp(`^/console/admin/realms/${master.data.id}/users/`));
        await expectAccessible(page, 'events');

        const sessions = await nameReads(page, async () => {
            await page.goto(`${publicUrl}/console/admin/realms/${realm.id}/sessions`);
            await page.getByRole('heading', { level: 1, name: 'Sessions' }).waitFor();
            const user = page.getByRole('link', { name: 'carol', exact: true });
            await user.waitFor();
            expect(await user.getAttribute('title')).toBe(carol.id);
        });
        // the password grant's sessions have no client: the users alone are named, in one read
        expect(sessions.filter((path) => path.endsWith('/users'))).toHaveLength(1);
        await expectAccessible(page, 'sessions');
        watched.assertClean();
    });

    it('opens on the realm\'s overview: counts, the sign-ins of 30 days as a chart, recent events and the keys', async () => {
        const { page } = watched;
        await page.goto(`${publicUrl}/console/admin/realms/${realm.id}`);
        await page.getByRole('heading', { level: 1, name: 'Navigation Realm' }).waitFor();
        const counts = page.getByRole('region', { name: 'At a glance' });
        await counts.getByRole('link', { name: '3 Users' }).waitFor();
        // nav-app and the realm's own admin-console client
        await counts.getByRole('link', { name: '2 Clients' }).waitFor();
        // the live sessions the API counts (the deleted user's went with it)
        const live = await app.json<{ meta: { total: number } }>({ method: 'GET', url: `/realms/${realm.id}/sessions?filter[revokedAt]=null&page[limit]=1` }, 200);
        await counts.getByRole('link', { name: `${live.meta.total} Live sessions` }).waitFor();
        // carol's and gone's sign-ins (a deleted user's events stay)
        const chart = page.getByRole('img', { name: /^Sign-ins: 2 over 30 days/ });
        await chart.waitFor();
        expect(await page.locator('.event-chart-bar').count()).toBe(30);
        const recent = page.getByRole('region', { name: 'Recent events' });
        await recent.getByRole('link', { name: 'carol', exact: true }).first().waitFor();
        expect(await recent.locator('tbody tr').count()).toBeLessThanOrEqual(10);
        // the realm's keys: its fresh signing key counted, none due for rotation, no warning
        const keys = page.getByRole('region', { name: 'Keys' });
        await keys.getByText(/Active signing keys: [1-9]/).waitFor();
        await keys.getByText('No active signing key is older than 90 days: none is due for rotation.').waitFor();
        expect(await keys.getByRole('list', { name: 'Signing keys due for rotation' }).count()).toBe(0);
        expect(await keys.getByRole('alert').count()).toBe(0);
        expect(await keys.getByRole('link', { name: 'Manage keys' }).getAttribute('href')).toBe(`/console/admin/realms/${realm.id}/keys`);
        await settled(page);
        await expectAccessible(page, 'overview');
        await screenshot(page, 'admin-overview', { fullPage: true });
        watched.assertClean();
    });

    it('follows a dark colour scheme, its pages accessible (contrast included)', async () => {
        const { page } = watched;
        await page.emulateMedia({ colorScheme: 'dark' });
        try {
            for (const path of ['', '/users', '/events']) {
                await page.goto(`${publicUrl}/console/admin/realms/${realm.id}${path}`);
                await page.locator('main h1').first().waitFor();
                await settled(page);
                // the dark palette's background (base.css --bg) is what the page shows
                expect(await page.evaluate(() => (globalThis as unknown as { getComputedStyle(element: unknown): { backgroundColor: string }; document: { documentElement: unknown } })
                    .getComputedStyle((globalThis as unknown as { document: { documentElement: unknown } }).document.documentElement).backgroundColor)).toBe('rgb(20, 23, 27)');
                await expectAccessible(page, `dark ${path || 'overview'}`);
            }
        } finally {
            await page.emulateMedia({ colorScheme: 'light' });
        }
        watched.assertClean();
    });

    it('moves through a list with the arrow keys and opens a row with Enter', async () => {
        const { page } = watched;
        await page.goto(`${publicUrl}/console/admin/realms/${realm.id}/users`);
        await page.getByRole('link', { name: 'carol', exact: true }).waitFor();
        const rows = page.locator('main tbody tr');
        // one tab stop for the rows: the first
        expect(await rows.evaluateAll((list) => list.map((row) => row.getAttribute('tabindex')))).toEqual(['0', '-1', '-1']);
        await rows.first().focus();
        await page.keyboard.press('ArrowDown');
        const focused = () => page.evaluate(() => (globalThis as unknown as { document: { activeElement: { textContent: string } | null } }).document.activeElement?.textContent ?? '');
        expect(await focused()).toContain('dave');
        expect(await rows.nth(1).getAttribute('tabindex')).toBe('0');
        await page.keyboard.press('End');
        expect(await focused()).toContain('erin');
        await page.keyboard.press('ArrowUp');
        await page.keyboard.press('Enter');
        await page.getByRole('heading', { level: 1, name: 'dave' }).waitFor();
        watched.assertClean();
    });

    it('speaks German to a browser that prefers it', async () => {
        const german = await browser.newContext({ locale: 'de-DE', viewport: { width: 1280, height: 800 } });
        try {
            const watchedGerman = await watchedPage(german, { answers: ['/users/@me?fields=id'] });
            const { page } = watchedGerman;
            await signIn(page, 'de');
            await page.getByRole('heading', { level: 1, name: 'Realms' }).waitFor();
            expect(await page.getAttribute('html', 'lang')).toBe('de');
            await page.getByRole('button', { name: 'Abmelden' }).waitFor();
            await page.goto(`${publicUrl}/console/admin/realms/${realm.id}/users`);
            await page.getByRole('heading', { level: 1, name: 'Benutzer' }).waitFor();
            const sections = page.getByRole('navigation', { name: 'Bereiche des Realms' });
            await sections.getByRole('link', { name: 'Ereignisse', exact: true }).waitFor();
            await page.getByRole('link', { name: 'Neuer Benutzer' }).waitFor();
            await page.getByRole('link', { name: 'carol', exact: true }).waitFor();
            await page.getByText(/1–3 von 3/).waitFor();
            await expect.poll(() => page.title()).toBe('Benutzer – Navigation Realm – Realmgate-Verwaltung');
            await expectAccessible(page, 'users in German');
            await sections.getByRole('link', { name: 'Übersicht', exact: true }).click();
            await page.getByRole('region', { name: 'Auf einen Blick' }).getByRole('link', { name: '3 Benutzer' }).waitFor();
            await page.getByRole('region', { name: 'Schlüssel' }).getByText('Kein aktiver Signaturschlüssel ist älter als 90 Tage: Keiner muss rotiert werden.').waitFor();
            await settled(page);
            await expectAccessible(page, 'overview in German');
            watchedGerman.assertClean();
        } finally {
            await german.close();
        }
    });
});
