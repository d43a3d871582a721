/*
 * Where the time of the hot protocol paths goes (profiled to cut database round trips): client_credentials
 * with a plain, encrypted and hashed secret, authorization_code redemption, refresh rotation,
 * introspection of a token whose user holds 50 grants, a bearer GET /users/@me and GET /userinfo,
 * in-process through app.inject. Prints per request the CPU time, the SQL statements it sends (its
 * database round trips: a statement is one round trip on every driver) and the time awaiting each.
 * The wall-clock figure is meaningless on a shared machine; CPU and statement counts are not.
 *
 *   node --conditions=source --import tsx packages/server/test/measure/hot-paths.ts [iterations] [sqlite|postgres|mysql]
 *
 * postgres and mysql need TEST_POSTGRES_URL / TEST_MYSQL_URL (test/databases.ts). With TEST_REDIS_URL
 * the app shares its bus over Redis, as a replicated deployment does: the caches are on (CACHES=auto;
 * docs/operations/caches.md); without it, PostgreSQL and MySQL cache nothing unless CACHES=on is exported.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { CompiledQuery } from 'kysely';
import type { DialectName } from '../../src/db/values.js';
import { startTestApp, type TestApp } from '../app.js';

const iterations = Number(process.argv[2] ?? 2000);
const dialect = (process.argv[3] ?? 'sqlite') as DialectName;
// budgets far above the loop's request count: the figures are about the work, not the limiter
const app = await startTestApp(dialect, {
    ...(process.env.TEST_REDIS_URL ? { redisUrl: process.env.TEST_REDIS_URL } : {}),
    ...(process.env.CACHES === 'on' || process.env.CACHES === 'off' ? { caches: process.env.CACHES } : {}), rateLimit: { userMax: 10_000_000, clientMax: 10_000_000, anonymousMax: 10_000_000 } });
const statements: string[] = [];
let recording = false;
/** time spent awaiting each statement during the timed loop, by SQL text */
const spent = new Map<string, number>();
let timing = false;
// every executor (transactions and plugins derive new ones) shares this prototype method
const executor = Object.getPrototypeOf(Object.getPrototypeOf(app.deps.db.getExecutor())) as { executeQuery: (query: CompiledQuery, id: unknown) => Promise<unknown> };
const execute = executor.executeQuery;
executor.executeQuery = function (this: unknown, query: CompiledQuery, id: unknown) {
    const text = query.sql.replace(/\s+/g, ' ').slice(0, 160);
    if (recording) statements.push(text);
    if (!timing) return execute.call(this, query, id);
    const start = process.hrtime.bigint();
    return execute.call(this, query, id).finally(() => spent.set(text, (spent.get(text) ?? 0) + Number(process.hrtime.bigint() - start) / 1e3));
};

async function create(path: string, payload: Record<string, unknown>): Promise<string> {
    return (await app.json<{ data: { id: string } }>({ method: 'POST', url: path, payload }, 201)).data.id;
}

/** `MEASURE_ONLY=client_credentials,redemption` keeps the scenarios whose label contains one of the words */
const only = process.env.MEASURE_ONLY?.split(',').filter(Boolean);

async function measure(label: string, send: () => Promise<{ statusCode: number; body: string }>, appWith: TestApp = app): Promise<void> {
    void appWith;
    if (only && !only.some((word) => label.includes(word))) return;
    const first = await send();
    if (first.statusCode !== 200) throw new Error(`${label}: ${first.statusCode} ${first.body}`);
    for (let i = 0; i < 200; i++) await send();
    statements.length = 0;
    recording = true;
    await send();
    recording = false;
    const sql = [...statements];
    spent.clear();
    timing = true;
    const start = process.hrtime.bigint();
    const cpuStart = process.cpuUsage();
    for (let i = 0; i < iterations; i++) await send();
    const micros = Number(process.hrtime.bigint() - start) / 1e3 / iterations;
    // CPU time of this process (user + system): far steadier than wall time on a shared machine
    const cpu = process.cpuUsage(cpuStart);
    const cpuMicros = (cpu.user + cpu.system) / iterations;
    timing = false;
    console.log(`${label} [${dialect}]: ${micros.toFixed(0)} µs/request (${cpuMicros.toFixed(0)} µs CPU), ${sql.length} statements`);
    for (const line of sql) console.log(`  ${((spent.get(line) ?? 0) / iterations).toFixed(0).padStart(4)} µs  ${line}`);
}

