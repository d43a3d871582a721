import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../app.js';

interface Operation {
    security?: Record<string, string[]>[];
    responses?: Record<string, unknown>;
}
type Document = { openapi: string; paths: Record<string, Record<string, Operation>> };

/** Fastify's `:name` path parameters as OpenAPI `{name}` templates. */
const templated = (url: string) => url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

/*
 * GET /openapi.json: a valid OpenAPI 3.1 document, built from the route
 * declarations, that covers every registered route with its method, error answers and security.
 */
describe('the OpenAPI document', () => {
    let app: TestApp;
    let document: Document;
    beforeAll(async () => {
        app = await startTestApp('sqlite');
        document = await app.json<Document>({ method: 'GET', url: '/openapi.json', as: null }, 200);
    });
    afterAll(async () => app?.dispose());

    it('validates as OpenAPI 3.1 (@seriousme/openapi-schema-validator)', async () => {
        expect(document.openapi).toBe('3.1.0');
        const result = await new Validator().validate(document as never);
        expect(result.errors ?? []).toEqual([]);
        expect(result.valid).toBe(true);
    });

    it('documents every registered route with its method', () => {
        const documented = app.routes.filter((route) => !route.hidden);
        // only plugin-owned routes are hidden: the explorer's assets and the CORS preflight
        for (const route of app.routes.filter((entry) => entry.hidden)) {
            expect(route.url === '*' && route.method === 'OPTIONS' || route.url.startsWith('/docs/'), `${route.method} ${route.url}`).toBe(true);
        }
        expect(documented.length).toBeGreaterThan(100);
        const missing = documented.filter((route) => !document.paths[templated(route.url)]?.[route.method.toLowerCase()]);
        expect(missing).toEqual([]);
        const operations = Object.values(document.paths).reduce((count, path) => count + Object.keys(path).length, 0);
        expect(operations).toBe(documented.length);
    });

    it('documents the error answers and the security requirement of every operation', () => {
        for (const [path, operations] of Object.entries(document.paths)) {
            for (const [method, operation] of Object.entries(operations)) {
                const where = `${method.toUpperCase()} ${path}`;
                expect(Array.isArray(operation.security), where).toBe(true);
                const statuses = Object.keys(operation.responses ?? {});
                expect(statuses.some((status) => status.startsWith('2')), where).toBe(true);
                for (const status of ['400', '404', '429', '500']) expect(statuses, where).toContain(status);
                if ((operation.security ?? []).some((requirement) => Object.keys(requirement).length > 0)) expect(statuses, where).toContain('401');
            }
        }
        expect(document.paths['/users']!.post!.security).toEqual([{ basic: [] }, { bearer: [] }]);
        expect(document.paths['/authorization/check']!.post!.security).toEqual([{}, { basic: [] }, { bearer: [] }]);
        expect(document.paths['/.well-known/openid-configuration']!.get!.security).toEqual([]);
        expect(document.paths['/token']!.post!.security).toEqual([{}, { basic: [] }]);
        // the error bodies are shared components, the OAuth one on the protocol routes
        const errorOf = (path: string, method: string) => (document.paths[path]![method]!.responses!['400'] as { content: Record<string, { schema: unknown }> }).content['application/json']!.schema;
        expect(errorOf('/users', 'post')).toEqual({ $ref: '#/components/schemas/Error' });
        expect(errorOf('/token', 'post')).toEqual({ $ref: '#/components/schemas/OAuthError' });
    });

    it('a record requires what every default read answers; a read taking fields= also documents its projection', () => {
        type Schema = { anyOf?: Schema[]; required?: string[]; properties?: Record<string, { anyOf?: unknown[]; type?: string }>; [keyword: string]: unknown };
        const dataOf = (path: string, method: string, status: string) => {
            const answer = document.paths[path]![method]!.responses![status] as { content: Record<string, { schema: { properties: { data: Schema & { items?: Schema } } } }> };
            const data = answer.content['application/json']!.schema.properties.data;
            return data.items ?? data;
        };
        // a write answers the whole record: id, timestamps and every default-read field, a withheld one optional
        const created = dataOf('/users', 'post', '201');
        expect(created.required).toEqual(expect.arrayContaining(['id', 'createdAt', 'updatedAt', 'realmId', 'name', 'active', 'displayName']));
        expect(created.required).not.toContain('email');
        expect(created.properties!.id).toMatchObject({ type: 'string' });
        // nullable where a read can answer null, never for the identity
        expect(created.properties!.displayName!.anyOf).toHaveLength(2);
        expect(created.properties!.id!.anyOf).toBeUndefined();
        // a read: the default record, or the projection fields= narrows it to (nothing required)
        for (const [path, method] of [['/users', 'get'], ['/users/{id}', 'get'], ['/users/{id}', 'delete']] as const) {
            const [whole, projection] = dataOf(path, method, '200').anyOf!;
            expect(whole!.required, `${method} ${path}`).toEqual(created.required);
            expect(projection, `${method} ${path}`).toMatchObject({ 'x-realmgate-projection': true });
            expect(projection!.required ?? []).toEqual([]);
        }
    });

    it('serves the explorer at /docs', async () => {
        const page = await app.request({ method: 'GET', url: '/docs', as: null });
        expect(page.statusCode).toBe(200);
        expect(page.headers['content-type']).toMatch(/text\/html/);
        expect(page.body).toContain('swagger-ui');
        expect(page.headers['content-security-policy']).toContain("script-src 'self'");
        const json = await app.request({ method: 'GET', url: '/docs/json', as: null });
        expect(json.json()).toMatchObject({ openapi: '3.1.0' });
    });
});
