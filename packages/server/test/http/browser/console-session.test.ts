import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, startTestApp, useTestApp } from '../../app.js';
import { authorizeParams, browser, browserWorld, createBrowserClient, locationParams, type Browser } from '../../browser.js';
import { describeEachDialect } from '../../databases.js';
import { masterRealmId } from '../../identities.js';
import { toDbDate } from '../../../src/db/values.js';

/*
 * The console session is a credential on the API too (not narrowed by a client),
 * with CSRF protection on unsafe methods; a revoked, expired or mismatched cookie is no session.
 * Item 1: AUTH_CONSOLE_PATH substitutes the pages; another contract version stops the boot.
 */
describeEachDialect('console session as an API credential', (dialect) => {
    const app = useTestApp(dialect);
    let admin: Browser;
    let cookie: string;
    beforeAll(async () => {
        const realmId = await masterRealmId(app);
        const clientId = await createBrowserClient(app, realmId, { redirectUri: 'https://console.example/cb', firstParty: true });
        admin = browser(app);
        const world = { realmId, realmName: 'master', clientId, redirectUri: 'https://console.example/cb', user: { id: '', name: ADMIN.name, password: ADMIN.password, email: '' } };
        const answer = await admin.submit(await admin.authorize(authorizeParams(world).params), { username: ADMIN.name, password: ADMIN.password });
        expect(locationParams(answer).params.code).toBeDefined();
        cookie = admin.jar.header();
    });

    const withCookie = (method: 'GET' | 'POST', url: string, headers: Record<string, string> = {}, payload?: unknown) =>
        app.request({ method, url, as: null, headers: { cookie, ...headers }, ...(payload ? { payload } : {}) });

    it('authenticates GET requests as the signed-in user, not narrowed by a client', async () => {
        const me = await withCookie('GET', '/users/@me');
        expect(me.statusCode, me.body).toBe(200);
        expect((me.json() as { data: { name: string } }).data.name).toBe(ADMIN.name);
        // the admin's grants apply in full (rule 8: no client narrows a cookie)
        expect((await withCookie('GET', '/users')).statusCode).toBe(200);
        expect((await app.request({ method: 'GET', url: '/users/@me', as: null })).statusCode).toBe(401);
    });

    it('refuses an unsafe request without the server\'s Origin or X-Requested-With', async () => {
        const name = (suffix: string) => ({ name: `csrf-${dialect}-${suffix}` });
        const bare = await withCookie('POST', '/realms', {}, name('bare'));
        expect(bare.statusCode).toBe(403);
        expect(bare.json()).toMatchObject({ code: 'permission_denied' });
        expect((await withCookie('POST', '/realms', { origin: 'https://evil.example' }, name('evil'))).statusCode).toBe(403);
        expect((await withCookie('POST', '/realms', { origin: admin.origin }, name('origin'))).statusCode).toBe(201);
        expect((await withCookie('POST', '/realms', { 'x-requested-with': 'XMLHttpRequest' }, name('header'))).statusCode).toBe(201);
    });

    it('is no session once revoked (DELETE /sessions/:id), nor with a wrong secret', async () => {
        const sessionId = admin.jar.cookies.get('realmgate_session')!.split('.')[0]!;
        const wrong = `realmgate_session=${sessionId}.${'A'.repeat(43)}`;
        expect((await app.request({ method: 'GET', url: '/users/@me', as: null, headers: { cookie: wrong } })).statusCode).toBe(401);
        expect((await app.request({ method: 'GET', url: '/users/@me', as: null, headers: { cookie: 'realmgate_session=garbage' } })).statusCode).toBe(401);
        expect((await app.request({ method: 'DELETE', url: `/sessions/${sessionId}` })).statusCode).toBeLessThan(300);
        expect((await withCookie('GET', '/users/@me')).statusCode).toBe(401);
        // and the browser is asked to sign in again
        const world = await browserWorld(app, { firstParty: true });
        expect((await admin.authorize(authorizeParams(world).params)).statusCode).toBe(200);
    });

    it('is no session once expired', async () => {
        const world = await browserWorld(app, { firstParty: true });
        const client = browser(app);
        await client.submit(await client.authorize(authorizeParams(world).params), { username: world.user.name, password: world.user.password });
        expect((await client.get('/users/@me')).statusCode).toBe(200);
        const sessionId = client.jar.cookies.get('realmgate_session')!.split('.')[0]!;
        await app.deps.db.updateTable('auth_sessions').set({ expires_at: toDbDate(app.deps.handle.dialect, new Date(Date.now() - 1000)) }).where('id', '=', sessionId).execute();
        expect((await client.get('/users/@me')).statusCode).toBe(401);
        expect(locationParams(await client.authorize(authorizeParams(world, { prompt: 'none' }).params)).params.error).toBe('login_required');
    });

    it('ends with the user: a deactivated user\'s cookie is no session', async () => {
        const world = await browserWorld(app, { firstParty: true });
        const client = browser(app);
        await client.submit(await client.authorize(authorizeParams(world).params), { username: world.user.name, password: world.user.password });
        const jar = client.jar.header();
        expect((await app.request({ method: 'GET', url: '/users/@me', as: null, headers: { cookie: jar } })).statusCode).toBe(200);
        await app.json({ method: 'POST', url: `/users/${world.user.id}`, payload: { active: false } }, 200);
        expect((await app.request({ method: 'GET', url: '/users/@me', as: null, headers: { cookie: jar } })).statusCode).toBe(401);
    });
});

