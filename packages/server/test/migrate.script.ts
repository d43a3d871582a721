/**
 * Migrates the SQLite file named by its first argument to the latest migration, starting at the
 * time (milliseconds since the epoch) of its second, and prints, as JSON, the names this process
 * applied. Used by src/db/migrate.test.ts, several at once in child processes:
 * SQLite's locks are per connection and better-sqlite3 waits synchronously, so replicas booting
 * together can only be played by separate processes.
 *
 * Run: node --conditions=source --import tsx packages/server/test/migrate.script.ts <path> <start>
 */
import { createDatabase } from '../src/db/connect.js';
import { migrateToLatest } from '../src/db/migrate.js';

const handle = await createDatabase({ type: 'sqlite', sqlitePath: process.argv[2]! });
// the processes start together, however long each took to load
await new Promise((resolve) => setTimeout(resolve, Math.max(0, Number(process.argv[3]) - Date.now())));
try {
    process.stdout.write(JSON.stringify(await migrateToLatest(handle)));
} finally {
    await handle.destroy();
}
