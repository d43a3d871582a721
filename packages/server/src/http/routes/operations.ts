import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { contract } from '../contracts/route-contract.js';
import type { AppDeps } from '../deps.js';
import { OFF_LIMITS } from '../limits-plugin.js';
import { assertMetricsReader, sendMetrics } from '../metrics.js';
import { pingDatabase } from '../../storage/operations.js';

/** A readiness check that does not answer within this long counts as unreachable. */
const CHECK_TIMEOUT_MS = 2_000;

async function withinTimeout(check: () => Promise<boolean>): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), CHECK_TIMEOUT_MS);
        timer.unref();
    });
    try {
        return await Promise.race([check().catch(() => false), timeout]);
    } finally {
        clearTimeout(timer);
    }
}

const CheckState = Type.Union([Type.Literal('ok'), Type.Literal('unavailable'), Type.Literal('unused')]);
const Readiness = (description: string) => Type.Object({
    status: Type.Union([Type.Literal('ok'), Type.Literal('unavailable')]),
    checks: Type.Object({ database: CheckState, redis: CheckState }),
    /** present while the replica drains before it stops (SIGTERM, runtime/graceful-shutdown.ts) */
    draining: Type.Optional(Type.Literal(true)),
}, { description });
const NO_STORE = { 'cache-control': 'no-store' };

/**
 * The operations routes (API.md §7): liveness, readiness and the Prometheus
 * metrics, off the limits (OFF_LIMITS). Liveness answers while the process serves requests at
 * all; readiness asks the database and, when REDIS_URL is set, Redis — a replica that cannot
 * reach them should leave the load balancer, not be restarted.
 */
export function registerOperationsRoutes(app: FastifyInstance, deps: AppDeps): void {
    app.get('/health', contract({
        auth: 'none', tags: ['operations'], summary: 'Liveness: the process answers', config: OFF_LIMITS,
        response: { 200: Type.Object({ status: Type.Literal('ok') }, { description: 'The process serves requests.' }) },
    }), async (_request, reply) => reply.headers(NO_STORE).send({ status: 'ok' }));

    app.get('/health/ready', contract({
        auth: 'none', tags: ['operations'], summary: 'Readiness: the database and Redis answer', config: OFF_LIMITS,
        description: '503 while the database, or Redis when `REDIS_URL` is set, does not answer within two seconds, and from the moment the process received SIGTERM (`draining: true`; it still serves requests for `SHUTDOWN_DRAIN_MS`).',
        response: { 200: Readiness('Every dependency answers.'), 503: Readiness('A dependency does not answer.') },
    }), async (_request, reply) => {
        // a draining replica is leaving whatever its dependencies say: answered at once, so the
        // balancer's check sees it even when the replica is busy
        if (deps.lifecycle.draining) {
            return reply.status(503).headers(NO_STORE).send({ status: 'unavailable', checks: { database: 'unused', redis: 'unused' }, draining: true });
        }
        const [database, redis] = await Promise.all([
            withinTimeout(async () => { await pingDatabase(deps.db); return true; }),
            deps.config.redisUrl ? withinTimeout(() => deps.limits.storeReachable()) : Promise.resolve(null),
        ]);
        const checks = { database: database ? 'ok' : 'unavailable', redis: redis === null ? 'unused' : redis ? 'ok' : 'unavailable' };
        const ready = database && redis !== false;
        return reply.status(ready ? 200 : 503).headers(NO_STORE).send({ status: ready ? 'ok' : 'unavailable', checks });
    });

    if (!deps.config.metrics.enabled) return;
    app.get('/metrics', contract({
        auth: 'none', tags: ['operations'], summary: 'Prometheus metrics (text exposition format 0.0.4)', config: OFF_LIMITS,
        description: 'With `METRICS_TOKEN` set, send `Authorization: Bearer <METRICS_TOKEN>`; unset, only a direct loopback peer without forwarding headers is answered. `METRICS_ENABLED=false` removes the route.',
        errors: [401, 403],
        response: { 200: Type.String({ description: 'text/plain; version=0.0.4: request counts and latency by route and status, tokens issued by grant, failed authentications, active sessions, database pool, caches and whether they may answer, whether the bus hears, event-loop lag and process metrics.' }) },
    }), async (request, reply) => {
        assertMetricsReader(request, deps.config.metrics.token);
        return sendMetrics(deps.metrics, reply);
    });
}
