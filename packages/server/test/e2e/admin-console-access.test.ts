import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ADMIN, startTestApp, type TestApp } from '../app.js';
import { ensureConsoleBuilt, screenshot } from './console-harness.js';
import { describeEachDialect } from '../databases.js';
import { freePort } from '../network.js';

/**
 * The admin console's access areas (clients, roles, permissions, policies,
 * scopes) in Debian's chromium against the app listening in process with the built console: every
 * page loads with no console error, no failed request and no serious or critical axe-core
 * violation; a client is created and its secret rotated (shown once; the old one refused by
 * POST /token); a role gets a permission; a nested policy is built in the tree editor and read back
 * through the API. One browser, one signed-in page, the tests in order (CI budget).
 */
const TIMEOUT = 120_000;
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

describeEachDialect('admin console: clients, roles, permissions, policies and scopes in chromium', (dialect) => {
    let app: TestApp;
    let publicUrl: string;
    let browser: Browser;
    let page: Page;
    let realm: { id: string; name: string };
    const problems: string[] = [];

    beforeAll(async () => {
        ensureConsoleBuilt();
        // the app serves the built admin console in session mode, as `npm start` does
        const port = await freePort();
        publicUrl = `http://127.0.0.1:${port}`;
        // startTestApp hands its options to createApp, which takes the consoles (AppOptions) beside the wiring
        app = await startTestApp(dialect, { publicUrl }, { consoles: ['admin'] } as Parameters<typeof startTestApp>[2]);
        await app.app.listen({ port, host: '127.0.0.1' });
        realm = (await app.json<{ data: { id: string; name: string } }>({ method: 'POST', url: '/realms', payload: { name: 'console-access' } }, 201)).data;
        browser = await chromium.launch({
            executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
            args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-dev-shm-usage'],
        });
        const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
        page = await context.newPage();
        // a step that cannot happen fails where it is, well inside the test's own timeout
        page.setDefaultTimeout(10_000);
        page.on('console', (message) => { if (message.type() === 'error') problems.push(`console: ${message.text()}`); });
        page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
        // a navigation aborts the previous page's pending reads: not a failure of the page
        page.on('requestfailed', (request) => { if (request.failure()?.errorText !== 'net::ERR_ABORTED') problems.push(`failed: ${request.method()} ${request.url()} ${request.failure()?.errorText}`); });
        page.on('response', (response) => { if (response.status() >= 400) problems.push(`${response.status()}: ${response.request().method()} ${response.url()}`); });

        // the console session of the auth pages (session mode): the console sends the browser to sign in
        await page.goto(`${publicUrl}/console/admin/?realm=master`);
        await page.getByLabel('Username or email').fill(ADMIN.name, { timeout: 10_000 }).catch(async (error: unknown) => {
            throw new Error(`no sign-in form at ${page.url()}: ${(await page.locator('body').innerText()).slice(0, 500)} ${problems.join('; ')}`, { cause: error });
        });
        await page.getByLabel('Password').fill(ADMIN.password);
        await page.getByRole('button', { name: 'Sign in', exact: true }).click();
        await page.getByRole('heading', { level: 1, name: 'Realms' }).waitFor();
    }, 180_000);
    afterAll(async () => {
        await browser?.close();
        await app?.dispose();
    });

    const base = () => `${publicUrl}/console/admin/realms/${realm.id}`;

    /** no loading state left on the page (the realtime socket stays open, so the network is never idle) */
    const settled = () => page.locator('.state-loading').first().waitFor({ state: 'hidden' });

    /** opens a console path and waits until its page has settled (no loading state left) */
    async function open(path: string): Promise<void> {
        await page.goto(`${base()}${path}`);
        await page.locator('main h1').first().waitFor();
        await settled();
    }

    async function seriousViolations(): Promise<string[]> {
        await page.evaluate(AXE);
        const violations = await page.evaluate(async () => {
            // the browser's globals, typed here (this file compiles without the DOM library)
            const browserGlobals = globalThis as unknown as {
                document: unknown;
                axe: { run(context: unknown): Promise<{ passes: unknown[]; violations: { id: string; impact: string | null; nodes: { target: string[] }[] }[] }> };
            };
            const result = await browserGlobals.axe.run(browserGlobals.document);
            return { passes: result.passes.length, found: result.violations.map((violation) => ({ id: violation.id, impact: violation.impact, targets: violation.nodes.map((node) => node.target.join(' ')) })) };
        });
        // the scan ran over the page (an empty document passes nothing)
        expect(violations.passes).toBeGreaterThan(0);
        return violations.found.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical').map((violation) => `${violation.id} at ${violation.targets.join(', ')}`);
    }

    const api = async <T>(method: 'GET' | 'POST', url: string, payload?: Record<string, unknown>, status = method === 'POST' ? 201 : 200) =>
        (await app.json<{ data: T }>({ method, url, ...(payload === undefined ? {} : { payload }) }, status)).data;

    it('loads every page of the areas with no console error, no failed request and no serious axe violation', async () => {
        const client = await api<{ id: string }>('POST', '/clients', { realmId: realm.id, name: 'listed-app', redirectUri: 'https://app.example.com/cb' });
        const role = await api<{ id: string }>('POST', '/roles', { realmId: realm.id, name: 'listed-role' });
        const permission = await api<{ id: string }>('POST', '/permissions', { realmId: realm.id, name: 'listed_permission' });
        const policy = await api<{ id: string }>('POST', '/policies', { realmId: realm.id, type: 'composite', name: 'listed-policy' });
        await api('POST', '/policies', { realmId: realm.id, type: 'date', name: 'listed-policy.1', start: '2026-01-01', parentId: policy.id });
        const scope = await api<{ id: string }>('POST', '/scopes', { realmId: realm.id, name: 'listed-scope' });
        const pages = [
            '', '/clients', '/clients/new', `/clients/${client.id}`, `/clients/${client.id}/scopes`, `/clients/${client.id}/secret`,
            '/roles', '/roles/new', `/roles/${role.id}`,
            '/permissions', '/permissions/new', `/permissions/${permission.id}`,
            '/policies', '/policies/new', `/policies/${policy.id}`,
            '/scopes', '/scopes/new', `/scopes/${scope.id}`,
        ];
        const findings: string[] = [];
        for (const path of pages) {
            problems.length = 0;
            await open(path);
            expect(await page.locator('main .state-error').count()).toBe(0);
            findings.push(...problems.map((problem) => `${path}: ${problem}`), ...(await seriousViolations()).map((violation) => `${path}: axe ${violation}`));
        }
        expect(findings).toEqual([]);

        // 360 px wide (the narrowest screen the consoles support): nothing wider than the screen, the tree editor included
        await page.setViewportSize({ width: 360, height: 800 });
        const overflowing: string[] = [];
        for (const path of ['/clients', `/clients/${client.id}`, `/roles/${role.id}`, `/permissions/${permission.id}`, `/policies/${policy.id}`]) {
            await open(path);
            const width = await page.evaluate(() => (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document.documentElement.scrollWidth);
            if (width > 360) overflowing.push(`${path}: ${width}px`);
        }
        await page.setViewportSize({ width: 1280, height: 900 });
        expect(overflowing).toEqual([]);

        // a change made elsewhere appears without a reload (the realtime bus)
        await open('/scopes');
        await page.locator('html[data-realtime-subscribed~="scopes"]').waitFor({ state: 'attached' });
        await api('POST', '/scopes', { realmId: realm.id, name: 'arrived-live' });
        await page.getByRole('link', { name: 'arrived-live' }).waitFor();
    }, TIMEOUT);

    it('creates a confidential client and rotates its secret: shown once, the old one refused by POST /token', async () => {
        await open('/clients/new');
        await page.getByRole('textbox', { name: 'Name', exact: true }).fill('billing');
        await page.getByLabel('Confidential (the server generates a secret, shown once)').check();
        await page.getByLabel('Redirect URIs', { exact: true }).fill('https://billing.example.com/cb\nhttps://billing.example.com/cb2');
        await page.getByLabel('First party (consent is not asked)').check();
        // a refused field: the API's issue is shown beside it
        const backchannel = page.getByLabel('Back-channel logout URI');
        await backchannel.fill('not a uri');
        await page.getByRole('button', { name: 'Create client' }).click();
        await page.locator('#f-backchannelLogoutUri-error').waitFor();
        expect(await backchannel.getAttribute('aria-invalid')).toBe('true');
        await backchannel.fill('https://billing.example.com/logout');
        await page.getByRole('button', { name: 'Create client' }).click();
        const secretField = page.getByLabel('New client secret');
        await secretField.waitFor();
        const first = await secretField.inputValue();
        expect(first.length).toBeGreaterThanOrEqual(16);
        const clientId = /clients\/([0-9a-f-]{36})/.exec(page.url())![1]!;
        const stored = await api<Record<string, unknown>>('GET', `/clients/${clientId}`);
        expect(stored).toMatchObject({
            name: 'billing', firstParty: true, redirectUri: 'https://billing.example.com/cb https://billing.example.com/cb2', backchannelLogoutUri: 'https://billing.example.com/logout', realmId: realm.id,
        });

        const token = (secret: string) => app.request({
            as: null, method: 'POST', url: '/token', headers: { 'content-type': 'application/x-www-form-urlencoded' },
            payload: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: secret, realm_id: realm.id }).toString(),
        });
        expect((await token(first)).statusCode).toBe(200);

        // gone once dismissed, and not shown again on a new visit
        await page.getByRole('button', { name: 'Done' }).click();
        await secretField.waitFor({ state: 'hidden' });
        await open(`/clients/${clientId}/secret`);
        expect(await page.getByLabel('New client secret').count()).toBe(0);

        await page.getByRole('button', { name: 'Rotate secret' }).click();
        await page.getByRole('dialog').getByRole('button', { name: 'Rotate secret' }).click();
        await secretField.waitFor();
        const second = await secretField.inputValue();
        expect(second).not.toBe(first);
        expect((await token(first)).statusCode).toBe(401);
        expect((await token(second)).statusCode).toBe(200);
        await page.reload();
        await page.locator('main h1').first().waitFor();
        await settled();
        expect(await page.getByLabel('New client secret').count()).toBe(0);
        // the consoles guide's pictures (CONSOLE_SCREENSHOTS): the list and the client's page
        await open('/clients');
        await page.getByRole('link', { name: 'billing', exact: true }).waitFor();
        await screenshot(page, 'admin-clients');
        await open(`/clients/${clientId}`);
        await screenshot(page, 'admin-client', { fullPage: true });
    }, TIMEOUT);

    it('creates a role and binds a permission at a realm scope', async () => {
        await open('/roles/new');
        await page.getByRole('textbox', { name: 'Name', exact: true }).fill('auditor');
        await page.getByRole('button', { name: 'Create role' }).click();
        await page.getByRole('heading', { level: 1, name: 'Role auditor' }).waitFor();
        const roleId = /roles\/([0-9a-f-]{36})/.exec(page.url())![1]!;
        await settled();
        await page.getByLabel('Permission', { exact: true }).selectOption({ label: 'user_read' });
        await page.getByLabel('Realm scope', { exact: true }).selectOption('ownOrNull');
        await page.getByRole('button', { name: 'Bind permission' }).click();
        await page.getByRole('button', { name: 'Unbind permission user_read' }).waitFor();

        const [userRead] = (await app.json<{ data: { id: string }[] }>({ method: 'GET', url: '/permissions?filter[name]=user_read&filter[realmId]=null' }, 200)).data;
        const bindings = (await app.json<{ data: Record<string, unknown>[] }>({ method: 'GET', url: `/role-permissions?filter[roleId]=${roleId}` }, 200)).data;
        expect(bindings).toEqual([expect.objectContaining({ roleId, permissionId: userRead!.id, realmScope: 'ownOrNull' })]);

        // the binding's realm scope changed in place
        await page.getByLabel('Realm scope of user_read').selectOption('own');
        await expect.poll(async () => (await api<{ realmScope: string }>('GET', `/role-permissions/${String(bindings[0]!.id)}`)).realmScope).toBe('own');
        await screenshot(page, 'admin-role');
    }, TIMEOUT);

    it('attaches a policy to a permission, detaches it (confirmed) and checks the permission for a user', async () => {
        const permission = await api<{ id: string }>('POST', '/permissions', { realmId: realm.id, name: 'report_read' });
        await api('POST', '/policies', { realmId: realm.id, type: 'identity', name: 'users-only', types: ['user'] });
        const bound = () => app.json<{ data: { policyId: string }[] }>({ method: 'GET', url: `/permission-policies?filter[permissionId]=${permission.id}` }, 200);
        const before = (await bound()).data.length;
        await open(`/permissions/${permission.id}`);
        await page.getByLabel('Policy', { exact: true }).selectOption({ label: 'users-only (identity)' });
        await page.getByRole('button', { name: 'Attach policy' }).click();
        await page.getByRole('link', { name: 'users-only' }).waitFor();
        expect((await bound()).data.length).toBe(before + 1);

        await page.getByRole('button', { name: 'Detach policy users-only' }).click();
        await page.getByRole('dialog').getByRole('button', { name: 'Detach policy' }).click();
        await page.getByRole('link', { name: 'users-only' }).waitFor({ state: 'detached' });
        expect((await bound()).data.length).toBe(before);

        const admin = (await app.json<{ data: { id: string } }>({ method: 'GET', url: '/users/@me' }, 200)).data;
        await page.getByLabel('Subject id').fill(admin.id);
        await page.getByRole('button', { name: 'Check permission' }).click();
        await page.getByText(/Verdict: (allow|deny)/).waitFor();
    }, TIMEOUT);

    it('builds a nested policy in the tree editor, shows a refusal beside its field and stores the tree', async () => {
        await open('/policies/new');
        const nodes = page.locator('fieldset.policy-node');
        const own = (node: Locator, suffix: string) => node.locator(`:scope > .field [id$="-${suffix}"]`);
        const addChild = (node: Locator) => node.locator(':scope > .policy-children > button', { hasText: 'Add child' }).click();

        const root = nodes.nth(0);
        await own(root, 'name').fill('office-hours');
        await own(root, 'decisionStrategy').selectOption('affirmative');
        // preorder: root, time window, inner composite, identity, realm match
        await addChild(root);
        await own(nodes.nth(1), 'type').selectOption('time');
        await own(nodes.nth(1), 'interval').selectOption('weekly');
        await own(nodes.nth(1), 'dayOfWeek').fill('1');
        await own(nodes.nth(1), 'start').fill('25:00');
        await own(nodes.nth(1), 'end').fill('17:00');
        await addChild(root);
        await own(nodes.nth(2), 'type').selectOption('composite');
        await addChild(nodes.nth(2));
        await nodes.nth(3).locator(':scope > fieldset.field').getByLabel('User').check();
        await addChild(nodes.nth(2));
        await own(nodes.nth(4), 'type').selectOption('realmMatch');
        await own(nodes.nth(4), 'scope').selectOption('ownOrNull');

        await page.getByRole('button', { name: 'Create policy' }).click();
        // the server refuses the time of day: the message sits beside that node's field
        const refusal = nodes.nth(1).locator(':scope > .field .field-error');
        await refusal.waitFor();
        expect(await refusal.innerText()).toContain('24-hour');
        expect(await own(nodes.nth(1), 'start').getAttribute('aria-invalid')).toBe('true');
        await own(nodes.nth(1), 'start').fill('09:00');
        await page.getByRole('button', { name: 'Create policy' }).click();
        await page.getByRole('heading', { level: 1, name: 'Policy office-hours' }).waitFor();
        const policyId = /policies\/([0-9a-f-]{36})/.exec(page.url())![1]!;
        await settled();
        await screenshot(page, 'admin-policy', { fullPage: true });

        const tree = await api<Record<string, unknown>>('GET', `/policies/${policyId}/expanded`);
        expect(tree).toMatchObject({
            type: 'composite', name: 'office-hours', decisionStrategy: 'affirmative', realmId: realm.id, parentId: null,
            children: [
                { type: 'time', name: 'office-hours.1', interval: 'weekly', dayOfWeek: 1, start: '09:00:00', end: '17:00:00', parentId: policyId },
                {
                    type: 'composite', name: 'office-hours.2', decisionStrategy: 'unanimous',
                    children: [
                        { type: 'identity', name: 'office-hours.2.1', types: ['user'] },
                        { type: 'realmMatch', name: 'office-hours.2.2', scope: 'ownOrNull' },
                    ],
                },
            ],
        });
        expect((tree.children as unknown[]).length).toBe(2);

        // editing: remove the inner composite's identity node, save (confirmed: it deletes a node)
        await settled();
        await nodes.nth(3).locator(':scope > .actions button').click();
        await page.getByRole('button', { name: 'Save policy' }).click();
        await page.getByRole('dialog').getByRole('button', { name: 'Save and delete' }).click();
        await page.getByText('Saved.').waitFor();
        const edited = await api<{ children: { children?: { type: string }[] }[] }>('GET', `/policies/${policyId}/expanded`);
        expect(edited.children[1]!.children!.map((child) => child.type)).toEqual(['realmMatch']);
    }, TIMEOUT);
}, ['sqlite']);
