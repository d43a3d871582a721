/*
 * The server's OpenAPI document, read the way the client kit's generator reads it
 * (packages/client/scripts/generate-routes.ts): the app is created in-process on a throwaway SQLite
 * file and answers GET /openapi.json, so the reference always describes the routes as built.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '../../packages/server/src/app.js';
import { loadConfig } from '../../packages/server/src/config/load.js';
import type { OpenApiDocument } from './render-openapi.js';

export async function readOpenApiDocument(): Promise<OpenApiDocument> {
    const directory = await mkdtemp(join(tmpdir(), 'realmgate-docs-openapi-'));
    try {
        const config = loadConfig({}, { logLevel: 'silent', env: 'test', writableDirectoryPath: directory, db: { type: 'sqlite' } });
        const app = await createApp(config, { bcryptCost: 4 });
        try {
            const answer = await app.app.inject({ method: 'GET', url: '/openapi.json' });
            if (answer.statusCode !== 200) throw new Error(`GET /openapi.json answered ${answer.statusCode}`);
            return answer.json() as OpenApiDocument;
        } finally {
            await app.close();
        }
    } finally {
        await rm(directory, { recursive: true, force: true });
    }
}
