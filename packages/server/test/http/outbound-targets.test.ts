import { Writable } from 'node:stream';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActor } from '../actors.js';
import { useTestApp } from '../app.js';
import { startListener, type BackchannelListener } from '../backchannel.js';
import { authorizeParams, browser, browserWorld, hiddenFields } from '../browser.js';
import { describeEachDialect } from '../databases.js';
import { createRealm, uniqueName } from '../grant-fixtures.js';
import { createClient } from '../identities.js';
import { login } from '../sessions.js';

interface Issue { path: (string | number)[]; code: string }

/*
 * Server-side request forgery by realm administrators: the URLs an administrator writes that the
 * server later connects to — a client's back-channel logout URI, an identity provider's issuer and
 * OAuth 2.0 endpoints, an LDAP URL — are refused when written if they name a loopback, private,
 * link-local or other special-purpose host, and again when connecting, after DNS resolution (a row
 * written before the rule, or a name that resolves somewhere else since). OUTBOUND_ALLOWED_HOSTS
 * (empty here: the harness allows loopback for its own upstreams) opens exceptions.
 */
describeEachDialect('outbound targets written by realm administrators', (dialect) => {
    const lines: string[] = [];
    const stream = new Writable({ write(chunk, _encoding, done) { lines.push(String(chunk)); done(); } });
    const app = useTestApp(dialect, { outboundAllowedHosts: [] }, { logger: Fastify({ logger: { level: 'warn', stream } }).log });
    let realmId: string;
    beforeAll(async () => {
        realmId = await createRealm(app, uniqueName('ssrf'));
    });

    const refused = async (method: 'POST' | 'PUT', url: string, payload: Record<string, unknown>, field: string) => {
        const response = await app.request({ method, url, payload });
        expect(response.statusCode, response.body).toBe(400);
        const paths = response.json<{ issues: Issue[] }>().issues.map((item) => item.path[0]);
        expect(paths).toContain(field);
    };

    describe('when written', () => {
        it.each([
            ['issuer', { protocol: 'oidc', clientId: 'rg', issuer: 'http://169.254.169.254/latest' }],
            ['issuer', { protocol: 'oidc', clientId: 'rg', issuer: 'https://[::ffff:10.0.0.1]/' }],
            ['authorizationUrl', { protocol: 'oauth2', clientId: 'rg', authorizationUrl: 'https://10.0.0.8/authorize', tokenUrl: 'https://idp.example/token', userinfoUrl: 'https://idp.example/me' }],
            ['tokenUrl', { protocol: 'oauth2', clientId: 'rg', authorizationUrl: 'https://idp.example/authorize', tokenUrl: 'https://192.168.1.10/token', userinfoUrl: 'https://idp.example/me' }],
            ['userinfoUrl', { protocol: 'oauth2', clientId: 'rg', authorizationUrl: 'https://idp.example/authorize', tokenUrl: 'https://idp.example/token', userinfoUrl: 'https://localhost/me' }],
            ['url', { protocol: 'ldap', baseDn: 'dc=example', url: 'ldap://10.1.2.3:389' }],
            ['url', { protocol: 'ldap', baseDn: 'dc=example', url: 'ldaps://[fd00::5]:636' }],
        ])('refuses an identity provider whose %s is internal', async (field, settings) => {
            await refused('POST', '/identity-providers', { name: uniqueName('idp'), realmId, ...settings }, field);
        });

        it('refuses plain http for an OAuth 2.0 provider\'s endpoints beside a loopback authorization URL', async () => {
            const open = { protocol: 'oauth2', clientId: 'rg', authorizationUrl: 'https://idp.example/authorize', tokenUrl: 'http://idp.example/token', userinfoUrl: 'https://idp.example/me' };
            await refused('POST', '/identity-providers', { name: uniqueName('idp'), realmId, ...open }, 'tokenUrl');
        });

        it('refuses an update that aims a provider at the metadata endpoint', async () => {
            const created = await app.json<{ data: { id: string } }>({
                method: 'POST', url: '/identity-providers', payload: { name: uniqueName('idp'), realmId, protocol: 'oidc', clientId: 'rg', issuer: 'https://idp.example' },
            }, 201);
            await refused('POST', `/identity-providers/${created.data.id}`, { issuer: 'http://169.254.169.254' }, 'issuer');
        });

        it.each(['http://10.1.2.3/logout', 'http://127.0.0.1:8080/logout', 'http://[::1]/logout', 'http://0x7f.1/logout', 'https://metadata.google.internal/'])(
            'refuses a client whose backchannelLogoutUri is %s, on create and on update',
            async (uri) => {
                await refused('POST', '/clients', { name: uniqueName('rp'), realmId, backchannelLogoutUri: uri }, 'backchannelLogoutUri');
                const client = await createClient(app, realmId, undefined, { backchannelLogoutUri: 'https://rp.example/logout' });
                await refused('POST', `/clients/${client.id}`, { backchannelLogoutUri: uri }, 'backchannelLogoutUri');
            },
        );
    });

    describe('when connecting', () => {
        let listener: BackchannelListener;
        let directory: Server;
        let connections = 0;
        let upstream: HttpServer;
        let upstreamRequests = 0;
        beforeAll(async () => {
            listener = await startListener();
            upstream = createHttpServer((_request, response) => {
                upstreamRequests += 1;
                response.writeHead(404).end();
            });
            await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
            directory = createServer((socket) => {
                connections += 1;
                socket.destroy();
            });
            await new Promise<void>((resolve) => directory.listen(0, '127.0.0.1', resolve));
        });
        afterAll(async () => {
            await listener.close();
            await new Promise<void>((resolve) => upstream.close(() => resolve()));
            await new Promise<void>((resolve) => directory.close(() => resolve()));
        });

        it('does not deliver a back-channel logout to a URI that resolves to loopback', async () => {
            const client = await createClient(app, realmId, undefined, { backchannelLogoutUri: 'https://rp.example/logout' });
            // stored before the rule (or by a name now resolving elsewhere): the connection judges it again
            const port = new URL(listener.uri).port;
            await app.deps.db.updateTable('auth_clients').set({ backchannel_logout_uri: `http://localhost:${port}/backchannel-logout` }).where('id', '=', client.id).execute();
            const actor = await createActor(app, realmId, []);
            const session = await login(app, realmId, actor.name, 'secret-password', { client_id: client.name, client_secret: client.secret });
            lines.length = 0;
            await app.json({ method: 'DELETE', url: `/sessions/${session.sessionId}` }, 200);
            await app.deps.backchannelLogout.settled();
            expect(listener.received).toHaveLength(0);
            const warned = lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line.clientId === client.id);
            expect(warned).toEqual([expect.objectContaining({ msg: 'back-channel logout delivery failed', reason: expect.stringContaining('OUTBOUND_ALLOWED_HOSTS') })]);
        });

        /** starts a federated sign-in through a provider whose stored columns are then replaced by `stored` */
        const federatedStart = async (settings: Record<string, unknown>, stored: Record<string, string>) => {
            const world = await browserWorld(app);
            const provider = await app.json<{ data: { id: string } }>({
                method: 'POST', url: '/identity-providers', payload: { name: uniqueName('upstream'), realmId: world.realmId, clientId: 'rg', ...settings },
            }, 201);
            await app.deps.db.updateTable('auth_identity_providers').set(stored).where('id', '=', provider.data.id).execute();
            const agent = browser(app);
            const page = await agent.authorize(authorizeParams(world).params);
            expect(page.statusCode, page.body).toBe(200);
            return agent.post('/authorize/federated', { ...hiddenFields(page.body), provider_id: provider.data.id });
        };

        it('does not fetch the discovery document of an issuer that resolves to loopback', async () => {
            const port = (upstream.address() as AddressInfo).port;
            const before = upstreamRequests;
            const answer = await federatedStart({ protocol: 'oidc', issuer: 'https://idp.example' }, { issuer: `http://localhost:${port}` });
            expect(answer.statusCode, answer.body).toBe(503);
            expect(upstreamRequests).toBe(before);
        });

        it('does not send an OAuth 2.0 code to a plain-http token endpoint because the authorization URL is loopback', async () => {
            const answer = await federatedStart(
                { protocol: 'oauth2', authorizationUrl: 'https://idp.example/authorize', tokenUrl: 'https://idp.example/token', userinfoUrl: 'https://idp.example/me' },
                { authorization_url: 'http://localhost/authorize', token_url: 'http://idp.example/token' },
            );
            expect(answer.statusCode, answer.body).toBe(503);
            expect(answer.headers.location).toBeUndefined();
        });

        it('does not connect to an LDAP directory whose name resolves to loopback', async () => {
            const created = await app.json<{ data: { id: string } }>({
                method: 'POST', url: '/identity-providers', payload: { name: uniqueName('ldap'), realmId, protocol: 'ldap', baseDn: 'dc=example', url: 'ldap://ldap.example:389' },
            }, 201);
            const port = (directory.address() as AddressInfo).port;
            await app.deps.db.updateTable('auth_identity_providers').set({ url: `ldap://localhost:${port}` }).where('id', '=', created.data.id).execute();
            const answer = await app.request({ method: 'POST', url: '/token', as: null, payload: { grant_type: 'password', username: 'nobody-local', password: 'pw', realm_id: realmId } });
            expect(answer.statusCode, answer.body).toBe(503);
            expect(answer.json()).toMatchObject({ error: 'temporarily_unavailable' });
            expect(connections).toBe(0);
        });
    });
});

describeEachDialect('outbound targets an operator allowed', (dialect) => {
    const app = useTestApp(dialect, { outboundAllowedHosts: ['10.0.0.0/8', 'rp.internal'] });

    it('accepts a directory in an allowed range and a back-channel URI on an allowed name', async () => {
        const realmId = await createRealm(app, uniqueName('ssrf-open'));
        await app.json({ method: 'POST', url: '/identity-providers', payload: { name: uniqueName('ldap'), realmId, protocol: 'ldap', baseDn: 'dc=example', url: 'ldap://10.1.2.3:389' } }, 201);
        await createClient(app, realmId, undefined, { backchannelLogoutUri: 'http://rp.internal/logout' });
        const refused = await app.request({ method: 'POST', url: '/identity-providers', payload: { name: uniqueName('ldap'), realmId, protocol: 'ldap', baseDn: 'dc=example', url: 'ldap://192.168.0.3' } });
        expect(refused.statusCode, refused.body).toBe(400);
    });
});
