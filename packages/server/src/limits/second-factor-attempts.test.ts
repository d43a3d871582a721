import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { createMemoryCounterStore, type CounterStore } from './counter-store.js';
import { createRedisCounterStore } from './redis-counter-store.js';
import { createSecondFactorAttempts, SECOND_FACTOR_LIMITS } from './second-factor-attempts.js';

const MINUTE = 60_000;

/** The attempts over one store, with a clock the test moves (the memory store expires keys by it too). */
function suite(name: string, storeOf: (clock: () => number) => Promise<CounterStore>, moveStoreClock: boolean) {
    describe(name, () => {
        const stores: CounterStore[] = [];
        afterAll(async () => Promise.all(stores.map((store) => store.close())));
        const setup = async () => {
            const time = { now: 1_000_000 * MINUTE };
            const store = await storeOf(() => time.now);
            stores.push(store);
            const prefix = `realmgate:test:${randomBytes(6).toString('hex')}:`;
            return { time, attempts: createSecondFactorAttempts(store, prefix, () => time.now) };
        };

        it('spends a ticket at its fifth wrong factor and locks the user at its tenth, whatever the tickets', async () => {
            const { attempts } = await setup();
            const outcomes = [];
            for (let attempt = 0; attempt < 10; attempt++) outcomes.push(await attempts.failed(attempt < 5 ? 'ticket-a' : 'ticket-b', 'user'));
            expect(outcomes.map((outcome) => outcome.ticketSpent)).toEqual([false, false, false, false, true, false, false, false, false, true]);
            expect(outcomes.slice(0, 9).every((outcome) => outcome.lock === null)).toBe(true);
            expect(outcomes[9]!.lock).toEqual({ seconds: SECOND_FACTOR_LIMITS.lockMs / 1000, level: 1 });
            expect(await attempts.lockedFor('user')).toBe(SECOND_FACTOR_LIMITS.lockMs / 1000);
            expect(await attempts.lockedFor('another-user')).toBeNull();
        });

        if (moveStoreClock) it('ends the lock after its time and doubles the next one (backoff)', async () => {
            const { time, attempts } = await setup();
            const lockOf = async () => {
                let lock = null;
                for (let attempt = 0; attempt < 10; attempt++) lock = (await attempts.failed(`ticket-${time.now}-${attempt}`, 'user')).lock;
                return lock;
            };
            expect((await lockOf())?.seconds).toBe(15 * 60);
            time.now += 15 * MINUTE - 1_000;
            expect(await attempts.lockedFor('user')).toBe(1);
            time.now += 1_000;
            expect(await attempts.lockedFor('user')).toBeNull();
            // the count started again after the lock: nine more wrong factors lock nothing
            for (let attempt = 0; attempt < 9; attempt++) expect((await attempts.failed(`ticket-x-${attempt}`, 'user')).lock).toBeNull();
            expect((await attempts.failed('ticket-x-9', 'user')).lock).toEqual({ seconds: 30 * 60, level: 2 });
            time.now += 30 * MINUTE;
            expect((await lockOf())?.seconds).toBe(60 * 60);
        });
    });
}

suite('second-factor attempts in process', (clock) => Promise.resolve(createMemoryCounterStore(clock)), true);
// like describeEachDialect: without TEST_REDIS_URL no test is registered (set and unreachable fails)
if (process.env.TEST_REDIS_URL) suite('second-factor attempts in Redis', () => createRedisCounterStore(process.env.TEST_REDIS_URL!), false);