try {
    const realmId = await create('/realms', { name: 'hot' });
    const clients: Record<string, string> = {};
    for (const [name, mode] of [['plain', {}], ['encrypted', { secretEncrypted: true }], ['hashed', { secretHashed: true }]] as const) {
        const secret = randomBytes(32).toString('base64url');
        const id = await create('/clients', { realmId, name, secret, ...mode });
        clients[name] = `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
    }
    const password = randomBytes(16).toString('hex');
    await create('/users', { realmId, name: 'hot-user', password });
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const cc = (client: string) => () => app.request({ method: 'POST', url: '/token', headers: { ...form, authorization: clients[client]! }, payload: 'grant_type=client_credentials&realm_name=hot', as: clients[client]! });
    for (const client of ['plain', 'encrypted', 'hashed']) await measure(`client_credentials ${client}`, cc(client));
    const login = await app.request({ method: 'POST', url: '/token', headers: form, payload: `grant_type=password&realm_name=hot&username=hot-user&password=${password}`, as: null });
    const token = (login.json() as { access_token: string }).access_token;
    // bench/lib/seed.ts's user: 50 grants through one role (user_read and 49 realm definitions)
    const roleId = await create('/roles', { realmId, name: 'hot-role' });
    const userRead = (await app.json<{ data: { id: string }[] }>({ method: 'GET', url: '/permissions?filter[name]=user_read' }, 200)).data[0]!.id;
    const granted = [userRead];
    for (let i = 0; i < 49; i++) granted.push(await create('/permissions', { realmId, name: `hot_resource_${i}` }));
    for (const permissionId of granted) await create('/role-permissions', { roleId, permissionId, realmScope: 'own' });
    const grantedPassword = randomBytes(16).toString('hex');
    const grantedUser = await create('/users', { realmId, name: 'hot-granted', password: grantedPassword, email: 'granted@hot.example' });
    await create('/user-roles', { userId: grantedUser, roleId });
    const grantedLogin = await app.request({ method: 'POST', url: '/token', headers: form, payload: `grant_type=password&realm_name=hot&username=hot-granted&password=${grantedPassword}&scope=openid%20profile%20email`, as: null });
    const grantedTokens = grantedLogin.json() as { access_token: string; refresh_token: string };
    await measure('introspection, 50 grants', () => app.request({ method: 'POST', url: '/token/introspect', headers: form, payload: `token=${grantedTokens.access_token}`, as: clients.plain! }));
    await measure('GET /users/@me', () => app.request({ method: 'GET', url: '/users/@me', as: `Bearer ${token}` }));
    await measure('GET /users/@me, 50 grants', () => app.request({ method: 'GET', url: '/users/@me', as: `Bearer ${grantedTokens.access_token}` }));
    // refresh rotation: every answer carries the next refresh token (RFC 6749 §6, rotation)
    let refreshToken = grantedTokens.refresh_token;
    await measure('refresh rotation', async () => {
        const response = await app.request({ method: 'POST', url: '/token', headers: form, as: null, payload: `grant_type=refresh_token&realm_name=hot&refresh_token=${refreshToken}` });
        if (response.statusCode === 200) refreshToken = (response.json() as { refresh_token: string }).refresh_token;
        return response;
    });
    // authorization_code redemption (public client, PKCE S256, access + refresh + ID token),
    // codes minted beforehand through POST /authorize, the API form
    const redirectUri = 'https://spa.hot.example/cb';
    const userBearer = `Bearer ${token}`;
    const verifier = randomBytes(32).toString('base64url');
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    // the default RS256 ID token and a client that registered ES256 (OIDC Registration §2)
    for (const alg of ['RS256', 'ES256']) {
        const spa = await create('/clients', { realmId, name: `spa-${alg}`, redirectUri, ...(alg === 'ES256' ? { idTokenSignedResponseAlg: alg } : {}) });
        const codes: string[] = [];
        for (let i = 0; i < iterations + 210; i++) {
            const minted = await app.request({
                method: 'POST', url: '/authorize', as: userBearer, payload: {
                    response_type: 'code', client_id: spa, redirect_uri: redirectUri, scope: 'openid profile email',
                    nonce: `n${i}`, code_challenge: challenge, code_challenge_method: 'S256',
                },
            });
            codes.push((minted.json() as { code: string }).code);
        }
        if (alg === 'RS256') {
            // userinfo (OIDC Core §5.3) with an access token of the code flow: scope openid profile email
            const redeemed = await app.request({
                method: 'POST', url: '/token', headers: form, as: null,
                payload: new URLSearchParams({ grant_type: 'authorization_code', client_id: spa, redirect_uri: redirectUri, code: codes.pop()!, code_verifier: verifier }).toString(),
            });
            const openidToken = (redeemed.json() as { access_token: string }).access_token;
            await measure('GET /userinfo', () => app.request({ method: 'GET', url: '/userinfo', as: `Bearer ${openidToken}` }));
        }
        await measure(`authorization_code redemption, ${alg} ID token`, () => app.request({
            method: 'POST', url: '/token', headers: form, as: null,
            payload: new URLSearchParams({ grant_type: 'authorization_code', client_id: spa, redirect_uri: redirectUri, code: codes.pop()!, code_verifier: verifier }).toString(),
        }));
    }
} finally {
    await app.dispose();
}
