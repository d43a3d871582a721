import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { startTestApp } from '../../server/test/app.js';
import { renderRoutes, type OpenApiDocument } from '../scripts/render-routes.js';

/*
 * The client's route table is rendered from the server's OpenAPI document, which the server builds
 * from the TypeBox contracts it validates with: the committed file must be what the document renders
 * now, so the client and the server never drift. Regenerate with `npm run generate -w @realmgate/client`.
 */
it('src/generated/routes.ts is the rendering of the current GET /openapi.json', async () => {
    const app = await startTestApp('sqlite');
    try {
        const document = (await app.request({ method: 'GET', url: '/openapi.json', as: null })).json() as OpenApiDocument;
        const committed = await readFile(join(import.meta.dirname, '../src/generated/routes.ts'), 'utf8');
        expect(committed === renderRoutes(document), 'stale: run `npm run generate -w @realmgate/client`').toBe(true);
    } finally {
        await app.dispose();
    }
});
