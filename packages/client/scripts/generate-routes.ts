/*
 * `npm run generate -w @realmgate/client`: boots the server in-process on a throwaway SQLite file,
 * reads GET /openapi.json and writes src/generated/routes.ts (see render-routes.ts).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '../../server/src/app.js';
import { loadConfig } from '../../server/src/config/load.js';
import { renderRoutes, type OpenApiDocument } from './render-routes.js';

const directory = await mkdtemp(join(tmpdir(), 'realmgate-client-generate-'));
try {
    const config = loadConfig({}, { logLevel: 'silent', env: 'test', writableDirectoryPath: directory, db: { type: 'sqlite' } });
    const app = await createApp(config, { bcryptCost: 4 });
    try {
        const answer = await app.app.inject({ method: 'GET', url: '/openapi.json' });
        const target = join(import.meta.dirname, '../src/generated/routes.ts');
        await writeFile(target, renderRoutes(answer.json() as OpenApiDocument));
        console.log(`wrote ${target}`);
    } finally {
        await app.close();
    }
} finally {
    await rm(directory, { recursive: true, force: true });
}
