import { ErrorCode } from '@realmgate/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { CacheStats } from '../cache/bounded-cache.js';
import type { PoolStats } from '../db/connect.js';
import { AppError } from '../errors/app-error.js';
import { secretsEqual } from '../secrets/secret-box.js';

export interface MetricsSources {
    /** sessions neither revoked nor expired (one indexed COUNT, refreshed at most every SESSIONS_REFRESH_MS) */
    activeSessions(): Promise<number>;
    pool?: () => PoolStats;
    /** every cache's size, bound and counters (cache/registry.ts) */
    caches?: () => CacheStats[];
    /** whether the caches may answer now (wire.ts: CACHES, and a bus that hears every replica) */
    cachesEnabled?: () => boolean;
    /** whether this process hears every bus message now (bus/bus.ts `live`) */
    busLive?: () => boolean;
    /** the clock of the sessions gauge refresh (tests) */
    now?: () => number;
}

/**
 * The process's Prometheus metrics (API.md §7; DESIGN.md "Observability built in"). One
 * registry per app, so two apps in one process (tests, replicas) never share counters.
 */
export interface Metrics {
    registry: Registry;
    /** a token answered by POST /token, by grant type (the grant registry bounds the label) */
    tokenIssued(grant: string): void;
    /** a failed authentication as spec Limits counts them (limits/failed-authentication.ts) */
    failedAuthentication(): void;
    /** the onResponse hook's one call: route pattern, method, status, seconds */
    observeRequest(method: string, route: string, status: number, seconds: number): void;
    /** the exposition text; the process (default) metrics, event-loop lag included, start at the first scrape */
    render(): Promise<string>;
}

/** How stale the sessions gauge may be: one COUNT per 15 s however often it is scraped. */
const SESSIONS_REFRESH_MS = 15_000;

/** Latency buckets in seconds, from a cached token check to a slow password hash. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

export function createMetrics(sources: MetricsSources): Metrics {
    const now = sources.now ?? Date.now;
    const registry = new Registry();
    const requests = new Histogram({
        name: 'realmgate_http_request_duration_seconds',
        help: 'HTTP requests by route pattern, method and status: count and latency in seconds.',
        labelNames: ['method', 'route', 'status'] as const,
        buckets: LATENCY_BUCKETS,
        registers: [registry],
    });
    const tokens = new Counter({
        name: 'realmgate_tokens_issued_total', help: 'Token responses of POST /token, by grant type.', labelNames: ['grant'] as const, registers: [registry],
    });
    const failures = new Counter({
        name: 'realmgate_failed_authentications_total',
        help: 'Failed authentications as spec Limits counts them (wrong password or secret, a bearer this deployment did not sign).',
        registers: [registry],
    });
    let sessionsReadAt = -Infinity;
    let sessions = 0;
    new Gauge({
        name: 'realmgate_sessions_active',
        help: `Sessions neither revoked nor expired (refreshed at most every ${SESSIONS_REFRESH_MS / 1000} s).`,
        registers: [registry],
        async collect() {
            if (now() - sessionsReadAt >= SESSIONS_REFRESH_MS) {
                sessions = await sources.activeSessions();
                sessionsReadAt = now();
            }
            this.set(sessions);
        },
    });
    if (sources.pool) {
        const pool = sources.pool;
        new Gauge({
            name: 'realmgate_db_pool_connections',
            help: 'Database pool connections by state (total, idle, and requests waiting for one).',
            labelNames: ['state'] as const,
            registers: [registry],
            collect() {
                const stats = pool();
                this.set({ state: 'total' }, stats.total);
                this.set({ state: 'idle' }, stats.idle);
                this.set({ state: 'waiting' }, stats.waiting);
            },
        });
    }
    if (sources.caches) registerCacheMetrics(registry, sources.caches);
    // what an operator checks when the caches do not help: whether they may answer, and whether the
    // bus hears (a PostgreSQL bus behind a transaction pooler never does: docs/operations/caches.md)
    if (sources.cachesEnabled) registerSwitch(registry, 'realmgate_caches_enabled', '1 while the caches may answer (CACHES, and a bus that hears every replica), else 0.', sources.cachesEnabled);
    if (sources.busLive) registerSwitch(registry, 'realmgate_bus_live', '1 while this process hears every bus message (in process; Redis subscribed; PostgreSQL: its listener heard its latest probe), else 0.', sources.busLive);
    // the children by label values, so the hot path does one Map lookup instead of hashing labels
    const children = new Map<string, Histogram.Internal<'method' | 'route' | 'status'>>();
    let defaults = false;
    return {
        registry,
        tokenIssued: (grant) => tokens.inc({ grant }),
        failedAuthentication: () => failures.inc(),
        observeRequest(method, route, status, seconds) {
            const key = `${method} ${status} ${route}`;
            let child = children.get(key);
            if (!child) {
                child = requests.labels({ method, route, status: String(status) });
                children.set(key, child);
            }
            child.observe(seconds);
        },
        async render() {
            if (!defaults) {
                // process CPU, memory, handles and nodejs_eventloop_lag_seconds (perf_hooks); registered
                // on first use so apps that are never scraped (tests) start no event-loop monitor
                collectDefaultMetrics({ register: registry });
                defaults = true;
            }
            return registry.metrics();
        },
    };
}

/** A gauge of 1 or 0, read at each scrape. */
function registerSwitch(registry: Registry, name: string, help: string, on: () => boolean): void {
    new Gauge({
        name, help, registers: [registry],
        collect() {
            this.set(on() ? 1 : 0);
        },
    });
}

