/*
 * Run before every docs build (`npm run docs:build`, `npm run docs:dev`): writes the server's OpenAPI
 * document and the API reference rendered from it under docs/reference/generated/ (git-ignored),
 * which docs/reference/api.md includes.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { readOpenApiDocument } from './read-openapi.js';
import { renderOpenApi } from './render-openapi.js';

const target = join(import.meta.dirname, '../reference/generated');
const document = await readOpenApiDocument();
await mkdir(target, { recursive: true });
await writeFile(join(target, 'openapi.json'), `${JSON.stringify(document, null, 2)}\n`);
await writeFile(join(target, 'operations.md'), renderOpenApi(document));
console.log(`wrote ${target}/openapi.json and operations.md`);
