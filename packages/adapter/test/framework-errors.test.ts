import { createServer } from 'node:http';
import { randomUUID } from 'node:crypto';
import express from 'express';
import Fastify, { type FastifyError } from 'fastify';
import { basicAuth, createClient, decodeJwtPayload, isRealmgateError, passwordGrant, type RealmgateClient } from '@realmgate/client';
import { ErrorCode, RealmScope } from '@realmgate/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, startTestApp, type TestApp } from '../../server/test/app.js';
import { freePort } from '../../server/test/network.js';
import { createVerifier, isDeniedError, type DeniedError, type VerifierOptions } from '../src/index.js';
import { realmgateErrorHandler, realmgateMiddleware, requirePermission as expressPermission } from '../src/express.js';
import { realmgate, requirePermission } from '../src/fastify.js';

/*
 * The adapter's refusals go through the framework: Fastify's error handler (setErrorHandler, or
 * the default one) and Express's next(err), with the onError listener seeing the cause; the
 * plugin form's decorator; the clock tolerance; and a failed catalog fetch reported once per
 * streak with its reason (invalid_client for a wrong secret). Against the real server.
 */

describe('adapter: refusals through the framework, the catalog failure log, the clock tolerance', () => {
    let app: TestApp;
    let url: string;
    let admin: RealmgateClient;
    let realmId: string;
    let credentials: VerifierOptions['credentials'];
    let login: () => Promise<string>;

    beforeAll(async () => {
        const port = await freePort();
        url = `http://127.0.0.1:${port}`;
        app = await startTestApp('sqlite', { publicUrl: url });
        await app.app.listen({ port, host: '127.0.0.1' });
        admin = createClient({ baseUrl: url, auth: basicAuth(ADMIN.name, ADMIN.password) });
        realmId = (await admin.realms.create({ name: `fw-${randomUUID().slice(0, 8)}` })).data.id;
        const secret = `secret-${randomUUID()}`;
        const clientId = (await admin.clients.create({ name: `rs-${randomUUID().slice(0, 6)}`, realmId, secret })).data.id;
        const permissionRead = (await admin.permissions.list({ filter: { name: 'permission_read', realmId: null } })).data[0]!.id;
        await admin.clientPermissions.create({ clientId, permissionId: permissionRead, realmScope: RealmScope.OWN_OR_NULL });
        credentials = { clientId, clientSecret: secret };
        const name = `u-${randomUUID().slice(0, 6)}`;
        await admin.users.create({ name, realmId, password: 'framework-secret-1' });
        login = async () => (await passwordGrant(admin.withAuth(undefined), { username: name, password: 'framework-secret-1', realmId })).access_token;
    });
    afterAll(async () => app?.dispose());

    it('Fastify: a refusal reaches setErrorHandler with its status and challenge; onError sees the cause', async () => {
        const heard: DeniedError[] = [];
        const handled: FastifyError[] = [];
        const api = Fastify();
        await api.register(realmgate, { baseUrl: url, mode: 'local', credentials, onError: (error) => heard.push(error) });
        api.setErrorHandler((error: FastifyError, _request, reply) => {
            handled.push(error);
            return reply.code(error.statusCode ?? 500).send({ handledBy: 'application', code: error.code });
        });
        api.get('/health', { config: { realmgate: false } }, async (request) => ({ reads: (() => {
            try {
                return request.realmgate.identity.id;
            } catch (error) {
                return (error as Error).message;
            }
        })() }));
        api.get('/me', async (request) => ({ id: request.realmgate.identity.id }));
        api.get('/guarded', { preHandler: requirePermission('no_such_permission') }, async () => ({ reached: true }));

        const missing = await api.inject({ method: 'GET', url: '/me' });
        expect(missing.statusCode).toBe(401);
        expect(missing.json()).toEqual({ handledBy: 'application', code: ErrorCode.INVALID_TOKEN });
        expect(handled).toHaveLength(1);
        expect(isDeniedError(handled[0])).toBe(true);
        expect(heard).toHaveLength(1);
        expect(isRealmgateError(heard[0]!.cause)).toBe(true);
        expect(heard[0]!.headers['www-authenticate']).toContain('Bearer error="invalid_token"');

        const token = await login();
        expect((await api.inject({ method: 'GET', url: '/me', headers: { authorization: `Bearer ${token}` } })).json()).toEqual({ id: decodeJwtPayload(token).sub });
        const denied = await api.inject({ method: 'GET', url: '/guarded', headers: { authorization: `Bearer ${token}` } });
        expect(denied.statusCode).toBe(403);
        expect(heard.at(-1)).toMatchObject({ statusCode: 403, code: ErrorCode.PERMISSION_DENIED });
        // a public route answers, and request.realmgate says it was not set rather than reading null
        expect((await api.inject({ method: 'GET', url: '/health' })).json().reads).toMatch(/the route is public/);
        await api.close();
    });

    it('Fastify without an error handler of its own: the default one answers with the status, the challenge and the code', async () => {
        const api = Fastify();
        await api.register(realmgate, { verifier: createVerifier({ baseUrl: url, mode: 'remote', credentials }) });
        api.get('/me', async (request) => ({ id: request.realmgate.identity.id }));
        const refused = await api.inject({ method: 'GET', url: '/me', headers: { authorization: 'Bearer not.a-token.at-all' } });
        expect(refused.statusCode).toBe(401);
        expect(refused.headers['www-authenticate']).toContain('Bearer');
        expect(refused.json()).toMatchObject({ statusCode: 401, code: ErrorCode.INACTIVE_TOKEN });
        await api.close();
    });

    it('Express: a refusal goes to next(err) — the application\'s error middleware, or realmgateErrorHandler — and onError sees the cause', async () => {
        const verifier = createVerifier({ baseUrl: url, mode: 'local', credentials });
        const heard: DeniedError[] = [];
        const passed: unknown[] = [];
        const server = express();
        server.use(realmgateMiddleware(verifier, { onError: (error) => heard.push(error) }));
        server.get('/orders/:id', expressPermission('no_such_permission'), (req, res) => {
            res.json({ id: req.params.id });
        });
        server.get('/me', (req, res) => {
            res.json({ id: req.realmgate?.identity.id });
        });
        server.use((error: unknown, _req: express.Request, _res: express.Response, next: express.NextFunction) => {
            passed.push(error);
            next(error);
        });
        server.use(realmgateErrorHandler());
        const http = createServer(server);
        await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
        const address = http.address();
        const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
        try {
            const missing = await fetch(`${base}/me`);
            expect(missing.status).toBe(401);
            expect(missing.headers.get('www-authenticate')).toContain('Bearer');
            expect(await missing.json()).toMatchObject({ statusCode: 401, code: ErrorCode.INVALID_TOKEN });
            expect(passed).toHaveLength(1);
            expect(isDeniedError(passed[0])).toBe(true);
            expect(heard[0]!.cause).toMatchObject({ statusCode: 401 });

            const token = await login();
            expect(await (await fetch(`${base}/me`, { headers: { authorization: `Bearer ${token}` } })).json()).toEqual({ id: decodeJwtPayload(token).sub });
            const denied = await fetch(`${base}/orders/o-1`, { headers: { authorization: `Bearer ${token}` } });
            expect(denied.status).toBe(403);
            expect(await denied.json()).toMatchObject({ code: ErrorCode.PERMISSION_DENIED });
            expect(heard.at(-1)).toMatchObject({ statusCode: 403 });
        } finally {
            await new Promise<void>((resolve) => http.close(() => resolve()));
        }
    });

    it('a wrong client secret: the answer stays 503, the log names invalid_client once per streak of failures', async () => {
        const warnings: string[] = [];
        const verifier = createVerifier({ baseUrl: url, mode: 'local', credentials: { ...credentials, clientSecret: 'wrong-secret' }, logger: { warn: (message) => warnings.push(message) } });
        const auth = await verifier.verify(`Bearer ${await login()}`);
        for (let attempt = 0; attempt < 3; attempt++) {
            const refused = await auth.preEvaluate({ name: 'user_read' }).then(() => null, (error: unknown) => error);
            expect(refused).toMatchObject({ statusCode: 503, message: 'the authorization catalog is unavailable' });
        }
        expect(warnings).toHaveLength(1);
        expect(warnings[0]).toMatch(/invalid_client/);
        expect(warnings[0]).not.toContain('wrong-secret');
    });

    it('a failure streak ends with a fetch that succeeds: no report for it, and the catalog is served', async () => {
        const warnings: string[] = [];
        const secret = `secret-${randomUUID()}`;
        const clientId = (await admin.clients.create({ name: `rs-${randomUUID().slice(0, 6)}`, realmId, secret })).data.id;
        const verifier = createVerifier({ baseUrl: url, mode: 'local', credentials: { clientId, clientSecret: secret }, logger: { warn: (message) => warnings.push(message) } });
        // without permission_read the catalog is refused (spec consumer rule 12)
        await expect(verifier.catalog()).rejects.toMatchObject({ statusCode: 503 });
        await expect(verifier.catalog()).rejects.toMatchObject({ statusCode: 503 });
        expect(warnings).toHaveLength(1);
        expect(warnings[0]).toMatch(/permission_denied/);
        const permissionRead = (await admin.permissions.list({ filter: { name: 'permission_read', realmId: null } })).data[0]!.id;
        await admin.clientPermissions.create({ clientId, permissionId: permissionRead, realmScope: RealmScope.OWN_OR_NULL });
        expect((await verifier.catalog()).permissions.length).toBeGreaterThan(0);
        expect(warnings).toHaveLength(1);
    });

    it('clockToleranceSeconds: local mode accepts a token expired within the tolerance and refuses it past it', async () => {
        const token = await login();
        const exp = decodeJwtPayload(token).exp as number;
        const lenient = createVerifier({ baseUrl: url, mode: 'local', credentials, clockToleranceSeconds: 60, now: () => (exp + 30) * 1000 });
        expect((await lenient.verify(`Bearer ${token}`)).identity.realmId).toBe(realmId);
        const strict = createVerifier({ baseUrl: url, mode: 'local', credentials, now: () => (exp + 30) * 1000 });
        await expect(strict.verify(`Bearer ${token}`)).rejects.toMatchObject({ statusCode: 401, code: ErrorCode.EXPIRED_TOKEN });
        const past = createVerifier({ baseUrl: url, mode: 'local', credentials, clockToleranceSeconds: 60, now: () => (exp + 61) * 1000 });
        await expect(past.verify(`Bearer ${token}`)).rejects.toMatchObject({ code: ErrorCode.EXPIRED_TOKEN });
    });
});
