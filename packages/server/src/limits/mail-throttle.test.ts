import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryCounterStore, type CounterStore } from './counter-store.js';
import { createMailThrottle } from './mail-throttle.js';
import { createRedisCounterStore } from './redis-counter-store.js';

/** In process always, Redis when TEST_REDIS_URL is set: every replica counts the same mails. */
const stores: { name: string; open: () => Promise<CounterStore> }[] = [
    { name: 'memory', open: () => Promise.resolve(createMemoryCounterStore()) },
];
if (process.env.TEST_REDIS_URL) stores.push({ name: 'redis', open: () => createRedisCounterStore(process.env.TEST_REDIS_URL!) });

for (const { name, open } of stores) {
    describe(`mail throttle [${name}]`, () => {
        let store: CounterStore;
        const prefix = `realmgate:test:${randomBytes(6).toString('hex')}:`;
        beforeAll(async () => {
            store = await open();
        });
        afterAll(async () => store?.close());

        it('admits one mail of a kind per address in a minute, counting the address in any case, and keeps the kinds and addresses apart', async () => {
            const throttle = createMailThrottle(store, prefix);
            expect(await throttle.admit('reset', 'Someone@Example.test')).toBeNull();
            expect(await throttle.admit('reset', ' someone@example.test')).toBe(60);
            expect(await throttle.admit('activation', 'someone@example.test')).toBeNull();
            expect(await throttle.admit('reset', 'other@example.test')).toBeNull();
        });

        if (name === 'redis') {
            it('keys the counters by the address\'s digest: the store holds no address', async () => {
                const { Redis } = await import('ioredis');
                const redis = new Redis(process.env.TEST_REDIS_URL!);
                try {
                    await createMailThrottle(store, prefix).admit('reset', 'digest-me@example.test');
                    const keys = await redis.keys(`${prefix}mail:*`);
                    expect(keys.length).toBeGreaterThan(0);
                    for (const key of keys) expect(key).not.toContain('example.test');
                } finally {
                    redis.disconnect();
                }
            });
        }
    });
}
