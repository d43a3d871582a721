/*
 * First paint of the admin console's users list (target: under 1 s on this machine with
 * 1,000 users, measured in the browser and reported, not a timed test). The app on SQLite with the
 * built consoles listens on a free loopback port; a realm gets 1,000 users through the API; the
 * bootstrap admin signs in once in Debian's chromium, and each of N loads of the users page runs in
 * a fresh browser context holding only the session cookie and the tab's chosen realm (a cold HTTP
 * cache). Per load: the time
 * from navigation start (performance.timeOrigin) to the first row of the list in the DOM (a
 * MutationObserver installed before the page's scripts) and to first-contentful-paint
 * (PerformanceObserver 'paint'). Also the initial JavaScript: the scripts the page loads, as
 * served and gzipped (the server does not compress; a proxy in front would).
 *
 *   node --conditions=source --import tsx packages/server/test/measure/console-first-paint.ts [loads]
 */
import { gzipSync } from 'node:zlib';
import { chromium, type Response } from 'playwright-core';
import { ADMIN, startTestApp } from '../app.js';
import { ensureConsoleBuilt } from '../e2e/console-build.js';
import { freePort } from '../network.js';

const LOADS = Number(process.argv[2] ?? 10);
const USERS = 1000;
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

ensureConsoleBuilt();
const port = await freePort();
const publicUrl = `http://127.0.0.1:${port}`;
const app = await startTestApp('sqlite', { publicUrl }, { consoles: ['admin'] });
await app.app.listen({ port, host: '127.0.0.1' });
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ARGS });
try {
    // a bearer for the set-up: Basic would verify the admin's password hash on every request
    const master = await app.json<{ data: { id: string } }>({ method: 'GET', url: '/realms/master' }, 200);
    const token = await app.json<{ access_token: string }>({
        method: 'POST', url: '/token', as: null,
        payload: { grant_type: 'password', username: ADMIN.name, password: ADMIN.password, realm_id: master.data.id },
    }, 200);
    const authorization = `Bearer ${token.access_token}`;
    const realm = await app.json<{ data: { id: string } }>({ method: 'POST', url: '/realms', payload: { name: 'first-paint' }, headers: { authorization } }, 201);
    const started = performance.now();
    // no passwords: a hash per user would measure bcrypt, not the list
    for (let batch = 0; batch < USERS; batch += 25) {
        await Promise.all(Array.from({ length: Math.min(25, USERS - batch) }, (_, i) => app.json({
            method: 'POST', url: '/users', headers: { authorization },
            payload: { name: `user-${String(batch + i).padStart(4, '0')}`, displayName: `User ${batch + i}`, realmId: realm.data.id },
        }, 201)));
    }
    console.log(`${USERS} users created through POST /users in ${((performance.now() - started) / 1000).toFixed(1)} s`);

    // sign in once; each load then starts from this cookie with an empty cache
    const signIn = await browser.newContext();
    const signInPage = await signIn.newPage();
    await signInPage.goto(`${publicUrl}/console/admin/?realm=master`);
    await signInPage.getByLabel('Username or email').fill(ADMIN.name);
    await signInPage.getByLabel('Password').fill(ADMIN.password);
    await signInPage.getByRole('button', { name: 'Sign in', exact: true }).click();
    await signInPage.getByRole('heading', { name: 'Realms' }).waitFor();
    const storageState = await signIn.storageState();
    // the realm the tab signed in through lives in the tab's sessionStorage (apps/console/src/shared/realm.ts)
    const tab = await signInPage.evaluate<[string, string][]>('Object.entries(sessionStorage)');
    await signIn.close();

    const url = `${publicUrl}/console/admin/realms/${realm.data.id}/users`;
    const firstRow: number[] = [];
    const firstPaint: number[] = [];
    let scripts: { url: string; bytes: number; gzip: number; encoding: string | undefined }[] = [];
    // one unmeasured load first: the server's own first answers (route compilation, statement cache) are not the page's
    for (let load = 0; load <= LOADS; load++) {
        const context = await browser.newContext({ storageState, viewport: { width: 1280, height: 800 } });
        const page = await context.newPage();
        // a script (not a function) so that this Node-typed file needs no DOM types; it runs before the page's own
        await page.addInitScript({
            content: `
                for (const [key, value] of ${JSON.stringify(tab)}) sessionStorage.setItem(key, value);
                new PerformanceObserver((list) => {
                    for (const entry of list.getEntries()) if (entry.name === 'first-contentful-paint') window.__fcp = entry.startTime;
                }).observe({ type: 'paint', buffered: true });
                new MutationObserver((_, observer) => {
                    if (document.querySelector('main table tbody tr a')) {
                        window.__firstRow = performance.now();
                        observer.disconnect();
                    }
                }).observe(document, { childList: true, subtree: true });
            `,
        });
        const responses: Response[] = [];
        page.on('response', (response) => { if (response.request().resourceType() === 'script') responses.push(response); });
        await page.goto(url);
        await page.locator('main table tbody tr a').first().waitFor({ timeout: 30_000 });
        const rows = await page.locator('main table tbody tr').count();
        const timing = await page.waitForFunction(() => {
            const scope = globalThis as unknown as { __firstRow?: number; __fcp?: number };
            return scope.__firstRow !== undefined && scope.__fcp !== undefined ? { row: scope.__firstRow, fcp: scope.__fcp } : undefined;
        });
        const { row, fcp } = (await timing.jsonValue())!;
        if (load > 0) {
            firstRow.push(row);
            firstPaint.push(fcp);
            console.log(`load ${load}: first row ${row.toFixed(0)} ms, first-contentful-paint ${fcp.toFixed(0)} ms (${rows} rows shown)`);
        }
        if (load === 1) {
            scripts = await Promise.all(responses.map(async (response) => {
                const body = await response.body();
                return { url: new URL(response.url()).pathname, bytes: body.length, gzip: gzipSync(body, { level: 9 }).length, encoding: response.headers()['content-encoding'] };
            }));
        }
        await context.close();
    }

    const stats = (samples: number[]) => {
        const sorted = [...samples].sort((a, b) => a - b);
        const median = sorted.length % 2 ? sorted[(sorted.length - 1) / 2]! : (sorted[sorted.length / 2 - 1]! + sorted[sorted.length / 2]!) / 2;
        const p90 = sorted[Math.min(sorted.length - 1, Math.ceil(0.9 * sorted.length) - 1)]!;
        return `median ${median.toFixed(0)} ms, p90 ${p90.toFixed(0)} ms, min ${sorted[0]!.toFixed(0)} ms, max ${sorted.at(-1)!.toFixed(0)} ms`;
    };
    console.log(`\nusers list of a realm with ${USERS} users, ${LOADS} cold loads (fresh context, session cookie only), chromium headless, SQLite`);
    console.log(`navigation start → first user row in the DOM: ${stats(firstRow)}`);
    console.log(`navigation start → first-contentful-paint:     ${stats(firstPaint)}`);
    console.log('\ninitial JavaScript of the users page (every script the load fetched):');
    for (const script of scripts) console.log(`  ${script.url}: ${(script.bytes / 1024).toFixed(1)} kB as served (content-encoding: ${script.encoding ?? 'none'}), ${(script.gzip / 1024).toFixed(1)} kB gzipped`);
    const total = scripts.reduce((sum, script) => ({ bytes: sum.bytes + script.bytes, gzip: sum.gzip + script.gzip }), { bytes: 0, gzip: 0 });
    console.log(`  total: ${(total.bytes / 1024).toFixed(1)} kB as served, ${(total.gzip / 1024).toFixed(1)} kB gzipped (gzip -9)`);
} finally {
    await browser.close();
    await app.dispose();
}