/**
 * No cache without a bound, and every one visible — entries and bound as gauges,
 * hits, misses, evictions and invalidations as counters, read from the registry at each scrape.
 */
function registerCacheMetrics(registry: Registry, caches: () => CacheStats[]): void {
    new Gauge({
        name: 'realmgate_cache_entries', help: 'Entries held by each in-process cache.', labelNames: ['cache'] as const, registers: [registry],
        collect() {
            for (const stats of caches()) this.set({ cache: stats.name }, stats.size);
        },
    });
    new Gauge({
        name: 'realmgate_cache_bound', help: 'The most entries each in-process cache holds (least recently used evicted beyond).', labelNames: ['cache'] as const, registers: [registry],
        collect() {
            for (const stats of caches()) this.set({ cache: stats.name }, stats.bound);
        },
    });
    const counted = [
        ['hits', 'Lookups each cache answered.'],
        ['misses', 'Lookups each cache could not answer (read from the database).'],
        ['evictions', 'Entries each cache dropped for its bound.'],
        ['invalidations', 'Invalidations each cache heard (a write here or, through the bus, on another replica).'],
    ] as const;
    for (const [field, help] of counted) {
        new Counter({
            name: `realmgate_cache_${field}_total`, help, labelNames: ['cache'] as const, registers: [registry],
            collect() {
                // the registry keeps the running totals: the counter mirrors them at each scrape
                this.reset();
                for (const stats of caches()) this.inc({ cache: stats.name }, stats[field]);
            },
        });
    }
}

/** The label of a request no route matched: raw URLs never become labels (unbounded cardinality). */
const UNMATCHED = 'unmatched';

/** Fastify's onResponse hook: one label lookup and one observation per request. */
export function registerRequestMetrics(app: FastifyInstance, metrics: Metrics): void {
    app.addHook('onResponse', (request, reply, done) => {
        metrics.observeRequest(request.method, request.routeOptions.url ?? UNMATCHED, reply.statusCode, reply.elapsedTime / 1000);
        done();
    });
}

const FORWARDING_HEADERS = ['forwarded', 'x-forwarded-for', 'x-real-ip'];
const LOOPBACK = /^(127\.|::1$|::ffff:127\.)/;

/**
 * Who may read GET /metrics (API.md §7; the choice is documented in docs/operations/health-and-metrics.md). With
 * METRICS_TOKEN set, a scraper sends `Authorization: Bearer <METRICS_TOKEN>` (compared in constant
 * time: secretsEqual compares digests). Unset, only a direct loopback peer is answered: the socket's
 * own address (never X-Forwarded-For, which a client writes), and no forwarding header, so a
 * request relayed by a reverse proxy on the same host is refused.
 */
export function assertMetricsReader(request: FastifyRequest, token: string | undefined): void {
    if (token !== undefined) {
        const header = request.headers.authorization ?? '';
        const presented = header.startsWith('Bearer ') ? header.slice(7) : '';
        if (!secretsEqual(presented, token)) {
            throw new AppError(ErrorCode.INVALID_TOKEN, 'GET /metrics needs the bearer token METRICS_TOKEN names.', { statusCode: 401 });
        }
        return;
    }
    const direct = LOOPBACK.test(request.socket.remoteAddress ?? '') && FORWARDING_HEADERS.every((name) => request.headers[name] === undefined);
    if (!direct) {
        throw new AppError(ErrorCode.PERMISSION_DENIED, 'GET /metrics answers loopback peers only unless METRICS_TOKEN is set.', { statusCode: 403 });
    }
}

export async function sendMetrics(metrics: Metrics, reply: FastifyReply): Promise<FastifyReply> {
    const text = await metrics.render();
    return reply.headers({ 'content-type': metrics.registry.contentType, 'cache-control': 'no-store' }).send(text);
}
