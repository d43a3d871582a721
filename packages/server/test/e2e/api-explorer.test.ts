import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../app.js';
import { freePort } from '../network.js';

/*
 * The API explorer under /docs: its page policy fits how browsers reach the deployment, it filters
 * the operations by tag, and DOCS_ENABLED=false removes it while GET /openapi.json stays.
 */

/** A name that is neither localhost nor an address: browsers treat it as an ordinary remote host. */
const REMOTE_NAME = 'realmgate.test';

const policyOf = (headers: Record<string, unknown>): string => String(headers['content-security-policy']);

describe('the API explorer in a browser over plain http on a remote host name', () => {
    let app: TestApp;
    let browser: Browser;
    let url: string;

    beforeAll(async () => {
        const port = await freePort();
        url = `http://${REMOTE_NAME}:${port}`;
        app = await startTestApp('sqlite', { publicUrl: url });
        await app.app.listen({ port, host: '127.0.0.1' });
        // the name resolves to the loopback listener inside this browser only
        browser = await chromium.launch({
            executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
            args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu', `--host-resolver-rules=MAP ${REMOTE_NAME} 127.0.0.1`],
        });
    });
    afterAll(async () => {
        await browser?.close();
        await app?.dispose();
    });

    it('renders the operations (its assets load over http) and filters them by tag', async () => {
        const context = await browser.newContext();
        try {
            const page = await context.newPage();
            const failed: string[] = [];
            page.on('requestfailed', (request) => failed.push(`${request.url()}: ${request.failure()?.errorText}`));
            await page.goto(`${url}/docs`);
            // swagger-ui renders the tags one after another; the first one shows its script ran
            const tags = page.locator('.opblock-tag');
            await tags.first().waitFor();
            expect(failed).toEqual([]);
            await page.locator('input.operation-filter-input').fill('docs');
            await expect.poll(() => tags.evaluateAll((found) => found.map((tag) => tag.getAttribute('data-tag'))), { timeout: 30_000 }).toEqual(['docs']);
        } finally {
            await context.close();
        }
    }, 60_000);
});

describe('the API explorer page policy and the DOCS_ENABLED setting', () => {
    it('over plain http: no upgrade-insecure-requests on the page or its assets; the tag filter is on', async () => {
        const app = await startTestApp('sqlite', { publicUrl: 'http://auth.internal:3000' });
        try {
            for (const path of ['/docs', '/docs/static/swagger-ui-bundle.js', '/docs/static/swagger-initializer.js']) {
                const answer = await app.request({ method: 'GET', url: path, as: null });
                expect(answer.statusCode, path).toBe(200);
                expect(policyOf(answer.headers), path).toContain("script-src 'self'");
                expect(policyOf(answer.headers), path).not.toContain('upgrade-insecure-requests');
            }
            const initializer = await app.request({ method: 'GET', url: '/docs/static/swagger-initializer.js', as: null });
            expect(initializer.body).toMatch(/"filter":\s*true/);
        } finally {
            await app.dispose();
        }
    });

    it('over https: the policy keeps upgrade-insecure-requests', async () => {
        const app = await startTestApp('sqlite', { publicUrl: 'https://auth.example.com' });
        try {
            const answer = await app.request({ method: 'GET', url: '/docs', as: null });
            expect(answer.statusCode).toBe(200);
            expect(policyOf(answer.headers)).toContain('upgrade-insecure-requests');
        } finally {
            await app.dispose();
        }
    });

    it('DOCS_ENABLED=false: /docs and its assets answer 404, /openapi.json is served and names no /docs', async () => {
        const app = await startTestApp('sqlite', { docsEnabled: false });
        try {
            for (const path of ['/docs', '/docs/', '/docs/json', '/docs/static/index.html']) {
                expect((await app.request({ method: 'GET', url: path, as: null })).statusCode, path).toBe(404);
            }
            const document = await app.json<{ paths: Record<string, unknown> }>({ method: 'GET', url: '/openapi.json', as: null }, 200);
            expect(document.paths['/openapi.json']).toBeDefined();
            expect(Object.keys(document.paths).filter((path) => path.startsWith('/docs'))).toEqual([]);
        } finally {
            await app.dispose();
        }
    });
});
