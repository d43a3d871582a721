import { createServer } from 'node:net';

/** A port free right now, so PUBLIC_URL can name the address the app then listens on. */
export async function freePort(): Promise<number> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    if (!address || typeof address === 'string') throw new Error('no port');
    return address.port;
}
