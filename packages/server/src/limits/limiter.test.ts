import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryCounterStore, type CounterStore } from './counter-store.js';
import { createRateLimiter, WINDOW_MS } from './limiter.js';
import { createLoginGate } from './login-gate.js';
import { createRedisCounterStore } from './redis-counter-store.js';

/** The counter stores against the same expectations: in process always, Redis when TEST_REDIS_URL is set. */
const stores: { name: string; open: (clock: () => number) => Promise<CounterStore> }[] = [
    { name: 'memory', open: (clock) => Promise.resolve(createMemoryCounterStore(clock)) },
];
if (process.env.TEST_REDIS_URL) stores.push({ name: 'redis', open: () => createRedisCounterStore(process.env.TEST_REDIS_URL!) });

for (const { name, open } of stores) {
    describe(`counter store [${name}]`, () => {
        let now = 1_000 * WINDOW_MS;
        let store: CounterStore;
        const prefix = `realmgate:test:${randomBytes(6).toString('hex')}:`;
        beforeAll(async () => {
            store = await open(() => now);
        });
        afterAll(async () => store?.close());

        it('increments a key and reads a watched one in one operation', async () => {
            expect(await store.incrementAndRead(`${prefix}a`, null, 60_000)).toEqual([1, 0]);
            expect(await store.incrementAndRead(`${prefix}a`, `${prefix}b`, 60_000)).toEqual([2, 0]);
            expect(await store.incrementAndRead(`${prefix}b`, `${prefix}a`, 60_000)).toEqual([1, 2]);
            expect(await store.incrementAndRead(`${prefix}b`, `${prefix}a`, 60_000)).toEqual([2, 2]);
        });

        it('keeps increments atomic under concurrency', async () => {
            const counts = await Promise.all(Array.from({ length: 50 }, () => store.incrementAndRead(`${prefix}c`, null, 60_000)));
            expect(counts.map(([count]) => count).sort((x, y) => x - y)).toEqual(Array.from({ length: 50 }, (_, index) => index + 1));
        });

        if (name === 'memory') {
            it('forgets a counter once its time to live has passed', async () => {
                await store.incrementAndRead(`${prefix}d`, null, 1_000);
                now += 999;
                expect(await store.incrementAndRead(`${prefix}d`, null, 1_000)).toEqual([2, 0]);
                now += 1;
                expect(await store.incrementAndRead(`${prefix}d`, null, 1_000)).toEqual([1, 0]);
            });
        } else {
            it('sets the time to live with the first increment only', async () => {
                const { Redis } = await import('ioredis');
                const redis = new Redis(process.env.TEST_REDIS_URL!);
                try {
                    await store.incrementAndRead(`${prefix}e`, null, 30_000);
                    const first = await redis.pttl(`${prefix}e`);
                    expect(first).toBeGreaterThan(0);
                    expect(first).toBeLessThanOrEqual(30_000);
                    await store.incrementAndRead(`${prefix}e`, null, 90_000);
                    expect(await redis.pttl(`${prefix}e`)).toBeLessThanOrEqual(first);
                } finally {
                    redis.disconnect();
                }
            });
        }
    });
}

describe('redis counter store at boot', () => {
    it('refuses to start on an unreachable Redis, naming the setting but not its credentials', async () => {
        const opening = createRedisCounterStore('redis://user:hunter2@127.0.0.1:1');
        await expect(opening).rejects.toThrow(/^REDIS_URL: the rate-limit store cannot be reached/);
        await expect(opening).rejects.not.toThrow(/hunter2/);
    });
});

