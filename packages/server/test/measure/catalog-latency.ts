/*
 * A first figure for GET /authorization with 1,000 definitions (the catalog's speed target), in process through
 * app.inject on SQLite, beside a bare Fastify route; the autocannon harness in bench/ is the real one.
 * Run: node --conditions=source --import tsx packages/server/test/measure/catalog-latency.ts
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import Fastify from 'fastify';
import { startTestApp } from '../app.js';
import { toDbBool, toDbDate } from '../../src/db/values.js';

const app = await startTestApp('sqlite');
const { db } = app.deps;
const now = toDbDate('sqlite', new Date());
const sd = (await db.selectFrom('auth_policies').select('id').where('name', '=', 'system.default').executeTakeFirstOrThrow()).id;
const realm = (await app.json<{ data: { id: string } }>({ method: 'POST', url: '/realms', payload: { name: 'bench-realm' } }, 201)).data.id;
const existing = Number((await db.selectFrom('auth_permissions').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
const rows = [];
for (let i = existing; i < 1000; i++) rows.push({ id: randomUUID(), name: `bench_${i}`, display_name: null, description: null, built_in: toDbBool('sqlite', false), decision_strategy: 'unanimous', client_id: null, realm_id: i % 2 ? realm : null, created_at: now, updated_at: now });
for (let i = 0; i < rows.length; i += 100) {
    await db.insertInto('auth_permissions').values(rows.slice(i, i + 100)).execute();
    await db.insertInto('auth_permission_policies').values(rows.slice(i, i + 100).map((r) => ({ id: randomUUID(), permission_id: r.id, policy_id: sd, created_at: now, updated_at: now }))).execute();
}
app.deps.catalog.invalidate();
const client = (await app.json<{ data: { id: string } }>({ method: 'POST', url: '/clients', payload: { name: 'rs', realmId: realm, secret: 'rs-secret' } }, 201)).data.id;
const permRead = (await db.selectFrom('auth_permissions').select('id').where('name', '=', 'permission_read').where('realm_id', 'is', null).executeTakeFirstOrThrow()).id;
const admin = await app.request({ method: 'POST', url: '/token', payload: { grant_type: 'password', username: 'admin', password: 'start123' }, as: null });
const adminToken = (admin.json() as { access_token: string }).access_token;
await app.json({ method: 'POST', url: '/client-permissions', payload: { clientId: client, permissionId: permRead, realmScope: 'ownOrNull' } }, 201);
const cc = await app.request({ method: 'POST', url: '/token', payload: { grant_type: 'client_credentials', realm_id: realm }, as: app.basic(client, 'rs-secret') });
const rsToken = (cc.json() as { access_token: string }).access_token;

async function measure(label: string, auth: string, n = 2000) {
    const probe = await app.request({ method: 'GET', url: '/authorization', as: auth });
    if (probe.statusCode !== 200) throw new Error(`${label}: ${probe.statusCode} ${probe.body}`);
    const body = probe.json() as { permissions: unknown[] };
    for (let i = 0; i < 200; i++) await app.request({ method: 'GET', url: '/authorization', as: auth });
    const times: number[] = [];
    const start = performance.now();
    for (let i = 0; i < n; i++) {
        const t = performance.now();
        await app.request({ method: 'GET', url: '/authorization', as: auth });
        times.push(performance.now() - t);
    }
    const total = performance.now() - start;
    times.sort((a, b) => a - b);
    const q = (p: number) => times[Math.min(times.length - 1, Math.floor(p * times.length))]!.toFixed(3);
    console.log(`${label}: definitions=${body.permissions.length} bytes=${probe.body.length} p50=${q(0.5)}ms p99=${q(0.99)}ms req/s=${(n / total * 1000).toFixed(0)}`);
}
const bare = Fastify();
bare.get('/bare', async () => ({ ok: true }));
{
    const times: number[] = [];
    for (let i = 0; i < 2000; i++) { const t = performance.now(); await bare.inject({ method: 'GET', url: '/bare' }); times.push(performance.now() - t); }
    times.sort((a, b) => a - b);
    console.log(`bare route: p50=${times[1000]!.toFixed(3)}ms p99=${times[1980]!.toFixed(3)}ms`);
}
await measure('admin bearer (reach any, whole catalog)', `Bearer ${adminToken}`);
await measure('resource-server bearer (ownOrNull, narrowed)', `Bearer ${rsToken}`);
await app.dispose();
