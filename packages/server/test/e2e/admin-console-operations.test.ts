import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { RealmScope } from '@realmgate/core';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { fillEventAggregates } from '../../src/domains/event-log/maintenance.js';
import { createActor } from '../actors.js';
import { ADMIN, startTestApp, type TestApp } from '../app.js';
import { describeEachDialect } from '../databases.js';
import { freePort } from '../network.js';
import { login, probe } from '../sessions.js';
import { ensureConsoleBuilt, screenshot } from './console-harness.js';

/**
 * The admin console's operations areas (sessions, keys, identity providers,
 * folders, events, and the realm scope of user and client grants) in Debian's chromium against the
 * app listening in process with the built console: every page loads with no console error, no
 * failed request and no serious or critical axe-core violation; a key generated and an in-use key's
 * 409 explained; an OpenID Connect provider created with a mapping; a session revoked from the
 * console and its token refused by the API; the events chart counting the day's sign-in; a realm
 * administrator of realm A refused realm B's sessions and keys pages. One browser, the tests in order.
 */
const TIMEOUT = 120_000;
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-dev-shm-usage'];

describeEachDialect('admin console: sessions, keys, identity providers, folders, grants and events in chromium', (dialect) => {
    let app: TestApp;
    let publicUrl: string;
    let browser: Browser;
    let page: Page;
    let realm: { id: string; name: string };
    const problems: string[] = [];

    beforeAll(async () => {
        ensureConsoleBuilt();
        const port = await freePort();
        publicUrl = `http://127.0.0.1:${port}`;
        // startTestApp hands its options to createApp, which takes the consoles (AppOptions) beside the wiring
        app = await startTestApp(dialect, { publicUrl }, { consoles: ['admin'] } as Parameters<typeof startTestApp>[2]);
        await app.app.listen({ port, host: '127.0.0.1' });
        realm = (await app.json<{ data: { id: string; name: string } }>({ method: 'POST', url: '/realms', payload: { name: 'console-operations' } }, 201)).data;
        browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
        const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
        page = await context.newPage();
        page.setDefaultTimeout(10_000);
        page.on('console', (message) => { if (message.type() === 'error') problems.push(`console: ${message.text()}`); });
        page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
        // a navigation aborts the previous page's pending reads: not a failure of the page
        page.on('requestfailed', (request) => { if (request.failure()?.errorText !== 'net::ERR_ABORTED') problems.push(`failed: ${request.method()} ${request.url()} ${request.failure()?.errorText}`); });
        page.on('response', (response) => { if (response.status() >= 400) problems.push(`${response.status()}: ${response.request().method()} ${response.url()}`); });

        // master's admin-console client (the realm screen is skipped by naming the realm)
        await page.goto(`${publicUrl}/console/admin/?realm=master`);
        await page.getByLabel('Username or email').fill(ADMIN.name);
        await page.getByLabel('Password').fill(ADMIN.password);
        await page.getByRole('button', { name: 'Sign in', exact: true }).click();
        await page.getByRole('heading', { level: 1, name: 'Realms' }).waitFor();
    }, 180_000);
    afterAll(async () => {
        await browser?.close();
        await app?.dispose();
    });

    const base = () => `${publicUrl}/console/admin/realms/${realm.id}`;
    const settled = (on: Page = page) => on.locator('.state-loading').first().waitFor({ state: 'hidden' });

    async function open(path: string): Promise<void> {
        await page.goto(`${base()}${path}`);
        await page.locator('main h1').first().waitFor();
        await settled();
    }

    async function seriousViolations(): Promise<string[]> {
        await page.evaluate(AXE);
        const violations = await page.evaluate(async () => {
            const browserGlobals = globalThis as unknown as {
                document: unknown;
                axe: { run(context: unknown): Promise<{ passes: unknown[]; violations: { id: string; impact: string | null; nodes: { target: string[] }[] }[] }> };
            };
            const result = await browserGlobals.axe.run(browserGlobals.document);
            return { passes: result.passes.length, found: result.violations.map((violation) => ({ id: violation.id, impact: violation.impact, targets: violation.nodes.map((node) => node.target.join(' ')) })) };
        });
        expect(violations.passes).toBeGreaterThan(0);
        return violations.found.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical').map((violation) => `${violation.id} at ${violation.targets.join(', ')}`);
    }

    const api = async <T>(method: 'GET' | 'POST', url: string, payload?: Record<string, unknown>, status = method === 'POST' ? 201 : 200) =>
        (await app.json<{ data: T }>({ method, url, ...(payload === undefined ? {} : { payload }) }, status)).data;

    const user = async (name: string, extra: Record<string, unknown> = {}) =>
        api<{ id: string }>('POST', '/users', { realmId: realm.id, name, password: `${name}-password`, ...extra });

    it('loads every page of the areas with no console error, no failed request and no serious axe violation', async () => {
        const folder = await api<{ id: string }>('POST', '/paths', { realmId: realm.id, name: 'staff' });
        await api('POST', '/paths', { realmId: realm.id, name: 'berlin', parentId: folder.id });
        const dora = await user('dora', { pathId: folder.id });
        await login(app, realm.id, 'dora', 'dora-password');
        const client = await api<{ id: string }>('POST', '/clients', { realmId: realm.id, name: 'ops-app', redirectUri: 'https://ops.example.com/cb', pathId: folder.id });
        const provider = await api<{ id: string }>('POST', '/identity-providers', { realmId: realm.id, name: 'upstream', protocol: 'ldap', url: 'ldap://ldap.example.com', baseDn: 'dc=example,dc=com', bindPassword: 'never-shown' });
        await api('POST', '/identity-provider-attribute-mappings', { providerId: provider.id, source: 'mail', target: 'field', targetName: 'email' });
        const role = await api<{ id: string }>('POST', '/roles', { realmId: realm.id, name: 'ops-role' });
        await api('POST', '/identity-provider-role-mappings', { providerId: provider.id, value: 'admins', roleId: role.id });
        const [userRead] = await api<{ id: string }[]>('GET', '/permissions?filter[name]=user_read&filter[realmId]=null');
        await api('POST', '/user-permissions', { userId: dora.id, permissionId: userRead!.id, realmScope: 'own' });
        await api('POST', '/client-permissions', { clientId: client.id, permissionId: userRead!.id, realmScope: 'ownOrNull' });
        await api('POST', '/client-roles', { clientId: client.id, roleId: role.id });
        const pages = [
            '/sessions', '/keys', '/keys/new',
            '/identity-providers', '/identity-providers/new', `/identity-providers/${provider.id}`,
            '/folders', '/folders/new', `/folders/${folder.id}`,
            '/events',
            `/users/${dora.id}/permissions`, `/clients/${client.id}/roles`, `/clients/${client.id}/permissions`,
        ];
        const findings: string[] = [];
        for (const path of pages) {
            problems.length = 0;
            await open(path);
            expect(await page.locator('main .state-error').count(), path).toBe(0);
            findings.push(...problems.map((problem) => `${path}: ${problem}`), ...(await seriousViolations()).map((violation) => `${path}: axe ${violation}`));
        }
        expect(findings).toEqual([]);

        // 360 px wide (the narrowest screen the consoles support): nothing wider than the screen, the chart and the key ids included
        await page.setViewportSize({ width: 360, height: 800 });
        const overflowing: string[] = [];
        for (const path of ['/sessions', '/keys', `/identity-providers/${provider.id}`, `/folders/${folder.id}`, '/events', `/clients/${client.id}/permissions`]) {
            await open(path);
            const width = await page.evaluate(() => (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document.documentElement.scrollWidth);
            if (width > 360) overflowing.push(`${path}: ${width}px`);
        }
        await page.setViewportSize({ width: 1280, height: 900 });
        expect(overflowing).toEqual([]);

        // what lives in a folder: its subfolder, its user and its client
        await open(`/folders/${folder.id}`);
        await page.getByRole('link', { name: 'staff/berlin' }).waitFor();
        await page.getByRole('link', { name: 'dora' }).waitFor();
        await page.getByRole('link', { name: 'ops-app' }).waitFor();
        // a user is filed in another folder from the user's page, a client taken out of its folder
        const berlin = (await api<{ id: string; name: string }[]>('GET', `/paths?filter[realmId]=${realm.id}`)).find((row) => row.name === 'berlin')!;
        await open(`/users/${dora.id}`);
        await page.getByLabel('Folder', { exact: true }).selectOption({ label: 'staff/berlin' });
        await page.getByRole('button', { name: 'Move to folder' }).click();
        await page.getByText('Filed in staff/berlin.').waitFor();
        expect((await api<{ pathId: string | null }>('GET', `/users/${dora.id}`)).pathId).toBe(berlin.id);
        await open(`/clients/${client.id}`);
        await page.getByLabel('Folder', { exact: true }).selectOption('');
        await page.getByRole('button', { name: 'Move to folder' }).click();
        await page.getByText('Taken out of its folder.').waitFor();
        expect((await api<{ pathId: string | null }>('GET', `/clients/${client.id}`)).pathId).toBeNull();
        // a secret is write-only: the bind password is never read back into the form
        await open(`/identity-providers/${provider.id}`);
        expect(await page.getByLabel('Bind password').inputValue()).toBe('');
        await page.getByText('mail → field email').waitFor();
        await page.getByText('groups = admins → role ops-role').or(page.getByText('group = admins → role ops-role')).waitFor();

        // the grants' realm scope is shown and changed in place (a client's direct permission)
        await open(`/clients/${client.id}/permissions`);
        await page.getByLabel('Realm scope of user_read').selectOption('own');
        const [binding] = await api<{ realmScope: string }[]>('GET', `/client-permissions?filter[clientId]=${client.id}`);
        await expect.poll(async () => (await api<{ realmScope: string }[]>('GET', `/client-permissions?filter[clientId]=${client.id}`))[0]!.realmScope).toBe('own');
        expect(binding).toBeDefined();

        // the events list filters by type and date without a refusal
        problems.length = 0;
        await open('/events');
        await page.getByLabel('Type', { exact: true }).fill('session.created');
        const today = new Date().toISOString().slice(0, 10);
        await page.getByLabel('Date', { exact: true }).selectOption('from');
        await page.getByLabel('Day', { exact: true }).fill(today);
        await page.getByRole('button', { name: 'Filter events' }).click();
        await page.getByRole('cell', { name: 'session.created' }).first().waitFor().catch(async (error: unknown) => {
            throw new Error(`${problems.join('; ')} ${(await page.locator('main').innerText()).slice(-800)}`, { cause: error });
        });
        // the sessions list filters by the user's name (a relation filter)
        await open('/sessions');
        await page.getByLabel('Filter text').fill('dora');
        await page.getByRole('link', { name: 'dora' }).first().waitFor();
        expect(problems).toEqual([]);

        // a change made elsewhere appears without a reload (the realtime bus)
        await open('/folders');
        await page.locator('html[data-realtime-subscribed~="paths"]').waitFor({ state: 'attached' });
        await api('POST', '/paths', { realmId: realm.id, name: 'arrived-live' });
        await page.getByRole('link', { name: 'arrived-live' }).waitFor();
    }, TIMEOUT);

    it('generates a key, and explains the 409 of deleting a key secrets are still sealed under', async () => {
        await open('/keys/new');
        await page.getByLabel('Kind and algorithm').selectOption('sig:RS256');
        await page.getByRole('button', { name: 'Generate key' }).click();
        await page.getByRole('heading', { level: 1, name: 'Keys' }).waitFor();
        // the realm was created with an RS256 key (every advertised algorithm is published from the
        // start, OIDC Core §10.1.1): the generated one is the second
        await page.getByRole('cell', { name: 'RS256' }).nth(1).waitFor();
        const keys = await api<{ id: string; algorithm: string; status: string; use: string }[]>('GET', `/keys?filter[realmId]=${realm.id}&page[limit]=100`);
        expect(keys.filter((key) => key.algorithm === 'RS256' && key.status === 'active')).toHaveLength(2);
        // never key material in the page
        expect(await page.locator('main').innerText()).not.toMatch(/"d"|PRIVATE KEY|"kty"/);

        // a confidential client's secret is sealed under the realm's active encryption key
        await api('POST', '/clients', { realmId: realm.id, name: 'sealed', secret: 'sealed-secret-1234', secretEncrypted: true });
        const encryption = keys.filter((key) => key.use === 'enc' && key.status === 'active');
        expect(encryption).toHaveLength(1);
        const keyId = encryption[0]!.id;
        await page.reload();
        await page.locator('main h1').first().waitFor();
        await settled();
        await page.getByRole('button', { name: `Delete key ${keyId}` }).click();
        await page.getByRole('dialog').getByRole('button', { name: 'Delete key' }).click();
        const explained = page.locator('.key-conflict');
        await explained.getByRole('heading', { name: 'The key was not deleted' }).waitFor();
        const text = await explained.innerText();
        expect(text).toContain('still in use');
        expect(text).toContain('client secret');
        expect(text).toContain('What to do instead');
        expect(text).toContain('Disable the key instead');
        await screenshot(page, 'admin-keys', { fullPage: true });
        // the key is still there, and the way out offered is the reversible one
        await api('GET', `/keys/${keyId}`);
        await explained.getByRole('button', { name: 'Disable the key instead' }).click();
        await page.getByRole('dialog').getByRole('button', { name: 'Disable key' }).click();
        await expect.poll(async () => (await api<{ status: string }>('GET', `/keys/${keyId}`)).status).toBe('disabled');
        await page.getByRole('button', { name: `Enable key ${keyId}` }).click();
        await expect.poll(async () => (await api<{ status: string }>('GET', `/keys/${keyId}`)).status).toBe('active');
    }, TIMEOUT);

    it('creates an OpenID Connect identity provider (secret write-only) with an attribute mapping, a refusal shown beside its field', async () => {
        await open('/identity-providers/new');
        await page.getByLabel('Protocol').selectOption('oidc');
        await page.getByRole('textbox', { name: 'Name', exact: true }).fill('corporate');
        await page.getByLabel('Issuer').fill('not a url');
        await page.getByLabel('Client id').fill('realmgate');
        await page.getByLabel('Client secret').fill('upstream-secret');
        await page.getByRole('button', { name: 'Create identity provider' }).click();
        await page.locator('#provider-issuer-error').waitFor();
        expect(await page.getByLabel('Issuer').getAttribute('aria-invalid')).toBe('true');
        await page.getByLabel('Issuer').fill('https://login.example.com');
        await page.getByRole('button', { name: 'Create identity provider' }).click();
        await page.getByRole('heading', { level: 1, name: 'Identity provider corporate' }).waitFor();
        const providerId = /identity-providers\/([0-9a-f-]{36})/.exec(page.url())![1]!;
        await settled();
        expect(await page.getByLabel('Client secret').inputValue()).toBe('');

        await page.getByLabel('Source claim or attribute').fill('given_name');
        await page.locator('#attribute-mapping-target').selectOption('field');
        await page.getByLabel('Target name').fill('firstName');
        await page.getByRole('button', { name: 'Add attribute mapping' }).click();
        await page.getByText('given_name → field firstName').waitFor();

        const stored = await api<Record<string, unknown>>('GET', `/identity-providers/${providerId}`);
        expect(stored).toMatchObject({ name: 'corporate', protocol: 'oidc', issuer: 'https://login.example.com', clientId: 'realmgate', realmId: realm.id });
        expect(stored.clientSecret ?? null).toBeNull();
        const revealed = await api<{ clientSecret: string }>('GET', `/identity-providers/${providerId}?fields=+clientSecret`);
        expect(revealed.clientSecret).toBe('upstream-secret');
        const mappings = await api<Record<string, unknown>[]>('GET', `/identity-provider-attribute-mappings?filter[providerId]=${providerId}`);
        expect(mappings).toEqual([expect.objectContaining({ source: 'given_name', target: 'field', targetName: 'firstName' })]);

        // saving without touching the secret keeps it
        await page.getByLabel('Display name').fill('Corporate login');
        await page.getByRole('button', { name: 'Save identity provider' }).click();
        await page.getByText('Saved.').waitFor();
        expect((await api<{ clientSecret: string }>('GET', `/identity-providers/${providerId}?fields=+clientSecret`)).clientSecret).toBe('upstream-secret');
    }, TIMEOUT);

    it('revokes a session from the console: its token is refused by the API', async () => {
        await user('erin');
        const session = await login(app, realm.id, 'erin', 'erin-password');
        expect(await probe(app, session.bearer)).toBe(200);
        await open('/sessions');
        await page.getByLabel('Filter text').fill('erin');
        await page.getByRole('link', { name: 'erin' }).waitFor();
        await page.getByRole('button', { name: /^Revoke session of erin/ }).click();
        await page.getByRole('dialog').getByRole('button', { name: 'Revoke session' }).click();
        await page.getByText('Session revoked.').waitFor();
        await expect.poll(() => probe(app, session.bearer)).toBe(401);

        // every session of a user, confirmed
        const first = await login(app, realm.id, 'erin', 'erin-password');
        const second = await login(app, realm.id, 'erin', 'erin-password');
        await open('/sessions');
        await page.getByLabel('Filter text').fill('erin');
        await page.getByRole('button', { name: 'Revoke all of erin' }).first().waitFor();
        // the filter applied (it is debounced), so the picture shows erin's sessions only
        await page.getByRole('link', { name: 'dora', exact: true }).waitFor({ state: 'detached' });
        await screenshot(page, 'admin-sessions');
        await page.getByRole('button', { name: 'Revoke all of erin' }).first().click();
        await page.getByRole('dialog').getByRole('button', { name: 'Revoke all sessions' }).click();
        await page.getByText('Every session of erin was revoked.').waitFor();
        expect(await probe(app, first.bearer)).toBe(401);
        expect(await probe(app, second.bearer)).toBe(401);
    }, TIMEOUT);

    it('shows the events chart with the day\'s sign-ins counted', async () => {
        await user('fred');
        await login(app, realm.id, 'fred', 'fred-password');
        // the day aggregates are the worker's (every minute); run its pass now
        await fillEventAggregates(app.deps, new Date());
        const signIns = (await app.json<{ data: { count: number }[] }>({
            method: 'GET', url: `/realms/${realm.id}/events/@stats?group=${encodeURIComponent('bucket(createdAt,day)')}&filter[name]=session.created&filter[createdAt]=${encodeURIComponent(`>=${new Date().toISOString().slice(0, 10)}T00:00:00Z`)}`,
        }, 200)).data.reduce((sum, bucket) => sum + bucket.count, 0);
        expect(signIns).toBeGreaterThanOrEqual(1);

        await open('/events');
        const chart = page.getByRole('img', { name: /^Sign-ins: \d+ over 30 days/ });
        await chart.waitFor();
        expect(await page.locator('.event-chart-bar').count()).toBe(30);
        await screenshot(page, 'admin-events');
        const today = new Date().toISOString().slice(0, 10);
        await page.getByText('The numbers, day by day').click();
        const row = page.locator(`tr[data-day="${today}"] td`);
        expect(Number(await row.innerText())).toBe(signIns);
        expect(await chart.getAttribute('aria-label')).toContain(today);
    }, TIMEOUT);

    it('tells a realm administrator of realm A plainly that realm B\'s sessions and keys pages are not theirs, showing none of their data', async () => {
        const realmA = (await app.json<{ data: { id: string; name: string } }>({ method: 'POST', url: '/realms', payload: { name: 'admin-a' } }, 201)).data;
        const realmB = (await app.json<{ data: { id: string; name: string } }>({ method: 'POST', url: '/realms', payload: { name: 'admin-b' } }, 201)).data;
        const grants = ['session_read', 'session_delete', 'key_read', 'key_update', 'key_delete', 'realm_read', 'user_read']
            .map((permission) => ({ permission, scope: RealmScope.OWN }));
        const actor = await createActor(app, realmA.id, grants);
        // someone signed in to realm B: a session row its pages would list
        await app.json({ method: 'POST', url: '/users', payload: { realmId: realmB.id, name: 'bea', password: 'bea-password' } }, 201);
        await login(app, realmB.id, 'bea', 'bea-password');

        const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
        const other = await context.newPage();
        other.setDefaultTimeout(10_000);
        const seen: string[] = [];
        other.on('response', (response) => { if (!response.url().includes('/console/') && (response.url().includes(`/realms/${realmB.id}/sessions`) || response.url().includes(`/realms/${realmB.id}/keys`))) seen.push(`${response.status()} ${response.url()}`); });
        try {
            // realm A's administrator signs in through realm A (its own admin-console client, the console session cookie)
            await other.goto(`${publicUrl}/console/admin/?realm=${realmA.name}`);
            await other.getByLabel('Username or email').fill(actor.name).catch(async (error: unknown) => {
                throw new Error(`no sign-in form at ${other.url()}: ${(await other.locator('body').innerText()).slice(0, 500)}`, { cause: error });
            });
            await other.getByLabel('Password').fill('secret-password');
            await other.getByRole('button', { name: 'Sign in', exact: true }).click();
            await other.getByRole('heading', { level: 1, name: 'Realms' }).waitFor();

            for (const section of ['sessions', 'keys']) {
                await other.goto(`${publicUrl}/console/admin/realms/${realmB.id}/${section}`);
                const refusal = other.getByRole('alert').filter({ hasText: 'You are not allowed to view this page in this realm' });
                await refusal.waitFor();
                expect(await refusal.innerText()).toContain(section === 'sessions' ? 'session_read' : 'key_read');
                await other.getByRole('heading', { level: 1, name: 'Not allowed' }).waitFor();
                expect(await other.locator('main table').count()).toBe(0);
            }
            // no data of realm B was even asked for
            expect(seen).toEqual([]);
            // and the own realm's pages open
            await other.goto(`${publicUrl}/console/admin/realms/${realmA.id}/sessions`);
            await other.getByRole('heading', { level: 1, name: 'Sessions' }).waitFor();
            await settled(other);
            expect(await other.getByText('You are not allowed').count()).toBe(0);
        } finally {
            await context.close();
        }
    }, TIMEOUT);
}, ['sqlite']);
