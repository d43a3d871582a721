import { createConnection, createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, useTestApp, type TestApp } from '../app.js';
import { describeEachDialect } from '../databases.js';
import { createClient, createUser, masterRealmId } from '../identities.js';
import { createRealm } from '../actors.js';
import { parsePrometheusText, type Family } from '../prometheus-text.js';

const get = (app: TestApp, url: string, extra: { headers?: Record<string, string>; remoteAddress?: string } = {}) =>
    app.request({ method: 'GET', url, as: null, ...extra });

function sample(family: Family | undefined, labels: Record<string, string>, suffix = ''): number | undefined {
    return family?.samples.find((entry) => entry.name === `${family.name}${suffix}` &&
        Object.entries(labels).every(([name, value]) => entry.labels[name] === value))?.value;
}

describe('the Prometheus text reader the tests use', () => {
    it('reads a well-formed exposition and refuses what the format does not allow', () => {
        const good = '# HELP a_total A.\n# TYPE a_total counter\na_total{x="1\\"q"} 3\n# TYPE h histogram\nh_bucket{le="1"} 1\nh_bucket{le="+Inf"} 2\nh_sum 0.5\nh_count 2\n';
        const families = parsePrometheusText(good);
        expect(families.get('a_total')?.samples[0]).toEqual({ name: 'a_total', labels: { x: '1"q' }, value: 3 });
        for (const bad of [
            'a 1\n', // a sample before its TYPE
            '# TYPE a gauge\na{x="1"} one\n', // not a number
            '# TYPE a gauge\na{1x="1"} 1\n', // a bad label name
            '# TYPE a gauge\na{x="1} 1\n', // an unterminated label value
            '# TYPE a gauge\na 1\na 2\n', // one series twice
            '# TYPE h histogram\nh_bucket{le="1"} 2\nh_bucket{le="+Inf"} 1\nh_count 1\n', // buckets not cumulative
            '# TYPE h histogram\nh_bucket{le="+Inf"} 2\nh_count 3\n', // +Inf and _count disagree
            '# TYPE a gauge\na 1', // no final line feed
        ]) expect(() => parsePrometheusText(bad), bad).toThrow();
    });
});

