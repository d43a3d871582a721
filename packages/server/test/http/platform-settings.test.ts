import type { FastifyBaseLogger } from 'fastify';
import { MASTER_REALM, SystemPolicyName } from '@realmgate/core';
import { expect, it, vi } from 'vitest';
import { createRealm } from '../actors.js';
import { ADMIN, useTestApp, type TestApp } from '../app.js';
import { describeEachDialect } from '../databases.js';
import { login } from '../sessions.js';

/** The permission's definition policies, by name. */
async function boundPolicies(app: TestApp, permissionId: string): Promise<string[]> {
    const rows = await app.deps.db.selectFrom('auth_permission_policies')
        .innerJoin('auth_policies', 'auth_policies.id', 'auth_permission_policies.policy_id')
        .select('auth_policies.name').where('auth_permission_policies.permission_id', '=', permissionId).execute();
    return rows.map((row) => row.name);
}

async function adminBearer(app: TestApp): Promise<string> {
    const master = await app.deps.db.selectFrom('auth_realms').select('id').where('name', '=', MASTER_REALM).executeTakeFirstOrThrow();
    return (await login(app, master.id, ADMIN.name, ADMIN.password)).bearer;
}

function recordingLogger(warn: (message: string) => void): FastifyBaseLogger {
    const logger = {
        level: 'info', warn, info: vi.fn(), error: vi.fn(), debug: vi.fn(), trace: vi.fn(), fatal: vi.fn(), silent: vi.fn(),
        child() { return logger; },
    };
    return logger as unknown as FastifyBaseLogger;
}

describeEachDialect('platform settings at their defaults (behaviour settings)', (dialect) => {
    const app = useTestApp(dialect);

    it('binds system.default to a permission created through the API', async () => {
        const realmId = await createRealm(app, 'defaults-binding');
        const created = await app.json<{ data: { id: string } }>({ method: 'POST', url: '/permissions', payload: { name: 'report_read', realmId } }, 201);
        expect(await boundPolicies(app, created.data.id)).toEqual([SystemPolicyName.DEFAULT]);
    });

    it('serves /schemas and @schema, accepts Basic user credentials and advertises no mTLS aliases', async () => {
        expect((await app.request({ method: 'GET', url: '/schemas' })).statusCode).toBe(200);
        expect((await app.request({ method: 'GET', url: '/users/@schema' })).statusCode).toBe(200);
        const discovery = await app.json({ method: 'GET', url: '/.well-known/openid-configuration', as: null }, 200);
        expect(discovery).not.toHaveProperty('mtls_endpoint_aliases');
        const bearer = await adminBearer(app);
        const introspected = await app.request({
            method: 'POST', url: '/token/introspect', as: app.basic(ADMIN.name, ADMIN.password),
            headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: `token=${encodeURIComponent(bearer.slice('Bearer '.length))}`,
        });
        expect(introspected.statusCode, introspected.body).toBe(200);
    });
});

describeEachDialect('platform settings turned the other way (behaviour settings)', (dialect) => {
    const warnings: string[] = [];
    const app = useTestApp(dialect, {
        permissionsDefaultPolicyAssignment: false,
        querySchemaDiscoveryEnabled: false,
        userAuthBasic: false,
        mtlsPublicUrl: 'https://mtls.auth.example.com',
    }, { logger: recordingLogger((message) => warnings.push(message)) });

    it('PERMISSIONS_DEFAULT_POLICY_ASSIGNMENT=false: created without system.default, and the boot says what that means', async () => {
        const bearer = await adminBearer(app);
        const realmId = await createRealm(app, 'no-default-binding');
        const created = await app.json<{ data: { id: string } }>({ method: 'POST', url: '/permissions', as: bearer, payload: { name: 'report_read', realmId } }, 201);
        expect(await boundPolicies(app, created.data.id)).toEqual([]);
        // the built-in permissions keep theirs: the built-in roles' reach holds whatever the setting
        const builtIn = await app.deps.db.selectFrom('auth_permissions').select('id').where('name', '=', 'user_read').where('realm_id', 'is', null).executeTakeFirstOrThrow();
        expect(await boundPolicies(app, builtIn.id)).toContain(SystemPolicyName.DEFAULT);
        expect(warnings.some((message) => message.includes('PERMISSIONS_DEFAULT_POLICY_ASSIGNMENT is off') && message.includes('realmScope'))).toBe(true);
    });

    it('QUERY_SCHEMA_DISCOVERY_ENABLED=false: /schemas and every @schema answer 404, the collections still serve', async () => {
        const bearer = await adminBearer(app);
        expect((await app.request({ method: 'GET', url: '/schemas', as: bearer })).statusCode).toBe(404);
        for (const url of ['/users/@schema', '/permissions/@schema', '/realms/master/users/@schema', '/events/@schema']) {
            expect((await app.request({ method: 'GET', url, as: bearer })).statusCode, url).toBe(404);
        }
        expect((await app.request({ method: 'GET', url: '/users', as: bearer })).statusCode).toBe(200);
        const document = await app.json<{ paths: Record<string, unknown> }>({ method: 'GET', url: '/openapi.json', as: null }, 200);
        expect(Object.keys(document.paths).filter((path) => path.includes('schema'))).toEqual([]);
    });

    it('USER_AUTH_BASIC=false: Basic with a user\'s password is refused; a client\'s Basic and the password grant still work', async () => {
        const refused = await app.request({ method: 'GET', url: '/realms', as: app.basic(ADMIN.name, ADMIN.password) });
        expect(refused.statusCode).toBe(401);
        expect(refused.json()).toMatchObject({ code: 'invalid_credentials' });
        expect(refused.body).toContain('USER_AUTH_BASIC');
        // a wrong password stays an ordinary invalid credential
        expect((await app.request({ method: 'GET', url: '/realms', as: app.basic(ADMIN.name, 'wrong') })).json()).toMatchObject({ code: 'invalid_credentials' });
        const bearer = await adminBearer(app);
        const realmId = await createRealm(app, 'basic-client');
        await app.json({ method: 'POST', url: '/clients', as: bearer, payload: { name: 'scripted', realmId, secret: 'scripted-secret-value' } }, 201);
        const asClient = await app.request({ method: 'GET', url: `/realms/${realmId}/clients`, as: app.basic('scripted', 'scripted-secret-value') });
        expect(asClient.statusCode).toBe(200);
        // the Basic fallback to a user's credentials at introspection (RFC 7662 §2.1) is closed too
        const introspected = await app.request({
            method: 'POST', url: '/token/introspect', as: app.basic(ADMIN.name, ADMIN.password),
            headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: `token=${encodeURIComponent(bearer.slice('Bearer '.length))}`,
        });
        expect(introspected.statusCode).toBe(401);
        expect(introspected.json()).toMatchObject({ error: 'invalid_client' });
    });

    it('MTLS_PUBLIC_URL: discovery carries mtls_endpoint_aliases with the token and device endpoints (RFC 8705 §5)', async () => {
        for (const url of ['/.well-known/openid-configuration', '/realms/master/.well-known/openid-configuration']) {
            const discovery = await app.json<Record<string, unknown>>({ method: 'GET', url, as: null }, 200);
            expect(discovery.mtls_endpoint_aliases).toEqual({
                token_endpoint: 'https://mtls.auth.example.com/token',
                device_authorization_endpoint: 'https://mtls.auth.example.com/device_authorization',
            });
            expect(discovery.token_endpoint).toBe('http://localhost:3000/token');
        }
    });
});

