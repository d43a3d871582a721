import { Ajv2020 } from 'ajv/dist/2020.js';
import { randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../app.js';
import { createClient, masterRealmId } from '../identities.js';

type Responses = Record<string, { content?: Record<string, { schema: object }> }>;
type Document = { paths: Record<string, Record<string, { responses: Responses }>>; components: object };

/*
 * The document cannot lie: real answers of the main routes, successes and
 * errors, validate against the response schemas GET /openapi.json documents for them. Answers
 * are serialized with JSON.stringify, so a schema that missed a member would fail here rather
 * than silently drop it.
 */
describe('answers match their documented response schemas', () => {
    let app: TestApp;
    let document: Document;
    // OpenAPI 3.1 schemas are JSON Schema 2020-12; formats are not what this test checks
    const ajv = new Ajv2020({ allErrors: true, strict: false, validateFormats: false });
    beforeAll(async () => {
        app = await startTestApp('sqlite');
        document = await app.json<Document>({ method: 'GET', url: '/openapi.json', as: null }, 200);
    });
    afterAll(async () => app?.dispose());

    /** `success`: whether the call is meant to succeed (2xx) or to fail (4xx) */
    const holds = (method: string, path: string, response: LightMyRequestResponse, success = true) => {
        expect(response.statusCode >= 200 && response.statusCode < 300, `${method} ${path}: ${response.statusCode} ${response.body.slice(0, 300)}`).toBe(success);
        const documented = document.paths[path]?.[method]?.responses[String(response.statusCode)];
        expect(documented, `${method} ${path} documents ${response.statusCode}`).toBeDefined();
        const schema = documented!.content?.['application/json']?.schema;
        if (schema === undefined) {
            expect(response.body, `${method} ${path} ${response.statusCode} has no body`).toBe('');
            return;
        }
        // the shared error bodies are referred to as #/components/schemas/…: resolve them in the document's components
        const valid = ajv.validate({ ...schema, components: document.components }, response.json());
        expect(valid, `${method} ${path} ${response.statusCode}: ${ajv.errorsText()} in ${response.body.slice(0, 400)}`).toBe(true);
    };

    it('list, read, create, update and delete of a resource', async () => {
        const realmId = await masterRealmId(app);
        holds('get', '/users', await app.request({ method: 'GET', url: '/users' }));
        holds('get', '/realms/{realmId}/users', await app.request({ method: 'GET', url: `/realms/${realmId}/users?fields=id,name&page[limit]=2` }));
        const created = await app.request({ method: 'POST', url: '/clients', payload: { name: `c-${randomUUID().slice(0, 8)}`, realmId, redirectUri: 'https://a.example/cb' } });
        holds('post', '/clients', created);
        const id = (created.json() as { data: { id: string } }).data.id;
        holds('get', '/clients/{id}', await app.request({ method: 'GET', url: `/clients/${id}?fields=+secret` }));
        holds('post', '/clients/{id}', await app.request({ method: 'POST', url: `/clients/${id}`, payload: { displayName: 'A' } }));
        holds('post', '/clients/{id}/secret', await app.request({ method: 'POST', url: `/clients/${id}/secret` }));
        holds('put', '/roles/{id}', await app.request({ method: 'PUT', url: `/roles/role-${randomUUID().slice(0, 8)}`, payload: { realmId } }));
        holds('get', '/users/@me', await app.request({ method: 'GET', url: '/users/@me' }));
        holds('get', '/users/@schema', await app.request({ method: 'GET', url: '/users/@schema' }));
        holds('get', '/schemas', await app.request({ method: 'GET', url: '/schemas' }));
        holds('get', '/policies', await app.request({ method: 'GET', url: '/policies' }));
        holds('get', '/permissions', await app.request({ method: 'GET', url: '/permissions?include=realm' }));
        holds('delete', '/clients/{id}', await app.request({ method: 'DELETE', url: `/clients/${id}` }));
        holds('delete', '/sessions', await app.request({ method: 'DELETE', url: '/sessions' }));
    });

    it('the protocol routes: token, introspection, revocation, discovery, JWKS', async () => {
        const realmId = await masterRealmId(app);
        const client = await createClient(app, realmId, undefined, { grantTypes: ['client_credentials'] });
        const issued = await app.request({ method: 'POST', url: '/token', as: null, payload: { grant_type: 'password', username: 'admin', password: 'start123' } });
        holds('post', '/token', issued);
        const accessToken = (issued.json() as { access_token: string }).access_token;
        holds('post', '/token/introspect', await app.request({ method: 'POST', url: '/token/introspect', as: client.header, payload: { token: accessToken } }));
        holds('get', '/sessions/@me/introspect', await app.request({ method: 'GET', url: '/sessions/@me/introspect', as: `Bearer ${accessToken}` }));
        holds('get', '/sessions/@me', await app.request({ method: 'GET', url: '/sessions/@me', as: `Bearer ${accessToken}` }));
        holds('post', '/token/revoke', await app.request({ method: 'POST', url: '/token/revoke', as: client.header, payload: { token: accessToken } }));
        holds('get', '/.well-known/openid-configuration', await app.request({ method: 'GET', url: '/.well-known/openid-configuration', as: null }));
        holds('get', '/realms/{realm}/.well-known/openid-configuration', await app.request({ method: 'GET', url: '/realms/master/.well-known/openid-configuration', as: null }));
        holds('get', '/realms/{realmId}/jwks', await app.request({ method: 'GET', url: `/realms/${realmId}/jwks`, as: null }));
        // errors of the protocol routes carry error/error_description
        holds('post', '/token', await app.request({ method: 'POST', url: '/token', as: null, payload: { grant_type: 'password', username: 'admin', password: 'wrong' } }), false);
        holds('post', '/token', await app.request({ method: 'POST', url: '/token', as: null, payload: { grant_type: 'nonsense' } }), false);
    });

    it('the authorization routes: catalog, batch check, subject check', async () => {
        holds('get', '/authorization', await app.request({ method: 'GET', url: '/authorization' }));
        holds('post', '/authorization/check', await app.request({ method: 'POST', url: '/authorization/check', payload: { names: ['user_read'] } }));
        const permission = await app.json<{ data: { id: string }[] }>({ method: 'GET', url: '/permissions?filter[name]=user_read' }, 200);
        holds('post', '/permissions/{id}/check', await app.request({ method: 'POST', url: `/permissions/${permission.data[0]!.id}/check`, payload: {} }));
    });

    it('errors: 400, 401, 404 and an unknown route', async () => {
        holds('post', '/users', await app.request({ method: 'POST', url: '/users', payload: { unknown: 1 } }), false);
        holds('post', '/users', await app.request({ method: 'POST', url: '/users', as: null, payload: {} }), false);
        holds('get', '/users/{id}', await app.request({ method: 'GET', url: `/users/${randomUUID()}` }), false);
        holds('get', '/users', await app.request({ method: 'GET', url: '/users?filter[nope]=1' }), false);
        holds('get', '/realms/{realmId}/users', await app.request({ method: 'GET', url: '/realms/nope/users' }), false);
        const unknown = await app.request({ method: 'GET', url: '/no/such/route', as: null });
        expect(unknown.statusCode).toBe(404);
        holds('get', '/users/{id}', unknown, false);
    });
});
