import { connect, createServer, type Socket } from 'node:net';

/*
 * A TCP relay on loopback in front of a server that can go silent, as a network does when a link
 * or a stateful firewall drops a connection without telling either end: no FIN, no reset, the
 * sockets stay open and nothing crosses them until TCP itself gives up (hours with the defaults).
 */

export interface SilentRelay {
    /** `target`'s URL (a TEST_POSTGRES_URL database URL) with the relay's address in place of the server's */
    urlOf(target: string): string;
    /** stops relaying on every connection open now, closing none; connections opened later relay as usual */
    freeze(): void;
    /** closes every connection, frozen ones included, and the listener */
    close(): Promise<void>;
}

export async function startSilentRelay(host: string, port: number): Promise<SilentRelay> {
    const open = new Set<[Socket, Socket]>();
    const frozen = new Set<[Socket, Socket]>();
    const server = createServer((client) => {
        const upstream = connect(port, host);
        const pair: [Socket, Socket] = [client, upstream];
        open.add(pair);
        client.pipe(upstream);
        upstream.pipe(client);
        const end = () => {
            open.delete(pair);
            client.destroy();
            upstream.destroy();
        };
        for (const socket of pair) {
            socket.on('error', end);
            socket.on('close', end);
        }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    if (!address || typeof address === 'string') throw new Error('the relay has no port');
    return {
        urlOf(target) {
            const url = new URL(target);
            url.hostname = '127.0.0.1';
            url.port = String(address.port);
            return url.toString();
        },
        freeze() {
            for (const pair of open) {
                const [client, upstream] = pair;
                client.unpipe(upstream);
                upstream.unpipe(client);
                // neither read nor closed: whatever either end sends stays in the kernel's buffers
                client.pause();
                upstream.pause();
                for (const socket of pair) socket.removeAllListeners('close').removeAllListeners('error').on('error', () => undefined);
                open.delete(pair);
                frozen.add(pair);
            }
        },
        async close() {
            for (const [client, upstream] of [...open, ...frozen]) {
                client.destroy();
                upstream.destroy();
            }
            await new Promise<void>((resolve) => server.close(() => resolve()));
        },
    };
}
