import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, RouteOptions } from 'fastify';
import { contract, SECURITY_SCHEMES } from './contracts/route-contract.js';

/** Where the explorer lives (spec "Authorization-code, device and logout routes" names `/docs`). */
const DOCS_PREFIX = '/docs';

/**
 * The OpenAPI 3.1 document, built by @fastify/swagger from the route declarations (their
 * `contract()` options). Registered before any route: swagger collects routes as they register,
 * and the document is generated once, at the first `app.swagger()` after `ready()`, then cached.
 */
export async function registerOpenApiDocument(app: FastifyInstance, publicUrl: string): Promise<void> {
    await app.register(swagger, {
        openapi: {
            openapi: '3.1.0',
            info: {
                title: 'Realmgate',
                version: '0.1.0',
                description: 'Multi-realm OAuth 2.0 / OpenID Connect identity server. Errors answer the API.md §1 body.',
            },
            servers: [{ url: publicUrl }],
            components: { securitySchemes: SECURITY_SCHEMES },
        },
        // shared schemas (the error bodies) are named by their $id in components/schemas
        refResolver: { buildLocalReference: (json, _baseUri, _fragment, index) => (typeof json.$id === 'string' ? json.$id : `def-${index}`) },
        // a plugin's root route is registered as `/docs` and `/docs/`; the document names it `/docs`
        transform: ({ schema, url }) => ({ schema, url: url.length > 1 ? url.replace(/\/$/, '') : url }),
    });
}

/** What the explorer needs to know of the deployment. */
export interface ExplorerSettings {
    /** DOCS_ENABLED: `false` leaves /docs unregistered (404); the document stays at /openapi.json */
    enabled: boolean;
    /** PUBLIC_URL: whether browsers reach this listener over https */
    publicUrl: string;
}

/**
 * swagger-ui's static policy ends in `upgrade-insecure-requests`, which has a browser fetch every
 * asset of the page over https (CSP Level 3 "Upgrade Insecure Requests" §3). Browsers exempt only
 * localhost, so a plain-http deployment reached by any other name loads no script and shows a blank
 * page. The directive is kept where the listener is reached over https, dropped otherwise.
 */
function explorerPolicy(publicUrl: string): ((header: string) => string) | undefined {
    if (new URL(publicUrl).protocol === 'https:') return undefined;
    return (header) => header.split(';').map((directive) => directive.trim()).filter((directive) => directive !== '' && directive !== 'upgrade-insecure-requests').join('; ') + ';';
}

/**
 * `GET /openapi.json` and the explorer at `GET /docs` (@fastify/swagger-ui). Both are public and
 * run under the anonymous request budget like any request without credentials. The explorer's
 * assets carry their own Content-Security-Policy (script and style hashes of swagger-ui), which
 * replaces helmet's on those answers only. The explorer shows a filter box over the tags
 * (swagger-ui's `filter`), as the document groups its hundreds of operations by tag.
 */
export async function registerOpenApiRoutes(app: FastifyInstance, explorer: ExplorerSettings): Promise<void> {
    let document: unknown;
    // generated once, at boot, from every declaration registered by then
    app.addHook('onReady', async () => {
        document = app.swagger();
    });
    app.get('/openapi.json', contract({
        auth: 'none', tags: ['docs'], summary: 'This OpenAPI 3.1 document',
        response: { 200: Type.Object({ openapi: Type.String() }, { additionalProperties: true, description: 'The document.' }) },
    }), async (_request, reply) => reply.header('cache-control', 'public, max-age=60').send(document));
    if (!explorer.enabled) return;
    await app.register(async (scope) => {
        // the explorer page is documented like any route; its assets stay hidden (schema.hide)
        scope.addHook('onRoute', (route: RouteOptions) => {
            if (route.method !== 'GET' || route.url !== DOCS_PREFIX) return;
            const declared = contract({
                auth: 'none', tags: ['docs'], summary: 'The API explorer (swagger-ui) over this document',
                response: { 200: Type.Unsafe({ description: 'The explorer page.', content: { 'text/html': { schema: { type: 'string' } } } }) },
            });
            route.schema = declared.schema as RouteOptions['schema'];
            route.config = { ...route.config, ...declared.config };
        });
        const transformStaticCSP = explorerPolicy(explorer.publicUrl);
        await scope.register(swaggerUi, {
            routePrefix: DOCS_PREFIX, staticCSP: true, ...(transformStaticCSP ? { transformStaticCSP } : {}),
            uiConfig: { filter: true },
        });
    });
}
