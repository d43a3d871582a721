/* What the standalone checks (packed-packages.mjs, runtime-tree.mjs) share: ports, assertions, readiness. */
import { createServer } from 'node:net';

/** A port nothing listens on now, on loopback. */
export function freePort() {
    return new Promise((done, fail) => {
        const server = createServer();
        server.once('error', fail);
        server.listen(0, '127.0.0.1', () => {
            const { port } = server.address();
            server.close(() => done(port));
        });
    });
}

export function check(condition, message) {
    if (!condition) throw new Error(message);
}

/** Polls `url` until it answers 200; throws with the process's output when the process exits first. */
export async function untilAnswers(url, child, output) {
    for (;;) {
        check(child.exitCode === null && child.signalCode === null, `the server exited (${child.exitCode ?? child.signalCode}):\n${output()}`);
        try {
            if ((await fetch(url)).status === 200) return;
        } catch {
            // not listening yet
        }
        await new Promise((wake) => setTimeout(wake, 200));
    }
}
