import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { ADMIN_CONSOLE_CLIENT } from '../config/consoles.js';
import { consolePolicy, registerConsoles } from './consoles.js';

/** Serving the built consoles under /console, against a stand-in build: no database, no browser. */
describe('console serving', () => {
    const dist = mkdtempSync(join(tmpdir(), 'realmgate-console-'));
    mkdirSync(join(dist, 'admin'));
    mkdirSync(join(dist, 'assets'));
    writeFileSync(join(dist, 'admin', 'index.html'), '<!doctype html><title>admin</title>');
    writeFileSync(join(dist, 'assets', 'admin-abc123.js'), 'export {};');
    afterAll(() => rmSync(dist, { recursive: true, force: true }));

    async function serve(directory: string, mode: 'session' | 'token' = 'session') {
        const app = Fastify();
        await registerConsoles(app, { names: ['admin'], apiUrl: 'http://api.test', consoleUrl: mode === 'session' ? 'http://api.test' : 'http://console.test', mode, distDirectory: directory });
        return app;
    }

    it('answers every client route with index.html (no-cache, strict CSP) and hashed assets as immutable', async () => {
        const app = await serve(dist);
        for (const url of ['/console/admin/', '/console/admin/realms/x/users']) {
            const page = await app.inject({ method: 'GET', url });
            expect(page.statusCode).toBe(200);
            expect(page.body).toContain('<title>admin</title>');
            expect(page.headers['cache-control']).toBe('no-cache');
            expect(page.headers['content-security-policy']).toBe(consolePolicy('http://api.test', 'http://api.test'));
        }
        const asset = await app.inject({ method: 'GET', url: '/console/assets/admin-abc123.js' });
        expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
        expect((await app.inject({ method: 'GET', url: '/' })).headers.location).toBe('/console/admin/');
        expect((await app.inject({ method: 'GET', url: '/console/admin' })).headers.location).toBe('/console/admin/');
        expect((await app.inject({ method: 'GET', url: '/console/account/' })).statusCode).toBe(404);
        await app.close();
    });

    it('tells the console how to sign in: the cookie when served by the API, code + PKCE standalone', async () => {
        const served = await serve(dist);
        expect((await served.inject({ method: 'GET', url: '/console/admin/console-config.json' })).json()).toEqual({
            console: 'admin', apiUrl: 'http://api.test', mode: 'session', clientId: ADMIN_CONSOLE_CLIENT.id, redirectUri: 'http://api.test/console/admin/',
        });
        const standalone = await serve(dist, 'token');
        expect((await standalone.inject({ method: 'GET', url: '/console/admin/console-config.json' })).json()).toMatchObject({
            mode: 'token', redirectUri: 'http://console.test/console/admin/',
        });
        // the standalone console may call the API and its socket, nothing else
        expect(consolePolicy('http://console.test', 'http://api.test')).toContain("connect-src 'self' http://console.test ws://console.test http://api.test ws://api.test");
        expect(consolePolicy('http://console.test', 'http://api.test')).not.toContain('unsafe');
        await served.close();
        await standalone.close();
    });

    it('answers 503 naming `npm run build` when the consoles are not built, and the server still starts', async () => {
        const app = await serve(join(dist, 'missing'));
        for (const url of ['/console/admin/', '/console/admin/users', '/console/assets/admin-abc123.js']) {
            const answer = await app.inject({ method: 'GET', url });
            expect(answer.statusCode).toBe(503);
            expect(answer.json()).toMatchObject({ statusCode: 503, code: 'temporarily_unavailable' });
            expect(answer.json().message).toContain('npm run build');
        }
        await app.close();
    });
});
