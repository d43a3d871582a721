import { Redis } from 'ioredis';
import type { CounterStore } from './counter-store.js';
import type { SetIfAbsent } from './replay-guard.js';

/**
 * INCR and PEXPIRE are one atomic step (a script), so a counter never outlives its window even
 * when a process dies between them; the watched key is read in the same round trip.
 */
const INCREMENT_AND_READ = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local watched = 0
if KEYS[2] then watched = tonumber(redis.call('GET', KEYS[2]) or '0') end
return { count, watched }
`;

type ScriptedRedis = Redis & {
    limitIncrement(...args: (string | number)[]): Promise<[number, number]>;
};

/**
 * The shared store (REDIS_URL set): every replica counts in the same keys. A command fails fast
 * instead of waiting in ioredis's offline queue, so an unreachable Redis delays no request for long.
 */
export async function createRedisCounterStore(url: string): Promise<CounterStore & SetIfAbsent> {
    const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1, enableOfflineQueue: false }) as ScriptedRedis;
    // connection errors are retried by ioredis and never thrown at a request; the outage is
    // reported once by the fallback store that counts in process meanwhile, not per retry
    redis.on('error', () => undefined);
    redis.defineCommand('limitIncrement', { lua: INCREMENT_AND_READ });
    // a set REDIS_URL that cannot be reached stops the boot rather than silently not limiting
    try {
        await redis.connect();
    } catch (error) {
        // no reconnect loop may keep a failed boot alive
        redis.disconnect();
        throw new Error(`REDIS_URL: the rate-limit store cannot be reached (${(error as Error).message})`);
    }
    return {
        async incrementAndRead(key, watched, ttlMs) {
            const ttl = Math.max(1, Math.ceil(ttlMs));
            const [count, other] = watched === null ?
                await redis.limitIncrement(1, key, ttl) :
                await redis.limitIncrement(2, key, watched, ttl);
            return [Number(count), Number(other)];
        },
        async read(key) {
            return Number(await redis.get(key) ?? 0);
        },
        async put(key, value, ttlMs) {
            await redis.set(key, String(value), 'PX', Math.max(1, Math.ceil(ttlMs)));
        },
        async setIfAbsent(key, ttlMs) {
            return await redis.set(key, '1', 'PX', Math.max(1, Math.ceil(ttlMs)), 'NX') === 'OK';
        },
        async reachable() {
            // the offline queue is off, so a disconnected client fails at once instead of waiting
            return redis.ping().then(() => true, () => false);
        },
        async close() {
            await redis.quit().catch(() => redis.disconnect());
        },
    };
}
