import { randomUUID } from 'node:crypto';
import { beforeAll, expect, it } from 'vitest';
import { createActor, createRealm } from '../actors.js';
import { basicHeader, useTestApp } from '../app.js';
import { describeEachDialect } from '../databases.js';

type Row = { id: string; name: string; realmId: string | null };

describeEachDialect('hardening: input, built-ins, references, relation filters, name resolution', (dialect) => {
    const app = useTestApp(dialect);
    let realmA: string;
    let realmB: string;
    beforeAll(async () => {
        realmA = await createRealm(app, 'alpha');
        realmB = await createRealm(app, 'beta');
    });

    it('refuses NUL characters in bodies, paths, filters and Basic names with 400/401, never 500', async () => {
        const body = await app.request({ method: 'POST', url: '/roles', payload: { name: 'r\u0000x', realmId: realmA } });
        expect(body.statusCode).toBe(400);
        expect(body.json().issues[0].path).toEqual(['name']);
        expect((await app.request({ method: 'GET', url: '/roles?filter[name]=%00' })).statusCode).toBe(400);
        expect((await app.request({ method: 'GET', url: '/roles/%00' })).statusCode).toBe(400);
        expect((await app.request({ method: 'GET', url: '/roles', as: basicHeader('a\u0000b', 'pw') })).statusCode).toBe(401);
    });

    it('refuses a body nested deeper than the limit with 400', async () => {
        // sent as raw JSON text: the test client's own JSON.stringify would overflow first
        const deep = `${'['.repeat(5000)}"leaf"${']'.repeat(5000)}`;
        const response = await app.request({
            method: 'POST', url: '/roles', headers: { 'content-type': 'application/json' },
            payload: `{"name":"deep","realmId":"${realmA}","description":${deep}}`,
        });
        expect(response.statusCode).toBe(400);
        expect(response.json().issues[0].code).toBe('too_deep');
    });

    it('keeps the name, realm and client of built-in rows', async () => {
        expect((await app.request({ method: 'POST', url: '/realms/master', payload: { name: 'renamed' } })).statusCode).toBe(400);
        expect((await app.request({ method: 'POST', url: '/permissions/user_read', payload: { name: 'user_read_2' } })).statusCode).toBe(400);
        expect((await app.request({ method: 'POST', url: '/roles/admin', payload: { name: 'root' } })).statusCode).toBe(400);
        expect((await app.request({ method: 'POST', url: '/permissions/user_read', payload: { description: 'still editable' } })).statusCode).toBe(200);
        expect((await app.request({ method: 'GET', url: '/realms' })).statusCode).toBe(200);
    });

    it('a row keeps its realm, and a client owner must be of the same realm', async () => {
        const scope = (await app.json<{ data: Row }>({ method: 'POST', url: '/scopes', payload: { name: 'stay', realmId: realmA } }, 201)).data;
        expect((await app.request({ method: 'POST', url: `/scopes/${scope.id}`, payload: { realmId: realmB } })).statusCode).toBe(400);
        const clientB = (await app.json<{ data: Row }>({ method: 'POST', url: '/clients', payload: { name: 'bsvc', realmId: realmB } }, 201)).data;
        const foreignOwner = await app.request({ method: 'POST', url: '/roles', payload: { name: 'dr', realmId: realmA, clientId: clientB.id } });
        expect(foreignOwner.statusCode).toBe(400);
        expect(foreignOwner.json().issues[0].path).toEqual(['clientId']);
        expect((await app.request({ method: 'POST', url: '/permissions', payload: { name: 'x_read', realmId: null, clientId: clientB.id } })).statusCode).toBe(400);
        expect((await app.request({ method: 'POST', url: '/roles', payload: { name: 'br', realmId: realmB, clientId: clientB.id } })).statusCode).toBe(201);
        const missing = await app.request({ method: 'POST', url: '/roles', payload: { name: 'ghost-owner', realmId: realmA, clientId: randomUUID() } });
        expect(missing.statusCode).toBe(400);
        expect(missing.json().issues.length).toBeGreaterThan(0);
    });

    it('a relation filter never matches a related row the caller may not read', async () => {
        const clientB = (await app.json<{ data: Row }>({ method: 'POST', url: '/clients', payload: { name: 'probe-target', realmId: realmB } }, 201)).data;
        await app.json({ method: 'POST', url: '/roles', payload: { name: 'probe-role', realmId: realmB, clientId: clientB.id } }, 201);
        // reads every role, but clients only in its own realm
        const actor = await createActor(app, realmA, [{ permission: 'role_read', scope: 'any' }, { permission: 'client_read', scope: 'own' }]);
        const probe = await app.json<{ data: Row[]; meta: { total: number } }>({ method: 'GET', url: '/roles?filter[client.name]=probe-target', as: actor.header }, 200);
        expect(probe.meta.total).toBe(0);
        const admin = await app.json<{ meta: { total: number } }>({ method: 'GET', url: '/roles?filter[client.name]=probe-target' }, 200);
        expect(admin.meta.total).toBe(1);
    });

    it('a name resolves to the caller realm row before a global row of the same name, on every dialect', async () => {
        const global = (await app.json<{ data: Row }>({ method: 'POST', url: '/roles', payload: { name: 'twin', realmId: null } }, 201)).data;
        const local = (await app.json<{ data: Row }>({ method: 'POST', url: '/roles', payload: { name: 'twin', realmId: realmA } }, 201)).data;
        const actor = await createActor(app, realmA, [{ permission: 'role_read', scope: 'any' }]);
        expect((await app.json<{ data: Row }>({ method: 'GET', url: '/roles/twin', as: actor.header }, 200)).data.id).toBe(local.id);
        // the admin lives in master, which has no "twin": the global row
        expect((await app.json<{ data: Row }>({ method: 'GET', url: '/roles/twin' }, 200)).data.id).toBe(global.id);
    });

    it('PUT needs a UUID id or the row name; names stay addressable (no @, /, edge whitespace)', async () => {
        // a key that only looks like an id is a name: the row is created under it and stays addressable
        const dashes = '-'.repeat(36);
        expect((await app.request({ method: 'PUT', url: `/realms/alpha/roles/${dashes}`, payload: {} })).statusCode).toBe(201);
        expect((await app.json<{ data: Row }>({ method: 'GET', url: `/realms/alpha/roles/${dashes}` }, 200)).data.name).toBe(dashes);
        expect((await app.request({ method: 'PUT', url: '/realms/alpha/roles/newrole', payload: { name: 'other' } })).statusCode).toBe(400);
        expect((await app.request({ method: 'PUT', url: '/realms/alpha/roles/newrole', payload: {} })).statusCode).toBe(201);
        for (const name of ['@weird', 'a/b', 'sp ', ' sp']) {
            expect((await app.request({ method: 'POST', url: '/roles', payload: { name, realmId: realmA } })).statusCode, name).toBe(400);
        }
    });

    it('Basic names resolve in the route realm and then master, never falling through on a wrong secret (rule 5)', async () => {
        const local = await createActor(app, realmA, [{ permission: 'role_read', scope: 'own' }], 'admin');
        // alpha has its own "admin": the master admin's password does not sign in through alpha's mount
        expect((await app.request({ method: 'GET', url: '/realms/alpha/roles', as: basicHeader('admin', 'start123') })).statusCode).toBe(401);
        expect((await app.request({ method: 'GET', url: '/realms/alpha/roles', as: basicHeader('admin', 'secret-password') })).statusCode).toBe(200);
        // elsewhere a name is looked up in master alone
        expect((await app.request({ method: 'GET', url: '/roles', as: basicHeader('admin', 'secret-password') })).statusCode).toBe(401);
        expect((await app.request({ method: 'GET', url: '/roles', as: local.header })).statusCode).toBe(200);
        // beta has no "admin": its mount falls back to master
        expect((await app.request({ method: 'GET', url: '/realms/beta/roles', as: basicHeader('admin', 'start123') })).statusCode).toBe(200);
        // an unknown mount answers 401 to wrong credentials and 404 only to an authenticated caller
        expect((await app.request({ method: 'GET', url: '/realms/nope/roles', as: basicHeader('x', 'y') })).statusCode).toBe(401);
        expect((await app.request({ method: 'GET', url: '/realms/nope/roles' })).statusCode).toBe(404);
    });
});