describeEachDialect('console session: charged to its user (spec Limits)', (dialect) => {
    const app = useTestApp(dialect, { rateLimit: { userMax: 1_000_000, clientMax: 1_000_000, anonymousMax: 3 } });
    it('spends the user\'s budget, not the address\'s', async () => {
        const world = await browserWorld(app, { firstParty: true });
        const client = browser(app);
        // two anonymous requests: the sign-in page and the form
        const answer = await client.submit(await client.authorize(authorizeParams(world).params), { username: world.user.name, password: world.user.password });
        expect(locationParams(answer).params.code).toBeDefined();
        for (let request = 0; request < 4; request++) expect((await client.get('/users/@me')).statusCode).toBe(200);
        // the address budget is still there for one more anonymous request, then spent
        expect((await app.request({ method: 'GET', url: '/.well-known/openid-configuration', as: null })).statusCode).toBe(200);
        expect((await app.request({ method: 'GET', url: '/.well-known/openid-configuration', as: null })).statusCode).toBe(429);
    });
});

describe('AUTH_CONSOLE_PATH', () => {
    const folder = mkdtempSync(join(tmpdir(), 'realmgate-console-'));
    const module = (name: string, source: string) => {
        const path = join(folder, name);
        writeFileSync(path, source);
        return path;
    };
    const names = [
        'renderSignIn', 'renderConsent', 'renderLogout', 'renderLoggedOut', 'renderError', 'renderFormPost',
        // the device page and the second sign-in page, in the same contract version 5
        'renderSecondFactor', 'renderDeviceCode', 'renderDeviceConfirm', 'renderDeviceDone',
    ];
    const renderers = names
        .map((name) => `export const ${name} = (view) => '<!doctype html><p>custom ${name}</p>' + JSON.stringify(view.form?.fields ?? {});`).join('\n');

    it('refuses to boot with a module of contract version 4, naming the path and both versions', async () => {
        const path = module('v4.mjs', `export const CONTRACT_VERSION = 4;\n${renderers}`);
        await expect(startTestApp('sqlite', { authConsolePath: path })).rejects.toThrow(new RegExp(`${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}.*CONTRACT_VERSION 4.*requires version 5`));
    });

    it('refuses to boot with a module without CONTRACT_VERSION (missing means 1)', async () => {
        const path = module('none.mjs', renderers);
        await expect(startTestApp('sqlite', { authConsolePath: path })).rejects.toThrow(/CONTRACT_VERSION 1 \(missing means 1\).*requires version 5/);
    });

    it('refuses a module that lacks a render function, and one that cannot be loaded', async () => {
        await expect(startTestApp('sqlite', { authConsolePath: module('partial.mjs', 'export const CONTRACT_VERSION = 5;') })).rejects.toThrow(/does not export renderSignIn/);
        await expect(startTestApp('sqlite', { authConsolePath: join(folder, 'missing.mjs') })).rejects.toThrow(/cannot be loaded/);
        const withoutDevice = renderers.split('\n').filter((line) => !line.includes('renderDeviceCode')).join('\n');
        await expect(startTestApp('sqlite', { authConsolePath: module('no-device.mjs', `export const CONTRACT_VERSION = 5;\n${withoutDevice}`) }))
            .rejects.toThrow(/does not export renderDeviceCode/);
    });

    it('renders the pages with a module of contract version 5', async () => {
        const app = await startTestApp('sqlite', { authConsolePath: module('v5.mjs', `export const CONTRACT_VERSION = 5;\n${renderers}`) });
        try {
            const world = await browserWorld(app);
            const page = await browser(app).authorize(authorizeParams(world).params);
            expect(page.statusCode).toBe(200);
            expect(page.body).toContain('custom renderSignIn');
            expect((await browser(app).get('/device')).body).toContain('custom renderDeviceCode');
            expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
            // the built-in stylesheet stays when the module brings none
            expect((await app.request({ method: 'GET', url: '/assets/auth.css', as: null })).body).toContain('.card');
        } finally {
            await app.dispose();
        }
    });
});
