import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createMemoryCounterStore } from './counter-store.js';
import { createFallbackCounterStore } from './fallback-counter-store.js';
import { createRateLimiter } from './limiter.js';
import { createRedisCounterStore } from './redis-counter-store.js';

const freePort = async (): Promise<number> => {
    const server = createServer();
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as { port: number };
    server.close();
    await once(server, 'close');
    return port;
};

/** A throw-away redis-server that answers until the test kills it. */
const startRedis = async (port: number): Promise<ChildProcess> => {
    const server = spawn('redis-server', ['--port', String(port), '--save', '', '--appendonly', 'no'], { stdio: ['ignore', 'pipe', 'ignore'] });
    let output = '';
    server.stdout!.on('data', (chunk: Buffer) => { output += chunk.toString(); });
    while (!/Ready to accept connections/.test(output)) {
        if (server.exitCode !== null) throw new Error('redis-server did not start');
        await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return server;
};

describe('rate limits with Redis gone at runtime (they do not fail open)', () => {
    let redis: ChildProcess | null = null;
    afterEach(() => {
        redis?.kill('SIGKILL');
        redis = null;
    });

    it('counts in process while Redis is away: 300 failures from one address, then 429; the outage is reported once', async () => {
        const port = await freePort();
        redis = await startRedis(port);
        const reports: string[] = [];
        const store = createFallbackCounterStore(await createRedisCounterStore(`redis://127.0.0.1:${port}`), createMemoryCounterStore(), {
            outage: () => reports.push('outage'),
            recovered: () => reports.push('recovered'),
        });
        const limiter = createRateLimiter({
            store, prefix: `fallback-test:${port}:`, settings: { failureMax: 300, userMax: 1000, clientMax: 1000, anonymousMax: 1000 },
        });
        try {
            expect((await limiter.charge(null, '203.0.113.9')).allowed).toBe(true);
            redis.kill('SIGKILL');
            await once(redis, 'exit');
            redis = null;
            for (let failure = 0; failure < 340; failure++) await limiter.recordFailure('203.0.113.9');
            const decision = await limiter.charge(null, '203.0.113.9');
            expect(decision).toMatchObject({ allowed: false, reason: 'address' });
            expect(limiter.refusal('203.0.113.9')).toBeGreaterThan(0);
            // another address is not refused: the in-process counters are per address
            expect((await limiter.charge(null, '203.0.113.10')).allowed).toBe(true);
            expect(reports).toEqual(['outage']);
            // Redis back on its port: ioredis reconnects and counting returns there, reported once
            redis = await startRedis(port);
            while (reports.length < 2) {
                await limiter.charge(null, '203.0.113.11');
                await new Promise((resolve) => setTimeout(resolve, 50));
            }
            expect(reports).toEqual(['outage', 'recovered']);
        } finally {
            await limiter.close();
        }
    }, 30_000);
});
