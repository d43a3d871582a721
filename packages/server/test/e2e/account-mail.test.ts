import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../app.js';
import { describeEachDialect } from '../databases.js';
import { linkIn, startMailServer, type MailServer } from '../mail-server.js';
import { freePort } from '../network.js';
import { launchChromium } from './relying-party.js';

/**
 * Activation and recovery by mail (spec States) end to end: the server listens at PUBLIC_URL, mails through a real relay on
 * loopback (self-signed certificate, trusted through ?tls.rejectUnauthorized=false), and Chromium
 * opens the mailed links and submits the pages' forms, under their real Content-Security-Policy.
 */
describeEachDialect('end to end: activation and password reset by mail in chromium', (dialect) => {
    let app: TestApp;
    let mail: MailServer;
    let browser: Browser;
    let page: Page;
    let publicUrl: string;
    let realm: { id: string; name: string };

    beforeAll(async () => {
        const port = await freePort();
        publicUrl = `http://127.0.0.1:${port}`;
        mail = await startMailServer();
        app = await startTestApp(dialect, { publicUrl, smtp: `smtp://127.0.0.1:${mail.port}?tls.rejectUnauthorized=false` });
        await app.app.listen({ port, host: '127.0.0.1' });
        browser = await launchChromium();
        page = await (await browser.newContext()).newPage();
        realm = (await app.json<{ data: { id: string; name: string } }>({
            method: 'POST', url: '/realms', payload: { name: 'e2e-mail', displayName: 'Mail Realm', registrationEnabled: true },
        }, 201)).data;
    });
    afterAll(async () => {
        await browser?.close();
        await app?.dispose();
        await mail?.close();
    });

    const post = (path: string, body: unknown) => fetch(`${publicUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

    it('registers, confirms the address on the activation page, resets the password on the reset page, and signs in with it', async () => {
        expect((await post(`/realms/${realm.name}/register`, { name: 'carol', email: 'carol@example.test', password: 'carol-password-1' })).status).toBe(201);
        const activation = linkIn(await mail.mailTo('carol@example.test'), `${publicUrl}/realms/${realm.name}/activate?code=`);
        await page.goto(activation);
        await page.getByRole('button', { name: 'Confirm my address' }).click();
        await expect.poll(() => page.textContent('body')).toContain('Your address is confirmed.');
        const users = await app.json<{ data: { emailVerified: boolean }[] }>({ method: 'GET', url: `/users?filter[name]=carol&filter[realmId]=${realm.id}` }, 200);
        expect(users.data[0]!.emailVerified).toBe(true);

        const before = mail.received.length;
        const forgot = await post(`/realms/${realm.name}/password-forgot`, { email: 'carol@example.test' });
        expect(forgot.status).toBe(202);
        await app.deps.mailer!.settled();
        const resetMail = mail.received.slice(before).find((received) => received.to.includes('carol@example.test'))!;
        await page.goto(linkIn(resetMail, `${publicUrl}/realms/${realm.name}/reset-password?code=`));
        await page.getByLabel('New password', { exact: true }).fill('carol-password-2');
        await page.getByLabel('Repeat the new password').fill('carol-password-2');
        await page.getByRole('button', { name: 'Set password' }).click();
        await expect.poll(() => page.textContent('body')).toContain('Your new password is set');

        const token = await fetch(`${publicUrl}/token`, {
            method: 'POST',
            body: new URLSearchParams({ grant_type: 'password', username: 'carol', password: 'carol-password-2', realm_id: realm.id }),
        });
        expect(token.status).toBe(200);
    });
});
