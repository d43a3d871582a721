import { randomUUID } from 'node:crypto';
import { RealmScope } from '@realmgate/core';
import { expect, it } from 'vitest';
import { useTestApp } from '../app.js';
import { createActor } from '../actors.js';
import { authorizeParams, browser, browserWorld } from '../browser.js';
import { describeEachDialect } from '../databases.js';

/*
 * A realm's branding of its sign-in pages (API.md §8 `logoUrl`, `primaryColor`; migration 0025) and
 * the pages' language (OIDC Core §3.1.2.1 `ui_locales`, then Accept-Language): the realm API reads
 * and writes the fields, refuses bad values with issues and nothing written, and keeps a
 * foreign-realm administrator off them; the pages show the logo and link the colour's stylesheet
 * under one CSP for every realm.
 */
describeEachDialect('realm branding and the pages\' language', (dialect) => {
    const app = useTestApp(dialect);

    type Realm = { id: string; name: string; displayName: string | null; logoUrl: string | null; primaryColor: string | null };
    const readRealm = async (id: string): Promise<Realm> => (await app.json<{ data: Realm }>({ method: 'GET', url: `/realms/${id}` }, 200)).data;
    const newRealm = async (extra: Record<string, unknown> = {}): Promise<Realm> =>
        (await app.json<{ data: Realm }>({ method: 'POST', url: '/realms', payload: { name: `br-${randomUUID().slice(0, 8)}`, ...extra } }, 201)).data;

    it('creates, reads and updates logoUrl and primaryColor; null clears them; absent is null', async () => {
        const plain = await newRealm();
        expect(plain).toMatchObject({ logoUrl: null, primaryColor: null });
        const realm = await newRealm({ displayName: 'Acme Corp', logoUrl: 'https://cdn.example.com/acme.svg', primaryColor: '#0B3D91' });
        expect(await readRealm(realm.id)).toMatchObject({ displayName: 'Acme Corp', logoUrl: 'https://cdn.example.com/acme.svg', primaryColor: '#0B3D91' });
        await app.json({ method: 'POST', url: `/realms/${realm.id}`, payload: { logoUrl: '/assets/acme.png', primaryColor: '#ffd700' } }, 200);
        expect(await readRealm(realm.id)).toMatchObject({ logoUrl: '/assets/acme.png', primaryColor: '#ffd700' });
        await app.json({ method: 'POST', url: `/realms/${realm.id}`, payload: { logoUrl: null, primaryColor: null } }, 200);
        expect(await readRealm(realm.id)).toMatchObject({ logoUrl: null, primaryColor: null });
    });

    it('refuses a bad logo address or colour with 400 and issues, writing nothing of the body', async () => {
        const realm = await newRealm({ logoUrl: 'https://cdn.example.com/a.svg', primaryColor: '#112233' });
        const bad: Record<string, unknown>[] = [
            { logoUrl: 'data:image/svg+xml;base64,PHN2Zz4=' }, { logoUrl: 'javascript:alert(1)' }, { logoUrl: 'http://cdn.example.com/a.svg' },
            { logoUrl: '//evil.example/a.svg' }, { logoUrl: 'https://cdn.example.com/"><script>' }, { logoUrl: `https://cdn.example.com/${'a'.repeat(2100)}` },
            { primaryColor: 'red' }, { primaryColor: '#fff' }, { primaryColor: '#112233;}body{display:none' }, { primaryColor: 123 },
        ];
        for (const payload of bad) {
            // a valid change beside the bad one: a refused body writes nothing
            const response = await app.request({ method: 'POST', url: `/realms/${realm.id}`, payload: { displayName: 'Changed', ...payload } });
            expect(response.statusCode, JSON.stringify(payload)).toBe(400);
            const field = Object.keys(payload)[0]!;
            expect(response.json().issues, JSON.stringify(payload)).toEqual(expect.arrayContaining([expect.objectContaining({ path: expect.arrayContaining([field]) })]));
        }
        const created = await app.request({ method: 'POST', url: '/realms', payload: { name: `br-${randomUUID().slice(0, 8)}`, primaryColor: 'blue' } });
        expect(created.statusCode).toBe(400);
        const issues = created.json().issues as { path: string[] }[];
        expect(issues.length).toBeGreaterThan(0);
        expect(issues.every((issue) => issue.path[0] === 'primaryColor'), JSON.stringify(issues)).toBe(true);
        expect(await readRealm(realm.id)).toMatchObject({ displayName: null, logoUrl: 'https://cdn.example.com/a.svg', primaryColor: '#112233' });
    });

    it('keeps a realm administrator off another realm\'s branding', async () => {
        const realmA = await newRealm({ primaryColor: '#112233' });
        const realmB = await newRealm();
        const adminOfB = await createActor(app, realmB.id, [{ permission: 'realm_read', scope: RealmScope.OWN }, { permission: 'realm_update', scope: RealmScope.OWN }]);
        const denied = await app.request({ method: 'POST', url: `/realms/${realmA.id}`, payload: { logoUrl: 'https://evil.example/logo.svg', primaryColor: '#ff0000' }, as: adminOfB.header });
        expect([403, 404]).toContain(denied.statusCode);
        expect(await readRealm(realmA.id)).toMatchObject({ logoUrl: null, primaryColor: '#112233' });
        // its own realm it may brand
        await app.json({ method: 'POST', url: `/realms/${realmB.id}`, payload: { logoUrl: '/assets/b.svg', primaryColor: '#00ff00' }, as: adminOfB.header }, 200);
        expect(await readRealm(realmB.id)).toMatchObject({ logoUrl: '/assets/b.svg', primaryColor: '#00ff00' });
    });

    it('serves the colour as a revalidated stylesheet with an ETag; 304 on a match, 404 without a colour', async () => {
        const realm = await newRealm({ primaryColor: '#FFD700' });
        const sheet = await app.request({ method: 'GET', url: `/realms/${realm.name}/branding.css`, as: null });
        expect(sheet.statusCode).toBe(200);
        expect(sheet.headers['content-type']).toBe('text/css; charset=utf-8');
        expect(sheet.headers['cache-control']).toBe('public, no-cache');
        expect(sheet.body).toBe(':root{--rg-primary:#ffd700;--rg-on-primary:#000000}\n');
        const etag = String(sheet.headers.etag);
        expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
        const byId = await app.request({ method: 'GET', url: `/realms/${realm.id}/branding.css`, as: null });
        expect(byId.headers.etag).toBe(etag);
        const again = await app.request({ method: 'GET', url: `/realms/${realm.name}/branding.css`, as: null, headers: { 'if-none-match': etag } });
        expect(again.statusCode).toBe(304);
        expect(again.body).toBe('');
        expect(again.headers.etag).toBe(etag);
        // a new colour is a new tag: the old one no longer matches
        await app.json({ method: 'POST', url: `/realms/${realm.id}`, payload: { primaryColor: '#0b3d91' } }, 200);
        const changed = await app.request({ method: 'GET', url: `/realms/${realm.name}/branding.css`, as: null, headers: { 'if-none-match': etag } });
        expect(changed.statusCode).toBe(200);
        expect(changed.body).toContain('--rg-on-primary:#ffffff');
        expect((await app.request({ method: 'GET', url: `/realms/${(await newRealm()).name}/branding.css`, as: null })).statusCode).toBe(404);
        expect((await app.request({ method: 'GET', url: '/realms/no-such-realm/branding.css', as: null })).statusCode).toBe(404);
    });

    it('shows the display name and logo, links the colour, and sends the same CSP as an unbranded realm\'s page', async () => {
        const branded = await browserWorld(app);
        await app.json({ method: 'POST', url: `/realms/${branded.realmId}`, payload: { displayName: 'Acme <Corp>', logoUrl: 'https://cdn.example.com/acme.svg', primaryColor: '#0b3d91' } }, 200);
        const plain = await browserWorld(app);
        const page = await browser(app).authorize(authorizeParams(branded).params);
        expect(page.statusCode, page.body).toBe(200);
        expect(page.body).toContain('<img class="logo" src="https://cdn.example.com/acme.svg" alt="">\n<p class="realm">Acme &lt;Corp&gt;</p>');
        expect(page.body).toContain(`<link rel="stylesheet" href="/realms/${branded.realmName}/branding.css">`);
        const unbranded = await browser(app).authorize(authorizeParams(plain).params);
        expect(unbranded.body).not.toContain('branding.css');
        expect(page.headers['content-security-policy']).toBe(unbranded.headers['content-security-policy']);
        expect(String(page.headers['content-security-policy'])).toContain("img-src 'self' https:;");
    });

    it('renders German for ui_locales=de through every page of the sign-in, and for Accept-Language: de', async () => {
        const world = await browserWorld(app);
        const agent = browser(app);
        const page = await agent.authorize(authorizeParams(world, { ui_locales: 'fr de en' }).params);
        expect(page.statusCode, page.body).toBe(200);
        expect(page.body).toContain('<html lang="de">');
        expect(page.body).toContain('<label for="username">Benutzername oder E-Mail-Adresse</label>');
        // carried in the form: the page after a wrong password is German too, with its message
        const again = await agent.submit(page, { username: world.user.name, password: 'wrong-password' });
        expect(again.statusCode).toBe(401);
        expect(again.body).toContain('<html lang="de">');
        expect(again.body).toContain('Der Benutzername oder das Passwort ist falsch.');
        // and the consent page after the sign-in
        const consent = await agent.submit(again, { username: world.user.name, password: world.user.password });
        expect(consent.statusCode, consent.body).toBe(200);
        expect(consent.body).toContain('<html lang="de">');
        expect(consent.body).toContain('möchte auf Ihr Konto zugreifen');

        const byHeader = await browser(app).get(`/authorize?${new URLSearchParams(authorizeParams(world).params).toString()}`, { 'accept-language': 'de-DE,de;q=0.9,en;q=0.8' });
        expect(byHeader.body).toContain('<html lang="de">');
        expect(byHeader.body).toContain('Bei Realm');
        // ui_locales wins over the header, and without either the page is English
        const english = await browser(app).get(`/authorize?${new URLSearchParams(authorizeParams(world, { ui_locales: 'en' }).params).toString()}`, { 'accept-language': 'de' });
        expect(english.body).toContain('<html lang="en">');
        expect((await browser(app).authorize(authorizeParams(world).params)).body).toContain('<html lang="en">');
    });
});