describeEachDialect('operations: /health, /health/ready, /metrics', (dialect) => {
    // a small anonymous budget: the operations routes must never spend it
    let clock = 0;
    const app = useTestApp(dialect, { rateLimit: { anonymousMax: 3 } }, { metricsClock: () => clock });

    it('answers liveness and readiness off the rate limits', async () => {
        for (let round = 0; round < 6; round++) {
            const live = await get(app, '/health');
            expect(live.statusCode).toBe(200);
            expect(live.json()).toEqual({ status: 'ok' });
            expect(live.headers['ratelimit-limit']).toBeUndefined();
            const ready = await get(app, '/health/ready');
            expect(ready.statusCode).toBe(200);
            expect(ready.json()).toEqual({ status: 'ok', checks: { database: 'ok', redis: 'unused' } });
            expect((await get(app, '/metrics')).statusCode).toBe(200);
        }
    });

    it('serves the metrics in the Prometheus text format: requests by route pattern, tokens by grant, failures, sessions, event-loop lag', async () => {
        const realm = await masterRealmId(app);
        const client = await createClient(app, realm);
        const token = await app.request({ method: 'POST', url: '/token', as: null, payload: { grant_type: 'client_credentials', client_id: client.id, client_secret: client.secret } });
        expect(token.statusCode).toBe(200);
        const user = await createUser(app, realm);
        expect((await app.request({ method: 'GET', url: `/users/${user.id}` })).statusCode).toBe(200);
        expect((await app.request({ method: 'GET', url: '/users/@me', as: app.basic(user.name, 'wrong password') })).statusCode).toBe(401);
        // the sessions gauge is read at most every 15 s: past that, this scrape counts the token's session
        clock += 60_000;

        const answer = await get(app, '/metrics');
        expect(answer.statusCode).toBe(200);
        expect(answer.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
        const families = parsePrometheusText(answer.body);
        const requests = families.get('realmgate_http_request_duration_seconds');
        expect(requests?.type).toBe('histogram');
        expect(sample(requests, { method: 'POST', route: '/token', status: '200' }, '_count')).toBeGreaterThanOrEqual(1);
        // the route pattern, never the raw URL (bounded label values)
        expect(sample(requests, { method: 'GET', route: '/users/:id', status: '200' }, '_count')).toBeGreaterThanOrEqual(1);
        expect(requests!.samples.some((entry) => entry.labels.route?.includes(user.id))).toBe(false);
        expect(sample(families.get('realmgate_tokens_issued_total'), { grant: 'client_credentials' })).toBe(1);
        expect(sample(families.get('realmgate_failed_authentications_total'), {})).toBeGreaterThanOrEqual(1);
        expect(sample(families.get('realmgate_sessions_active'), {})).toBeGreaterThanOrEqual(1);
        expect(families.get('nodejs_eventloop_lag_seconds')?.type).toBe('gauge');
        // node-postgres exposes its pool; mysql2 and SQLite do not
        expect(families.has('realmgate_db_pool_connections')).toBe(dialect === 'postgres');
        if (dialect === 'postgres') expect(sample(families.get('realmgate_db_pool_connections'), { state: 'total' })).toBeGreaterThanOrEqual(1);
        // the bus hears (in process; on PostgreSQL its listener heard its own probe), and the caches answer
        // except on MySQL without Redis, whose replicas cannot hear each other (CACHES=auto)
        expect(sample(families.get('realmgate_bus_live'), {})).toBe(1);
        expect(sample(families.get('realmgate_caches_enabled'), {})).toBe(dialect === 'mysql' ? 0 : 1);
        // the text names no secret of the client or user
        expect(answer.body).not.toContain(client.secret);
        expect(answer.body).not.toContain(user.password);
    });

    it('refuses /metrics to a remote or proxied peer when METRICS_TOKEN is unset, whatever API credentials it sends', async () => {
        const foreignRealm = await createRealm(app, `ops-${dialect}-${Date.now()}`);
        const foreign = await createUser(app, foreignRealm);
        expect((await get(app, '/metrics', { remoteAddress: '10.1.2.3' })).statusCode).toBe(403);
        expect((await get(app, '/metrics', { headers: { 'x-forwarded-for': '203.0.113.9' } })).statusCode).toBe(403);
        expect((await get(app, '/metrics', { headers: { forwarded: 'for=203.0.113.9' } })).statusCode).toBe(403);
        const withCredentials = await get(app, '/metrics', { remoteAddress: '10.1.2.3', headers: { authorization: foreign.header } });
        expect(withCredentials.statusCode).toBe(403);
        expect(withCredentials.json()).toMatchObject({ code: 'permission_denied' });
        expect((await get(app, '/metrics', { remoteAddress: '10.1.2.3', headers: { authorization: app.basic('admin', 'start123') } })).statusCode).toBe(403);
    });
});

describe('operations: configuration of /metrics, readiness without a database', () => {
    let withToken: TestApp;
    let disabled: TestApp;
    const token = 'scrape-token-0123456789abcdef';

    beforeAll(async () => {
        withToken = await startTestApp('sqlite', { metrics: { enabled: true, token } });
        disabled = await startTestApp('sqlite', { metrics: { enabled: false, token: undefined } });
    });
    afterAll(async () => {
        await withToken?.dispose();
        await disabled?.dispose();
    });

    it('with METRICS_TOKEN asks for it as a bearer token from any address', async () => {
        expect((await get(withToken, '/metrics')).statusCode).toBe(401);
        expect((await get(withToken, '/metrics', { headers: { authorization: 'Bearer wrong' } })).statusCode).toBe(401);
        expect((await get(withToken, '/metrics', { headers: { authorization: withToken.basic('admin', 'start123') } })).statusCode).toBe(401);
        const answer = await get(withToken, '/metrics', { remoteAddress: '10.1.2.3', headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': '203.0.113.9' } });
        expect(answer.statusCode).toBe(200);
        expect(parsePrometheusText(answer.body).has('realmgate_http_request_duration_seconds')).toBe(true);
    });

    it('METRICS_ENABLED=false removes the route', async () => {
        expect((await get(disabled, '/metrics')).statusCode).toBe(404);
        expect((await get(disabled, '/health')).statusCode).toBe(200);
    });

    it('answers /health/ready 503 while the database does not answer; liveness stays 200', async () => {
        const app = await startTestApp('sqlite');
        try {
            await app.database.destroy();
            const ready = await get(app, '/health/ready');
            expect(ready.statusCode).toBe(503);
            expect(ready.json()).toEqual({ status: 'unavailable', checks: { database: 'unavailable', redis: 'unused' } });
            expect((await get(app, '/health')).statusCode).toBe(200);
        } finally {
            await app.dispose();
        }
    });
});

/**
 * A TCP relay to the test Redis: the app is configured with the relay's address, and closing the
 * relay makes Redis unreachable for that app alone (the shared Redis keeps running).
 */
async function relayTo(target: string): Promise<{ url: string; close(): Promise<void> }> {
    const upstream = new URL(target);
    const sockets = new Set<Socket>();
    const server: Server = createServer((client) => {
        const backend = createConnection(Number(upstream.port || 6379), upstream.hostname);
        for (const socket of [client, backend]) {
            sockets.add(socket);
            socket.on('error', () => undefined);
            socket.on('close', () => sockets.delete(socket));
        }
        client.pipe(backend).pipe(client);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const relayed = new URL(target);
    relayed.hostname = '127.0.0.1';
    relayed.port = String((server.address() as AddressInfo).port);
    return {
        url: relayed.toString(),
        close: () => new Promise<void>((resolve) => {
            server.close(() => resolve());
            for (const socket of sockets) socket.destroy();
        }),
    };
}

// like describeEachDialect: without TEST_REDIS_URL no test is registered (set and unreachable fails)
if (process.env.TEST_REDIS_URL) describe('operations: readiness follows Redis', () => {
    it('answers /health/ready 200 while Redis answers and 503 once it is unreachable', async () => {
        const relay = await relayTo(process.env.TEST_REDIS_URL!);
        const app = await startTestApp('sqlite', { redisUrl: relay.url });
        try {
            let ready = await get(app, '/health/ready');
            expect(ready.json()).toEqual({ status: 'ok', checks: { database: 'ok', redis: 'ok' } });
            await relay.close();
            // until ioredis has seen the connection close, a ping may still be in flight: ask until it answers 503
            do ready = await get(app, '/health/ready'); while (ready.statusCode === 200);
            expect(ready.statusCode).toBe(503);
            expect(ready.json()).toEqual({ status: 'unavailable', checks: { database: 'ok', redis: 'unavailable' } });
        } finally {
            await app.dispose();
        }
    });
});
