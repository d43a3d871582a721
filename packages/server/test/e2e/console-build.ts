import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../server-process.js';

/*
 * The consoles' build for the browser tests: made once per run by the global setup when
 * apps/console/dist is missing or older than its sources, so that test files running side by side
 * never build into the same folder at once.
 */

const CONSOLE = join(ROOT, 'apps/console');
const BUILT = join(CONSOLE, 'dist/admin/index.html');

function newestSource(path: string): number {
    const stat = statSync(path);
    if (!stat.isDirectory()) return stat.mtimeMs;
    return Math.max(0, ...readdirSync(path).map((name) => newestSource(join(path, name))));
}

/** `vite build` of apps/console when dist is missing or stale (a few seconds); nothing otherwise. */
export function ensureConsoleBuilt(): void {
    const sources = [join(CONSOLE, 'src'), join(CONSOLE, 'admin'), join(CONSOLE, 'account'), join(CONSOLE, 'vite.config.ts')];
    const fresh = existsSync(BUILT) && statSync(BUILT).mtimeMs >= Math.max(...sources.map(newestSource));
    if (fresh) return;
    // vitest sets NODE_ENV=test, which Vite would bake into the bundle (Vue's development build:
    // warnings and devtools, about 40 kB more gzipped): the tests load what `npm run build` ships
    execFileSync(process.execPath, [join(ROOT, 'node_modules/vite/bin/vite.js'), 'build', '--logLevel', 'warn'], {
        cwd: CONSOLE, stdio: 'inherit', env: { ...process.env, NODE_ENV: 'production' },
    });
}

