import type { Config } from '../config/schema.js';
import { deploymentId } from '../config/deployment.js';
import { createMemoryBus, type Bus } from './bus.js';

/**
 * The bus of this process: over Redis when REDIS_URL is set (API.md §6: "shared cache, bus,
 * rate-limit store"), on the deployment's own channel; in process otherwise. A set REDIS_URL that
 * cannot be reached stops the boot, as it does for the rate-limit store.
 */
export async function createBus(config: Config, report: (error: unknown, context: string) => void): Promise<Bus> {
    if (!config.redisUrl) return createMemoryBus((error) => report(error, 'bus listener failed'));
    // ioredis is loaded only when configured (limits/setup.ts does the same)
    const { createRedisBus } = await import('./redis-bus.js');
    return createRedisBus({ url: config.redisUrl, channel: `realmgate:bus:${deploymentId(config)}`, report });
}
