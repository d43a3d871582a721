import { startTestApp, type TestApp } from '../../server/test/app.js';
import { freePort } from '../../server/test/network.js';
import { isRealmgateError, type RealmgateError } from '../src/index.js';

/* The client suites' fixtures: the real server listening on a free loopback port (no inject, no stubbed fetch). */

async function listening(app: TestApp): Promise<string> {
    const url = app.deps.config.publicUrl;
    await app.app.listen({ port: Number(new URL(url).port), host: '127.0.0.1' });
    return url;
}

export async function startListening(dialect: Parameters<typeof startTestApp>[0], overrides: Parameters<typeof startTestApp>[1] = {}, wire: Parameters<typeof startTestApp>[2] = {}) {
    const port = await freePort();
    const app = await startTestApp(dialect, { publicUrl: `http://127.0.0.1:${port}`, ...overrides }, wire);
    return { app, url: await listening(app) };
}

/** The RealmgateError a promise rejects with (anything else fails the test). */
export const caught = async (promise: Promise<unknown>): Promise<RealmgateError> => {
    try {
        await promise;
    } catch (error) {
        if (isRealmgateError(error)) return error;
        throw error;
    }
    throw new Error('expected a RealmgateError');
};
