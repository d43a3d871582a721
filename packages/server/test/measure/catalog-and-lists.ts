/*
 * Figures for the catalog's ETag and 304 and for lists with an exact total, in process through app.inject: CPU time of this process per request
 * (user + system, steadier than wall time on a shared machine) and SQL statements per request for
 * GET /authorization with 1,000 definitions (200, and the 304 of a revalidation) and for
 * GET /users?page[limit]=50 with an exact total over 1,000 users, beside a bare Fastify GET.
 *
 *   node --conditions=source --import tsx packages/server/test/measure/catalog-and-lists.ts [sqlite|postgres|mysql] [iterations]
 *
 * postgres / mysql need TEST_POSTGRES_URL / TEST_MYSQL_URL.
 */
import { randomUUID } from 'node:crypto';
import Fastify from 'fastify';
import type { CompiledQuery } from 'kysely';
import { startTestApp } from '../app.js';
import { toDbBool, toDbDate, type DialectName } from '../../src/db/values.js';

const dialect = (process.argv[2] ?? 'sqlite') as DialectName;
const iterations = Number(process.argv[3] ?? 2000);
const app = await startTestApp(dialect, { rateLimit: { userMax: 10_000_000, clientMax: 10_000_000, anonymousMax: 10_000_000 } });
const { db } = app.deps;
const statements: string[] = [];
let recording = false;
const executor = Object.getPrototypeOf(Object.getPrototypeOf(db.getExecutor())) as { executeQuery: (query: CompiledQuery, id: unknown) => Promise<unknown> };
const execute = executor.executeQuery;
executor.executeQuery = function (this: unknown, query: CompiledQuery, id: unknown) {
    if (recording) statements.push(query.sql.replace(/\s+/g, ' ').slice(0, 120));
    return execute.call(this, query, id);
};

const now = toDbDate(dialect, new Date());
const sd = (await db.selectFrom('auth_policies').select('id').where('name', '=', 'system.default').executeTakeFirstOrThrow()).id;
const realm = (await app.json<{ data: { id: string } }>({ method: 'POST', url: '/realms', payload: { name: 'bench-realm' } }, 201)).data.id;
const existing = Number((await db.selectFrom('auth_permissions').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
const permissions = [];
for (let i = existing; i < 1000; i++) permissions.push({ id: randomUUID(), name: `bench_${i}`, display_name: null, description: null, built_in: toDbBool(dialect, false), decision_strategy: 'unanimous', client_id: null, realm_id: i % 2 ? realm : null, created_at: now, updated_at: now });
for (let i = 0; i < permissions.length; i += 100) {
    await db.insertInto('auth_permissions').values(permissions.slice(i, i + 100)).execute();
    await db.insertInto('auth_permission_policies').values(permissions.slice(i, i + 100).map((r) => ({ id: randomUUID(), permission_id: r.id, policy_id: sd, created_at: now, updated_at: now }))).execute();
}
const users = Array.from({ length: 1000 }, (_, i) => ({
    id: randomUUID(), name: `user-${String(i).padStart(4, '0')}`, name_locked: toDbBool(dialect, true), first_name: null, last_name: null, display_name: null, email: null,
    password: null, reset_hash: null, reset_at: null, activate_hash: null, email_verified: toDbBool(dialect, false), active: toDbBool(dialect, true), status: null,
    status_message: null, path_id: null, realm_id: realm, created_at: now, updated_at: now,
}));
for (let i = 0; i < users.length; i += 100) await db.insertInto('auth_users').values(users.slice(i, i + 100)).execute();
app.deps.catalog.invalidate();
const client = (await app.json<{ data: { id: string } }>({ method: 'POST', url: '/clients', payload: { name: 'rs', realmId: realm, secret: 'rs-secret' } }, 201)).data.id;
const permRead = (await db.selectFrom('auth_permissions').select('id').where('name', '=', 'permission_read').where('realm_id', 'is', null).executeTakeFirstOrThrow()).id;
const admin = await app.request({ method: 'POST', url: '/token', payload: { grant_type: 'password', username: 'admin', password: 'start123' }, as: null });
const adminBearer = `Bearer ${(admin.json() as { access_token: string }).access_token}`;
await app.json({ method: 'POST', url: '/client-permissions', payload: { clientId: client, permissionId: permRead, realmScope: 'ownOrNull' } }, 201);
const cc = await app.request({ method: 'POST', url: '/token', payload: { grant_type: 'client_credentials', realm_id: realm }, as: app.basic(client, 'rs-secret') });
const rsBearer = `Bearer ${(cc.json() as { access_token: string }).access_token}`;

async function measure(label: string, send: () => Promise<{ statusCode: number; body: string }>, status = 200): Promise<void> {
    const first = await send();
    if (first.statusCode !== status) {
        console.log(`${label}: answered ${first.statusCode}, not ${status} (skipped)`);
        return;
    }
    for (let i = 0; i < 200; i++) await send();
    statements.length = 0;
    recording = true;
    await send();
    recording = false;
    const sql = [...statements];
    const cpuStart = process.cpuUsage();
    for (let i = 0; i < iterations; i++) await send();
    const cpu = process.cpuUsage(cpuStart);
    console.log(`${label}: ${((cpu.user + cpu.system) / iterations).toFixed(0)} µs CPU/request, ${sql.length} statements, ${first.body.length} bytes`);
    for (const line of sql) console.log(`    ${line}`);
}

const bare = Fastify();
bare.get('/bare', async () => ({ ok: true }));
await measure('bare Fastify GET', () => bare.inject({ method: 'GET', url: '/bare' }));
const catalog = (as: string, headers: Record<string, string> = {}) => () => app.request({ method: 'GET', url: '/authorization', headers, as });
for (const [label, as] of [['admin bearer (whole catalog)', adminBearer], ['resource-server bearer (ownOrNull, narrowed)', rsBearer]] as const) {
    await measure(`GET /authorization, ${label}, 200`, catalog(as));
    const etag = (await app.request({ method: 'GET', url: '/authorization', as })).headers.etag;
    if (typeof etag === 'string') await measure(`GET /authorization, ${label}, If-None-Match → 304`, catalog(as, { 'if-none-match': etag }), 304);
    else console.log(`GET /authorization, ${label}: no ETag (304 path absent)`);
}
await measure('GET /realms/:id/users?page[limit]=50 (total 1,000), admin bearer', () => app.request({ method: 'GET', url: `/realms/${realm}/users?page[limit]=50&page[offset]=100`, as: adminBearer }));
await measure('GET /users?page[limit]=50 (total 1,001), admin bearer', () => app.request({ method: 'GET', url: '/users?page[limit]=50', as: adminBearer }));
await app.dispose();
