import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createVerifier } from '@realmgate/adapter';
import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { TestApp } from '../app.js';
import { describeEachDialect } from '../databases.js';
import { freePort } from '../network.js';
import { launchChromium, startListeningApp } from './relying-party.js';

const EXAMPLE = fileURLToPath(new URL('../../../../examples/fapi/app.mjs', import.meta.url));

/** The example's JSON lines, each awaited by event: never a fixed delay. */
function eventsOf(child: ChildProcess): (event: string) => Promise<Record<string, unknown>> {
    let seen = '';
    const waiting: { event: string; resolve(line: Record<string, unknown>): void }[] = [];
    const lines: Record<string, unknown>[] = [];
    child.stdout!.on('data', (chunk: Buffer) => {
        seen += chunk.toString('utf8');
        const parts = seen.split('\n');
        seen = parts.pop() ?? '';
        for (const part of parts) {
            if (!part.startsWith('{')) continue;
            const line = JSON.parse(part) as Record<string, unknown>;
            lines.push(line);
            for (const waiter of waiting.filter((entry) => entry.event === line.event)) {
                waiting.splice(waiting.indexOf(waiter), 1);
                waiter.resolve(line);
            }
        }
    });
    return (event) => {
        const ready = lines.find((line) => line.event === event);
        if (ready) {
            lines.splice(lines.indexOf(ready), 1);
            return Promise.resolve(ready);
        }
        return new Promise((resolve) => waiting.push({ event, resolve }));
    };
}

async function started(child: ChildProcess): Promise<void> {
    let output = '';
    await new Promise<void>((resolve, reject) => {
        child.stdout!.on('data', (chunk: Buffer) => {
            output += chunk.toString('utf8');
            if (output.includes('FAPI 2.0 example application on ')) resolve();
        });
        child.once('exit', (code) => reject(new Error(`the example exited (${code}): ${output}`)));
    });
}

/**
 * A resource server on loopback protected by the adapter (packages/adapter): `GET /profile` answers
 * who the DPoP-bound token names and the key it is bound to, after the adapter checked the proof
 * over this request (RFC 9449 §7). Its own client lives in the master realm: a FAPI 2.0 realm
 * admits no client secret.
 */
