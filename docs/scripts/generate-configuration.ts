/* `npm run docs:configuration`: renders the configuration table into docs/reference/configuration.md. */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { withConfigurationTable } from './configuration-page.js';

const page = join(import.meta.dirname, '../reference/configuration.md');
await writeFile(page, withConfigurationTable(await readFile(page, 'utf8')));
console.log(`wrote ${page}`);
