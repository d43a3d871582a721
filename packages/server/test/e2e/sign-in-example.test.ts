import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../app.js';
import { describeEachDialect } from '../databases.js';
import { freePort } from '../network.js';
import { launchChromium } from './relying-party.js';

const EXAMPLE = fileURLToPath(new URL('../../../../examples/sign-in/app.mjs', import.meta.url));

/** Waits until the child prints a line that matches, failing when it exits first. */
async function lineMatching(child: ChildProcess, pattern: RegExp): Promise<string> {
    let seen = '';
    return new Promise<string>((resolve, reject) => {
        child.stdout!.on('data', (chunk: Buffer) => {
            seen += chunk.toString('utf8');
            const line = seen.split('\n').find((entry) => pattern.test(entry));
            if (line) resolve(line);
        });
        child.once('exit', (code) => reject(new Error(`the example exited (${code}) before printing ${pattern}: ${seen}`)));
    });
}

/**
 * The guide docs/guide/sign-in.md as a newcomer follows it: a client is created,
 * the openid-client example application runs against the server, and a browser signs in through it.
 */
describeEachDialect('the sign-in example application', (dialect) => {
    let app: TestApp;
    let browser: Browser;
    let example: ChildProcess;
    let exampleUrl: string;

    beforeAll(async () => {
        const port = await freePort();
        const publicUrl = `http://127.0.0.1:${port}`;
        app = await startTestApp(dialect, { publicUrl });
        await app.app.listen({ port, host: '127.0.0.1' });
        const examplePort = await freePort();
        exampleUrl = `http://127.0.0.1:${examplePort}`;
        const master = (await app.json<{ data: { id: string }[] }>({ method: 'GET', url: '/realms?filter[name]=master' })).data[0]!;
        const client = (await app.json<{ data: { id: string } }>({
            method: 'POST', url: '/clients',
            payload: { name: 'example-app', realmId: master.id, redirectUri: `${exampleUrl}/callback`, postLogoutRedirectUri: `${exampleUrl}/` },
        }, 201)).data;
        example = spawn(process.execPath, [EXAMPLE], {
            env: { ...process.env, ISSUER: `${publicUrl}/realms/master`, CLIENT_ID: client.id, PORT: String(examplePort) },
            stdio: ['ignore', 'pipe', 'inherit'],
        });
        await lineMatching(example, /^Example application on /);
        browser = await launchChromium();
    });
    afterAll(async () => {
        await browser?.close();
        if (example && example.exitCode === null) {
            example.kill();
            await once(example, 'exit');
        }
        await app?.dispose();
    });

    it('signs the administrator in through the browser and shows the userinfo', async () => {
        const signedIn = lineMatching(example, /"event":"signed-in"/);
        const page = await browser.newPage();
        await page.goto(`${exampleUrl}/`);
        await page.getByRole('link', { name: 'Sign in' }).click();
        await page.getByLabel('Username or email').fill('admin');
        await page.getByLabel('Password').fill('start123');
        await page.getByRole('button', { name: 'Sign in', exact: true }).click();
        await page.getByRole('button', { name: 'Allow' }).click();
        await page.getByRole('heading', { name: 'Signed in as admin' }).waitFor();
        expect(JSON.parse(await signedIn)).toMatchObject({ event: 'signed-in', userinfo: { preferred_username: 'admin' } });

        await page.getByRole('link', { name: 'Sign out' }).click();
        await page.waitForURL(`${exampleUrl}/`);
        await page.getByRole('heading', { name: 'Not signed in' }).waitFor();
    });
}, ['sqlite']);