describe('rate limiter', () => {
    const settings = { failureMax: 3, userMax: 2, clientMax: 4, anonymousMax: 1 };
    const start = 5_000 * WINDOW_MS;
    const limiter = (clock: () => number) => createRateLimiter({ store: createMemoryCounterStore(clock), settings, prefix: 't:', clock });

    it('refuses an address as a whole from the limit to the end of the window', async () => {
        let now = start + 15_000;
        const subject = limiter(() => now);
        for (let index = 0; index < 2; index++) await subject.recordFailure('10.0.0.1');
        expect(subject.refusal('10.0.0.1')).toBeNull();
        await subject.recordFailure('10.0.0.1');
        expect(subject.refusal('10.0.0.1')).toBe(45);
        expect(subject.refusal('10.0.0.2')).toBeNull();
        now = start + WINDOW_MS - 1;
        expect(subject.refusal('10.0.0.1')).toBe(1);
        now = start + WINDOW_MS;
        expect(subject.refusal('10.0.0.1')).toBeNull();
        expect((await subject.charge({ kind: 'user', id: 'u' }, '10.0.0.1')).allowed).toBe(true);
    });

    it('learns a refusal counted elsewhere from the failure count a charge reads', async () => {
        const now = start;
        const store = createMemoryCounterStore(() => now);
        const a = createRateLimiter({ store, settings, prefix: 's:', clock: () => now });
        const b = createRateLimiter({ store, settings, prefix: 's:', clock: () => now });
        for (let index = 0; index < 3; index++) await a.recordFailure('10.0.0.9');
        expect(b.refusal('10.0.0.9')).toBeNull();
        expect(await b.charge({ kind: 'client', id: 'c' }, '10.0.0.9')).toMatchObject({ allowed: false, reason: 'address', retryAfter: 60 });
        expect(b.refusal('10.0.0.9')).toBe(60);
    });

    it('charges budgets per identity and the anonymous budget per address, window by window', async () => {
        let now = start;
        const subject = limiter(() => now);
        expect(await subject.charge({ kind: 'user', id: 'u1' }, 'x')).toMatchObject({ allowed: true, limit: 2, remaining: 1, resetSeconds: 60 });
        expect(await subject.charge({ kind: 'user', id: 'u1' }, 'y')).toMatchObject({ allowed: true, remaining: 0 });
        expect(await subject.charge({ kind: 'user', id: 'u1' }, 'z')).toMatchObject({ allowed: false, reason: 'budget', retryAfter: 60 });
        expect((await subject.charge({ kind: 'user', id: 'u2' }, 'x')).allowed).toBe(true);
        for (let index = 0; index < 4; index++) expect((await subject.charge({ kind: 'client', id: 'u1' }, 'x')).allowed).toBe(true);
        expect((await subject.charge({ kind: 'client', id: 'u1' }, 'x')).allowed).toBe(false);
        expect((await subject.charge(null, 'x')).allowed).toBe(true);
        expect((await subject.charge(null, 'x')).allowed).toBe(false);
        expect((await subject.charge(null, 'y')).allowed).toBe(true);
        now += WINDOW_MS;
        expect((await subject.charge({ kind: 'user', id: 'u1' }, 'x')).allowed).toBe(true);
        expect((await subject.charge(null, 'x')).allowed).toBe(true);
    });

    it('lets requests through and reports once when the store fails', async () => {
        const reports: unknown[] = [];
        const broken: CounterStore = { incrementAndRead: () => Promise.reject(new Error('down')), read: () => Promise.reject(new Error('down')), put: () => Promise.reject(new Error('down')), close: () => Promise.resolve() };
        const subject = createRateLimiter({ store: broken, settings, prefix: 'b:', onStoreError: (error) => reports.push(error) });
        expect((await subject.charge(null, 'x')).allowed).toBe(true);
        await subject.recordFailure('x');
        expect(subject.refusal('x')).toBeNull();
        expect(reports).toHaveLength(1);
    });
});

describe('login gate', () => {
    it('once an attempt failed, admits up to the threshold per key and frees a slot when an attempt ends', () => {
        let now = 0;
        const gate = createLoginGate(2, () => now);
        for (let index = 0; index < 3; index++) expect(gate.enter('a')).toBe(true);
        gate.failed('a');
        expect(gate.enter('a')).toBe(false);
        gate.leave('a');
        gate.leave('a');
        expect(gate.enter('a')).toBe(true);
        expect(gate.enter('a')).toBe(false);
        expect(gate.enter('b')).toBe(true);
        gate.leave('a');
        expect(gate.enter('a')).toBe(true);
        // the throttle ends a minute after the last failure
        now = 60_000;
        expect(gate.enter('a')).toBe(true);
    });
});
