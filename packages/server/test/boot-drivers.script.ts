/**
 * Boots the app from the environment (as `realmgate start` does, without listening), closes it and
 * prints, as JSON, which database and cache drivers the process loaded. Used by
 * src/db/drivers.test.ts, in a child process so that the test runner's own imports do not count.
 *
 * Run: node --conditions=source --import tsx packages/server/test/boot-drivers.script.ts
 */
import { createRequire } from 'node:module';
import { createApp } from '../src/app.js';
import { loadConfig } from '../src/config/load.js';

const DRIVERS = ['better-sqlite3', 'pg', 'mysql2', 'ioredis'];

const app = await createApp(loadConfig(process.env));
await app.close();
// Every driver is CommonJS: loaded from ESM or not, it lands in the CommonJS module cache.
const loaded = Object.keys(createRequire(import.meta.url).cache);
process.stdout.write(JSON.stringify(DRIVERS.filter((name) => loaded.some((path) => path.includes(`/node_modules/${name}/`)))));
