import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../app.js';
import { authorizeParams, browserWorld, type BrowserWorld } from '../browser.js';
import { describeEachDialect } from '../databases.js';
import { freePort } from '../network.js';

/*
 * A branded realm's sign-in page in Debian's chromium: its logo (an https URL, answered by the
 * test through request interception, so the page's CSP is what decides whether it may load) and
 * its primary colour (its stylesheet, /realms/:realm/branding.css) show, under a
 * Content-Security-Policy header identical to an unbranded realm's, with no CSP violation and no
 * console error. The page is German for `ui_locales=de` and for a browser whose language is German.
 * SQLite only: the realm fields are the HTTP suite's on every dialect.
 */
const LOGO_URL = 'https://logo.example.test/acme.svg';
const LOGO_SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="120" height="40"><rect width="120" height="40" fill="#0b3d91"/></svg>';

/** Every CSP violation and console error of a page, recorded from before its first script. */
async function watch(context: BrowserContext): Promise<{ page: Page; problems: string[] }> {
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('console', (message) => {
        if (message.type() === 'error') problems.push(`console: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`page: ${error.message}`));
    await page.exposeFunction('reportViolation', (text: string) => problems.push(`csp: ${text}`));
    // an init script runs before the page's own and is not subject to its CSP
    await page.addInitScript({ content: "document.addEventListener('securitypolicyviolation', (event) => window.reportViolation(event.violatedDirective + ' ' + event.blockedURI));" });
    return { page, problems };
}

describeEachDialect('end to end: branded and German sign-in pages in chromium', (dialect) => {
    let app: TestApp;
    let browser: Browser;
    let publicUrl: string;
    let branded: BrowserWorld;
    let plain: BrowserWorld;
    const contexts: BrowserContext[] = [];

    const authorizeUrl = (world: BrowserWorld, extra: Record<string, string> = {}) =>
        `${publicUrl}/authorize?${new URLSearchParams(authorizeParams(world, extra).params).toString()}`;
    const newContext = async (options: { locale?: string } = {}) => {
        const context = await browser.newContext({ viewport: { width: 1024, height: 768 }, ...options });
        context.setDefaultTimeout(10_000);
        // the logo's host: answered here, after the page's CSP allowed the request
        await context.route('https://logo.example.test/**', (route) => route.fulfill({ status: 200, contentType: 'image/svg+xml', body: LOGO_SVG }));
        contexts.push(context);
        return context;
    };

    beforeAll(async () => {
        const port = await freePort();
        publicUrl = `http://127.0.0.1:${port}`;
        app = await startTestApp(dialect, { publicUrl });
        await app.app.listen({ port, host: '127.0.0.1' });
        branded = await browserWorld(app);
        await app.json({ method: 'POST', url: `/realms/${branded.realmId}`, payload: { displayName: 'Acme Corp', logoUrl: LOGO_URL, primaryColor: '#ffd700' } }, 200);
        plain = await browserWorld(app);
        browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu'] });
    }, 120_000);
    afterAll(async () => {
        for (const context of contexts) await context.close();
        await browser?.close();
        await app?.dispose();
    });

    /** The computed colours of the page's first submit button. */
    type Styled = { ownerDocument: { defaultView: { getComputedStyle(element: unknown): { backgroundColor: string; color: string } } } };
    const buttonColours = (page: Page) => page.locator('button[type="submit"]').first().evaluate((button) => {
        const style = (button as unknown as Styled).ownerDocument.defaultView.getComputedStyle(button);
        return { background: style.backgroundColor, text: style.color };
    });

    it('shows the logo and the primary colour under the unbranded page\'s CSP, without a violation', async () => {
        const { page, problems } = await watch(await newContext());
        const response = await page.goto(authorizeUrl(branded));
        expect(response?.status()).toBe(200);
        const policy = response!.headers()['content-security-policy'];
        await expect.poll(() => page.locator('img.logo').evaluate((image) => (image as unknown as { complete: boolean; naturalWidth: number }).naturalWidth)).toBe(120);
        expect(await page.locator('p.realm').textContent()).toBe('Acme Corp');
        // gold is light: black text on it (WCAG contrast)
        expect(await buttonColours(page)).toEqual({ background: 'rgb(255, 215, 0)', text: 'rgb(0, 0, 0)' });

        const unbranded = await watch(await newContext());
        const plainResponse = await unbranded.page.goto(authorizeUrl(plain));
        expect(plainResponse!.headers()['content-security-policy']).toBe(policy);
        expect(await unbranded.page.locator('img.logo').count()).toBe(0);
        expect(await buttonColours(unbranded.page)).toEqual({ background: 'rgb(29, 78, 216)', text: 'rgb(255, 255, 255)' });
        expect([...problems, ...unbranded.problems]).toEqual([]);
    });

    it('renders German for ui_locales=de and for a German browser, English otherwise', async () => {
        const { page, problems } = await watch(await newContext());
        await page.goto(authorizeUrl(plain, { ui_locales: 'de' }));
        expect(await page.locator('html').getAttribute('lang')).toBe('de');
        expect(await page.locator('label[for="password"]').textContent()).toBe('Passwort');
        // a wrong password: the page after the form's post is German as well
        await page.fill('#username', plain.user.name);
        await page.fill('#password', 'not-the-password');
        await page.click('button[type="submit"]');
        await expect.poll(() => page.locator('p.error:not([data-passkey-error])').textContent()).toBe('Der Benutzername oder das Passwort ist falsch.');
        expect(await page.locator('html').getAttribute('lang')).toBe('de');

        // Chromium sends Accept-Language from the context's locale
        const german = await watch(await newContext({ locale: 'de-DE' }));
        await german.page.goto(authorizeUrl(plain));
        expect(await german.page.locator('html').getAttribute('lang')).toBe('de');
        expect(await german.page.locator('button[type="submit"]').first().textContent()).toBe('Anmelden');

        const english = await watch(await newContext({ locale: 'en-US' }));
        await english.page.goto(authorizeUrl(plain));
        expect(await english.page.locator('html').getAttribute('lang')).toBe('en');
        // the wrong password's page answers 401, which chromium logs as a failed load: the one expected entry
        expect(problems).toEqual(['console: Failed to load resource: the server responded with a status of 401 (Unauthorized)']);
        expect([...german.problems, ...english.problems]).toEqual([]);
    });
}, ['sqlite']);
