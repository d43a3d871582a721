import type { Config } from '../config/schema.js';
import { deploymentId } from '../config/deployment.js';
import { postgresConnection, type DatabaseOptions } from '../db/connect.js';
import { createMemoryBus, type Bus } from './bus.js';

/**
 * What carries this process's bus: Redis when REDIS_URL is set (API.md §6: "shared cache, bus,
 * rate-limit store"); else PostgreSQL's own LISTEN/NOTIFY when the database is PostgreSQL
 * (DESIGN.md §4); else the process alone (SQLite, one process; MySQL without Redis, whose
 * replicas then cannot hear each other and cache nothing under CACHES=auto, wire.ts).
 */
export function busCarrier(config: Config): 'redis' | 'postgres' | 'process' {
    if (config.redisUrl) return 'redis';
    return config.db.type === 'postgres' ? 'postgres' : 'process';
}

/**
 * Where PostgreSQL's bus connects (its LISTEN connection and its NOTIFY pool): DB_BUS_URL, a
 * direct connection for a deployment whose DB_URL goes through a pooler in transaction mode, where
 * LISTEN hears nothing (docs/operations/database.md); else where the pool connects.
 */
export function busConnection(config: Config, database: DatabaseOptions): ReturnType<typeof postgresConnection> {
    return config.db.busUrl ? { connectionString: config.db.busUrl } : postgresConnection(database);
}

/**
 * The bus of this process, on the deployment's own channel. A set REDIS_URL that cannot be
 * reached stops the boot, as it does for the rate-limit store; so does a PostgreSQL database that
 * refuses the bus's LISTEN connection (`database` is where the pool connects: DB_URL or the DB_
 * parts). `report` tells of failures and of a bus that stops hearing; `recovered`, once it hears again.
 */
export async function createBus(
    config: Config,
    database: DatabaseOptions,
    report: (error: unknown, context: string) => void,
    recovered: (context: string) => void = () => undefined,
): Promise<Bus> {
    const carrier = busCarrier(config);
    if (carrier === 'redis') {
        // ioredis is loaded only when configured (limits/setup.ts does the same)
        const { createRedisBus } = await import('./redis-bus.js');
        return createRedisBus({ url: config.redisUrl!, channel: `realmgate:bus:${deploymentId(config)}`, report });
    }
    if (carrier === 'postgres') {
        // pg is the deployment's driver already; loaded here only on PostgreSQL (db/drivers.test.ts)
        const { createPostgresBus } = await import('./postgres-bus.js');
        return createPostgresBus({ connection: busConnection(config, database), channel: `realmgate_bus_${deploymentId(config)}`, report, recovered });
    }
    return createMemoryBus((error) => report(error, 'bus listener failed'));
}