async function startResourceServer(publicUrl: string, credentials: { clientId: string; clientSecret: string }): Promise<{ url: string; server: Server }> {
    const verifier = createVerifier({ baseUrl: publicUrl, mode: 'local', credentials: { ...credentials, realmName: 'master' }, realms: ['bank'] });
    const server = createServer((request, response) => {
        void (async () => {
            const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${request.url ?? '/'}`;
            try {
                const auth = await verifier.verify(request.headers.authorization, { method: request.method ?? 'GET', url, proof: request.headers.dpop });
                response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ sub: auth.identity.id, realm: auth.identity.realmName, jkt: auth.dpopJkt }));
            } catch (error) {
                response.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: (error as Error).message }));
            }
        })();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/profile`, server };
}

/**
 * The guide docs/guide/modern-oauth.md (FAPI 2.0) as a newcomer follows it: a realm
 * with the FAPI 2.0 profile, a private_key_jwt client registered with the key the example
 * generates, and the openid-client example signing a user in through Chromium with PAR, a signed
 * request object, PKCE and DPoP; then a refresh and a DPoP-bound API call.
 */
describeEachDialect('FAPI 2.0: the openid-client example against a fapi2 realm', (dialect) => {
    let app: TestApp;
    let browser: Browser;
    let example: ChildProcess;
    let exampleUrl: string;
    let directory: string;
    let next: (event: string) => Promise<Record<string, unknown>>;
    let resourceServer: Server;
    let aliceId: string;

    beforeAll(async () => {
        let publicUrl: string;
        ({ app, publicUrl } = await startListeningApp(dialect));
        directory = await mkdtemp(join(tmpdir(), 'realmgate-fapi2-'));
        const keyFile = join(directory, 'client-key.json');
        const generator = spawn(process.execPath, [EXAMPLE, '--generate-key', keyFile], { stdio: ['ignore', 'pipe', 'inherit'] });
        let printed = '';
        generator.stdout!.on('data', (chunk: Buffer) => { printed += chunk.toString('utf8'); });
        const [code] = await once(generator, 'exit') as [number];
        expect(code).toBe(0);
        const jwks = JSON.parse(printed) as { keys: Record<string, unknown>[] };
        expect(JSON.parse(await readFile(keyFile, 'utf8'))).toHaveProperty('d');

        const realm = (await app.json<{ data: { id: string; name: string } }>({ method: 'POST', url: '/realms', payload: { name: 'bank', securityProfile: 'fapi2' } }, 201)).data;
        const examplePort = await freePort();
        exampleUrl = `http://127.0.0.1:${examplePort}`;
        const client = (await app.json<{ data: { id: string } }>({
            method: 'POST', url: '/clients',
            payload: { realmId: realm.id, name: 'fapi-app', tokenEndpointAuthMethod: 'private_key_jwt', jwks, redirectUri: `${exampleUrl}/callback`, firstParty: true },
        }, 201)).data;
        aliceId = (await app.json<{ data: { id: string } }>({ method: 'POST', url: '/users', payload: { realmId: realm.id, name: 'alice', password: 'alice-password' } }, 201)).data.id;
        const master = (await app.json<{ data: { id: string }[] }>({ method: 'GET', url: '/realms?filter[name]=master' })).data[0]!;
        const profileApi = (await app.json<{ data: { id: string } }>({ method: 'POST', url: '/clients', payload: { realmId: master.id, name: 'profile-api', secret: 'profile-api-secret' } }, 201)).data;
        let api: string;
        ({ url: api, server: resourceServer } = await startResourceServer(publicUrl, { clientId: profileApi.id, clientSecret: 'profile-api-secret' }));

        example = spawn(process.execPath, [EXAMPLE], {
            env: {
                ...process.env, ISSUER: `${publicUrl}/realms/bank`, CLIENT_ID: client.id, PRIVATE_KEY_FILE: keyFile,
                API_URL: api, PORT: String(examplePort),
            },
            stdio: ['ignore', 'pipe', 'inherit'],
        });
        next = eventsOf(example);
        await started(example);
        browser = await launchChromium();
    });
    afterAll(async () => {
        await browser?.close();
        await new Promise((resolve) => resourceServer?.close(resolve));
        if (example && example.exitCode === null) {
            example.kill();
            await once(example, 'exit');
        }
        await app?.dispose();
        if (directory) await rm(directory, { recursive: true, force: true });
    });

    it('signs in with PAR + JAR + PKCE + DPoP + private_key_jwt, refreshes, and calls the API with the bound token', async () => {
        const page = await browser.newPage();
        await page.goto(`${exampleUrl}/`);
        await page.getByRole('link', { name: 'Sign in' }).click();
        // the browser carries only the client id and the pushed request's reference
        const authorize = new URL(page.url());
        expect([...authorize.searchParams.keys()].sort()).toEqual(['client_id', 'request_uri']);
        await page.getByLabel('Username or email').fill('alice');
        await page.getByLabel('Password').fill('alice-password');
        await page.getByRole('button', { name: 'Sign in', exact: true }).click();
        await page.getByRole('heading', { name: 'Signed in as alice' }).waitFor();
        expect(await next('signed-in')).toMatchObject({ token_type: 'dpop' });

        await page.getByRole('link', { name: 'Refresh the tokens' }).click();
        expect(await next('refreshed')).toMatchObject({ token_type: 'dpop' });

        await page.getByRole('link', { name: 'Call the API' }).click();
        await page.getByRole('heading', { name: 'API answered 200' }).waitFor();
        const api = await next('api');
        // the adapter checked the proof over its own URL and the key against the token's cnf.jkt
        expect(JSON.parse(api.body as string)).toMatchObject({ sub: aliceId, realm: 'bank', jkt: expect.any(String) });
    });
}, ['sqlite']);
