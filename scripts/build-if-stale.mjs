import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { PACKAGES, inputDigest, outputsPresent, readStamps, staleReason, writeStamps } from './build-stamp.mjs';

/*
 * `npm start`'s build: each workspace package in build order, built (its own `npm run build`) only
 * when its output is missing or its inputs changed since the last build this script stamped. A
 * fresh clone builds everything; a second start with nothing changed builds nothing.
 */

const root = fileURLToPath(new URL('..', import.meta.url));
const stamps = readStamps(root);
const digests = {};
for (const pkg of PACKAGES) {
    digests[pkg.dir] = inputDigest(root, pkg, digests);
    const reason = staleReason({ outputsPresent: outputsPresent(root, pkg), recordedDigest: stamps[pkg.dir], currentDigest: digests[pkg.dir] });
    if (reason === null) continue;
    console.log(`building ${pkg.dir} (${reason})`);
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    const result = spawnSync(npm, ['run', 'build', '--workspace', pkg.dir], { cwd: root, stdio: 'inherit' });
    if (result.status !== 0) {
        delete stamps[pkg.dir];
        writeStamps(root, stamps);
        process.exit(result.status ?? 1);
    }
    stamps[pkg.dir] = digests[pkg.dir];
    writeStamps(root, stamps);
}
