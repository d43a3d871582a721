import { deploymentId } from '../config/deployment.js';
import type { Config } from '../config/schema.js';
import { createMemoryCounterStore, type CounterStore } from './counter-store.js';
import { createFallbackCounterStore, type FallbackReport } from './fallback-counter-store.js';
import { createDeviceVerificationThrottle } from './device-verification.js';
import { createRateLimiter } from './limiter.js';
import { createLoginGate } from './login-gate.js';
import { createMailThrottle, type MailThrottle } from './mail-throttle.js';
import { createRequestLimits, type RequestLimits } from './request-limits.js';
import { createSecondFactorAttempts } from './second-factor-attempts.js';
import { createRedisReplayGuard, type ReplayGuard, type SetIfAbsent } from './replay-guard.js';

/** Spec Limits: failed authentications per minute per source address. */
const FAILED_AUTHENTICATION_MAX = 300;

/**
 * Concurrent login attempts per account and address once one of them failed (spec Authentication
 * rule 16 leaves the threshold open): a few parallel retries of a mistyped password pass, while one
 * address cannot keep more than this many password hashes running for an account it is guessing.
 */
const LOGIN_CONCURRENCY = 10;

/**
 * Key namespace in a shared Redis: one per deployment (config/deployment.ts), so the replicas of a
 * deployment share their counters while other deployments or test runs sharing the Redis never
 * see each other's.
 */
export function deploymentPrefix(config: Config): string {
    return `realmgate:limits:${deploymentId(config)}:`;
}

/**
 * The second stage's budgets (spec Limits): the RATE_LIMIT_*_MAX keys, unless middlewareRateLimit
 * replaces all three with its `max` or lifts them (`false`: no budget is ever reached; the first
 * stage, failed authentications, is not part of it).
 */
function budgetsOf(config: Pick<Config, 'rateLimit' | 'middlewareRateLimit'>): Config['rateLimit'] {
    const setting = config.middlewareRateLimit;
    if (setting === false) return { userMax: Number.MAX_SAFE_INTEGER, clientMax: Number.MAX_SAFE_INTEGER, anonymousMax: Number.MAX_SAFE_INTEGER };
    if (setting === true || setting.max === undefined) return config.rateLimit;
    return { userMax: setting.max, clientMax: setting.max, anonymousMax: setting.max };
}

export interface LimitOptions {
    /** Redis key namespace (default: deploymentPrefix) */
    prefix?: string;
    /** the limiter's clock (tests move it instead of waiting for a window to end) */
    clock?: () => number;
    failureMax?: number;
    loginConcurrency?: number;
    /** wrong user codes per minute of all anonymous device-code entry (limits/device-verification.ts) */
    deviceAnonymousMax?: number;
    /** each counted failed authentication (the failed-authentications metric) */
    onFailure?: () => void;
}

/**
 * The counters live in Redis when REDIS_URL is set and in process otherwise (spec Limits); while
 * a configured Redis does not answer, in process (fallback-counter-store.ts) — never fail open.
 */
export async function createLimits(
    config: Config, options: LimitOptions, onStoreError: (error: unknown) => void, fallbackReport?: FallbackReport,
): Promise<RequestLimits & { mail: MailThrottle; replayGuard(database: ReplayGuard, onOutage: (error: unknown) => void): ReplayGuard }> {
    const clock = options.clock ?? Date.now;
    let store: CounterStore = createMemoryCounterStore(clock);
    let shared: SetIfAbsent | null = null;
    if (config.redisUrl) {
        // ioredis is loaded only when configured: it weighs on the boot time and memory of every other deployment
        const redis = await (await import('./redis-counter-store.js')).createRedisCounterStore(config.redisUrl);
        shared = redis;
        store = createFallbackCounterStore(redis, store, fallbackReport ?? { outage: onStoreError, recovered: () => undefined });
    }
    const prefix = options.prefix ?? deploymentPrefix(config);
    const limiter = createRateLimiter({
        store,
        prefix,
        clock,
        onStoreError,
        settings: { failureMax: options.failureMax ?? FAILED_AUTHENTICATION_MAX, ...budgetsOf(config) },
    });
    const limits = createRequestLimits(
        limiter, createLoginGate(options.loginConcurrency ?? LOGIN_CONCURRENCY, clock), createDeviceVerificationThrottle(store, prefix, clock, undefined, options.deviceAnonymousMax),
        createSecondFactorAttempts(store, prefix, clock), options.onFailure,
    );
    // the mails anonymous requests trigger, per address, in the same store (mail-throttle.ts)
    // single-use identifiers in the same Redis, the database deciding while it is away (replay-guard.ts)
    const replayGuard = (database: ReplayGuard, onOutage: (error: unknown) => void) => (shared === null ? database : createRedisReplayGuard(shared, prefix, database, onOutage));
    return { ...limits, mail: createMailThrottle(store, prefix), replayGuard };
}
