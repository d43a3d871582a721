import { decodeProtectedHeader } from 'jose';
import { sql } from 'kysely';
import { io as connect } from 'socket.io-client';
import { beforeAll, expect, it } from 'vitest';
import { basicHeader } from '../app.js';
import type { ServerProcess } from '../server-process.js';
import { describeEachDialect } from '../databases.js';
import type { DialectName } from '../../src/db/values.js';
import { useReplicas } from '../replicas.js';

/**
 * The buses the suites run over: one Redis when TEST_REDIS_URL is set, and none — then PostgreSQL
 * replicas hear each other through LISTEN/NOTIFY and MySQL replicas not at all (they cache
 * nothing). MySQL without Redis is the run without TEST_REDIS_URL; with it, only PostgreSQL runs
 * both ways.
 */
const BUSES: ReadonlyArray<{ redis: boolean; dialects: DialectName[] }> = process.env.TEST_REDIS_URL
    ? [{ redis: true, dialects: ['postgres', 'mysql'] }, { redis: false, dialects: ['postgres'] }]
    : [{ redis: false, dialects: ['postgres', 'mysql'] }];

/**
 * Two server processes on one database: what one replica revokes, the other refuses on the very
 * next request — no cache answers for a revoked session (spec States).
 */
for (const { redis, dialects } of BUSES) describeEachDialect(`two replicas on one database ${redis ? 'and one Redis' : 'without Redis'}`, (dialect) => {
    const replicas = useReplicas(dialect, { redis });
    /** whether the replicas hear each other: a bus over Redis or PostgreSQL, none for MySQL alone */
    const sharedBus = redis || dialect === 'postgres';
    const { admin, call, post } = replicas;

    it('a token revoked on one replica answers 401 on the other on the very next request', async () => {
        const created = await call(replicas.a, '/clients', {
            method: 'POST', headers: { authorization: admin, 'content-type': 'application/json' },
            body: JSON.stringify({ name: 'replicated', secret: 'replicated-secret' }),
        });
        expect(created.status).toBe(201);
        const client = (await created.json() as { data: { id: string } }).data;
        const credentials = basicHeader(client.id, 'replicated-secret');

        const issued = await post(replicas.a, '/token', { grant_type: 'client_credentials' }, credentials);
        expect(issued.status).toBe(200);
        const { access_token: token } = await issued.json() as { access_token: string };
        const bearer = { authorization: `Bearer ${token}` };
        for (const replica of [replicas.a, replicas.b]) expect((await call(replica, '/clients/@me', { headers: bearer })).status).toBe(200);

        expect((await post(replicas.a, '/token/revoke', { token }, credentials)).status).toBe(200);
        expect((await call(replicas.b, '/clients/@me', { headers: bearer })).status).toBe(401);
        expect((await call(replicas.a, '/clients/@me', { headers: bearer })).status).toBe(401);
    });

    it('a refresh token rotated on one replica is a replay on the other, which ends the session everywhere', async () => {
        const user = await call(replicas.b, '/users', {
            method: 'POST', headers: { authorization: admin, 'content-type': 'application/json' },
            body: JSON.stringify({ name: 'replicated-user', password: 'user-password' }),
        });
        expect(user.status).toBe(201);
        const login = await post(replicas.a, '/token', { grant_type: 'password', username: 'replicated-user', password: 'user-password' });
        expect(login.status).toBe(200);
        const first = await login.json() as { access_token: string; refresh_token: string };
        const rotated = await post(replicas.b, '/token', { grant_type: 'refresh_token', refresh_token: first.refresh_token });
        expect(rotated.status).toBe(200);
        const second = await rotated.json() as { access_token: string };
        expect((await call(replicas.a, '/users/@me', { headers: { authorization: `Bearer ${second.access_token}` } })).status).toBe(200);

        const replay = await post(replicas.a, '/token', { grant_type: 'refresh_token', refresh_token: first.refresh_token });
        expect(replay.status).toBe(400);
        expect(await replay.json()).toMatchObject({ error: 'invalid_grant' });
        for (const replica of [replicas.b, replicas.a]) {
            expect((await call(replica, '/users/@me', { headers: { authorization: `Bearer ${second.access_token}` } })).status).toBe(401);
        }
    });

    /* Every state change made through one replica holds on the other on the next request. */
    let realm: { id: string; name: string };
    beforeAll(async () => {
        realm = (await replicas.json<{ data: { id: string; name: string } }>(replicas.a, 'POST', '/realms', { name: 'replicated-realm' }, 201)).data;
    });
    const createUser = async (name: string) =>
        (await replicas.json<{ data: { id: string } }>(replicas.b, 'POST', '/users', { name, password: 'user-password', realmId: realm.id }, 201)).data;
    type Tokens = { access_token: string; refresh_token: string };
    const login = async (replica: ServerProcess, name: string, password = 'user-password'): Promise<Tokens> => {
        const response = await post(replica, '/token', { grant_type: 'password', username: name, password, realm_id: realm.id });
        expect(response.status, await response.clone().text()).toBe(200);
        return await response.json() as Tokens;
    };
    const me = async (replica: ServerProcess, token: string) => (await call(replica, '/users/@me', { headers: { authorization: `Bearer ${token}` } })).status;
    const active = async (replica: ServerProcess, token: string) =>
        (await (await post(replica, '/token/introspect', { token }, admin)).json() as { active: boolean }).active;
    /** the token works on both replicas (each has verified, and may remember, it) */
    const warm = async (token: string) => {
        for (const replica of [replicas.a, replicas.b]) expect(await me(replica, token)).toBe(200);
    };

    it("a key deleted on one replica ends its tokens on the other, and the other signs with a new key", async () => {
        await createUser('replicated-keyholder');
        const tokens = await login(replicas.b, 'replicated-keyholder');
        await warm(tokens.access_token);
        const { kid } = decodeProtectedHeader(tokens.access_token);
        await replicas.json(replicas.a, 'DELETE', `/keys/${kid}?force=true`, undefined, 200);
        expect(await me(replicas.b, tokens.access_token)).toBe(401);
        expect(await active(replicas.b, tokens.access_token)).toBe(false);
        expect((await post(replicas.b, '/token', { grant_type: 'refresh_token', refresh_token: tokens.refresh_token })).status).toBe(400);
        const renewed = await login(replicas.b, 'replicated-keyholder');
        expect(decodeProtectedHeader(renewed.access_token).kid).not.toBe(kid);
        await warm(renewed.access_token);
        // and the deleted kid stays dead on the replica that did not delete it (tombstones)
        expect((await replicas.call(replicas.b, `/keys/${kid}`, {
            method: 'PUT', headers: { authorization: admin, 'content-type': 'application/json' }, body: JSON.stringify({ realmId: realm.id }),
        })).status).toBe(409);
    });

    it('a user deactivated on one replica is refused on the other', async () => {
        const user = await createUser('replicated-leaver');
        const tokens = await login(replicas.a, 'replicated-leaver');
        await warm(tokens.access_token);
        await replicas.json(replicas.a, 'POST', `/users/${user.id}`, { active: false }, 200);
        expect(await me(replicas.b, tokens.access_token)).toBe(401);
        expect(await active(replicas.b, tokens.access_token)).toBe(false);
        expect((await post(replicas.b, '/token', { grant_type: 'refresh_token', refresh_token: tokens.refresh_token })).status).toBe(400);
        expect((await post(replicas.b, '/token', { grant_type: 'password', username: 'replicated-leaver', password: 'user-password', realm_id: realm.id })).status).toBe(400);
    });

    it("a password reset or change on one replica ends the user's other sessions on the other", async () => {
        const user = await createUser('replicated-resetter');
        const first = await login(replicas.a, 'replicated-resetter');
        await warm(first.access_token);
        // an administrator's reset ends every session
        await replicas.json(replicas.a, 'POST', `/users/${user.id}`, { password: 'reset-password' }, 200);
        expect(await me(replicas.b, first.access_token)).toBe(401);
        expect(await me(replicas.a, first.access_token)).toBe(401);

        // the user's own change (with the current password, through user_self_manage) keeps the request's session only
        const selfManage = (await replicas.json<{ data: { id: string } }>(replicas.a, 'GET', '/permissions/user_self_manage', undefined, 200)).data;
        await replicas.json(replicas.a, 'POST', '/user-permissions', { userId: user.id, permissionId: selfManage.id, realmScope: 'own' }, 201);
        const current = await login(replicas.b, 'replicated-resetter', 'reset-password');
        const other = await login(replicas.b, 'replicated-resetter', 'reset-password');
        await warm(current.access_token);
        await warm(other.access_token);
        const changed = await call(replicas.a, '/users/@me/password', {
            method: 'POST', headers: { authorization: `Bearer ${current.access_token}`, 'content-type': 'application/json' },
            body: JSON.stringify({ currentPassword: 'reset-password', password: 'changed-password' }),
        });
        expect(changed.status, await changed.text()).toBe(200);
        expect(await me(replicas.b, other.access_token)).toBe(401);
        expect(await me(replicas.b, current.access_token)).toBe(200);
        expect((await post(replicas.b, '/token', { grant_type: 'refresh_token', refresh_token: other.refresh_token })).status).toBe(400);
        await login(replicas.b, 'replicated-resetter', 'changed-password');
    });

    /*
     * Every cache (active signing keys, grants, realms, clients that authenticated) is
     * warmed on replica B, the change is made through replica A, and B's very next request sees it.
     * With a shared bus (Redis, or PostgreSQL's LISTEN/NOTIFY) the write answers only after B emptied
     * its caches; MySQL replicas without Redis cache nothing (CACHES=auto), and these hold as well.
     */
    const issueTo = (replica: ServerProcess, header: string) => post(replica, '/token', { grant_type: 'client_credentials', realm_id: realm.id }, header);
    const cachedClient = async (name: string) => {
        const created = await replicas.json<{ data: { id: string } }>(replicas.a, 'POST', '/clients', { name, secret: `${name}-secret`, realmId: realm.id }, 201);
        const header = basicHeader(created.data.id, `${name}-secret`);
        // twice on each replica: authenticated, then remembered
        for (const replica of [replicas.a, replicas.b, replicas.b]) expect((await issueTo(replica, header)).status).toBe(200);
        return { id: created.data.id, header };
    };

    it("a client's scope binding made default on one replica sets the other's next token's scope; removed, it is gone there too", async () => {
        const client = await cachedClient('replicated-scoped');
        const scopeOn = async (replica: ServerProcess) => {
            const answer = await issueTo(replica, client.header);
            expect(answer.status).toBe(200);
            return (await answer.json() as { scope: string }).scope;
        };
        expect(await scopeOn(replicas.b)).toBe('global');
        const scope = await replicas.json<{ data: { id: string } }>(replicas.a, 'POST', '/scopes', { name: 'replicated-reports', realmId: realm.id }, 201);
        const binding = await replicas.json<{ data: { id: string } }>(replicas.a, 'POST', '/client-scopes', { clientId: client.id, scopeId: scope.data.id, default: true }, 201);
        expect(await scopeOn(replicas.b)).toBe('replicated-reports');
        await replicas.json(replicas.a, 'DELETE', `/client-scopes/${binding.data.id}`, undefined, 200);
        expect(await scopeOn(replicas.b)).toBe('global');
    });

    it('a key disabled on one replica never signs on the other, and its tokens are refused there', async () => {
        const client = await cachedClient('replicated-signer');
        const issued = await (await issueTo(replicas.b, client.header)).json() as { access_token: string };
        const { kid } = decodeProtectedHeader(issued.access_token);
        expect((await call(replicas.b, '/clients/@me', { headers: { authorization: `Bearer ${issued.access_token}` } })).status).toBe(200);
        await replicas.json(replicas.a, 'POST', `/keys/${kid}`, { status: 'disabled' }, 200);
        expect((await call(replicas.b, '/clients/@me', { headers: { authorization: `Bearer ${issued.access_token}` } })).status).toBe(401);
        const next = await issueTo(replicas.b, client.header);
        expect(next.status).toBe(200);
        const renewed = (await next.json() as { access_token: string }).access_token;
        expect(decodeProtectedHeader(renewed).kid).not.toBe(kid);
        expect((await call(replicas.b, '/clients/@me', { headers: { authorization: `Bearer ${renewed}` } })).status).toBe(200);
    });

    it("a client secret rotated on one replica is refused on the other's next request; so is a deactivated client", async () => {
        const client = await cachedClient('replicated-rotator');
        const rotated = await replicas.json<{ meta: { secret: string } }>(replicas.a, 'POST', `/clients/${client.id}/secret`, {}, 200);
        expect((await issueTo(replicas.b, client.header)).status).toBe(401);
        const renewed = basicHeader(client.id, rotated.meta.secret);
        for (const replica of [replicas.b, replicas.b, replicas.a]) expect((await issueTo(replica, renewed)).status).toBe(200);
        await replicas.json(replicas.a, 'POST', `/clients/${client.id}`, { active: false }, 200);
        expect((await issueTo(replicas.b, renewed)).status).toBe(401);
        await replicas.json(replicas.a, 'DELETE', `/clients/${client.id}`, undefined, 200);
        expect((await issueTo(replicas.b, renewed)).status).toBe(401);
    });

    it("a role's permission removed on one replica changes the other's next decision, and added back as well", async () => {
        const role = await replicas.json<{ data: { id: string } }>(replicas.a, 'POST', '/roles', { name: 'replicated-reader', realmId: realm.id }, 201);
        const userRead = await replicas.json<{ data: { id: string } }>(replicas.a, 'GET', '/permissions/user_read', undefined, 200);
        const user = await createUser('replicated-reader-user');
        await replicas.json(replicas.a, 'POST', '/user-roles', { userId: user.id, roleId: role.data.id }, 201);
        const binding = await replicas.json<{ data: { id: string } }>(replicas.a, 'POST', '/role-permissions', { roleId: role.data.id, permissionId: userRead.data.id, realmScope: 'own' }, 201);
        const tokens = await login(replicas.b, 'replicated-reader-user');
        const seen = async (replica: ServerProcess) => {
            const response = await call(replica, `/users?filter[realmId]=${realm.id}`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
            expect(response.status).toBe(200);
            return (await response.json() as { data: unknown[] }).data.length;
        };
        // decided twice on each replica: the grants are remembered
        for (const replica of [replicas.a, replicas.b, replicas.a, replicas.b]) expect(await seen(replica)).toBeGreaterThan(0);
        await replicas.json(replicas.a, 'DELETE', `/role-permissions/${binding.data.id}`, undefined, 200);
        expect(await seen(replicas.b)).toBe(0);
        expect(await seen(replicas.b)).toBe(0);
        await replicas.json(replicas.a, 'POST', '/role-permissions', { roleId: role.data.id, permissionId: userRead.data.id, realmScope: 'own' }, 201);
        expect(await seen(replicas.b)).toBeGreaterThan(0);
        // the user deactivated on A: refused on B's next request, grants remembered or not
        await replicas.json(replicas.a, 'POST', `/users/${user.id}`, { active: false }, 200);
        expect((await call(replicas.b, `/users?filter[realmId]=${realm.id}`, { headers: { authorization: `Bearer ${tokens.access_token}` } })).status).toBe(401);
    });

    it('one refresh token presented to both replicas at once: exactly one winner, and the session ends', async () => {
        await createUser('replicated-racer');
        for (let round = 0; round < 5; round++) {
            const tokens = await login(replicas.a, 'replicated-racer');
            const answers = await Promise.all([replicas.a, replicas.b].map((replica) =>
                post(replica, '/token', { grant_type: 'refresh_token', refresh_token: tokens.refresh_token })));
            const bodies = await Promise.all(answers.map(async (answer) => ({ status: answer.status, body: await answer.json() as Partial<Tokens> & { error?: string } })));
            expect(bodies.map((body) => body.status).sort(), JSON.stringify(bodies)).toEqual([200, 400]);
            const winner = bodies.find((body) => body.status === 200)!.body;
            expect(bodies.find((body) => body.status === 400)!.body).toMatchObject({ error: 'invalid_grant' });
            // the loser was a replay: the whole family ends, the winner's new tokens included (spec Versioning)
            for (const replica of [replicas.a, replicas.b]) {
                expect(await me(replica, winner.access_token!), `round ${round}`).toBe(401);
                expect(await me(replica, tokens.access_token), `round ${round}`).toBe(401);
            }
            expect((await post(replicas.b, '/token', { grant_type: 'refresh_token', refresh_token: winner.refresh_token! })).status).toBe(400);
        }
    });

    // the limits share their counters through Redis only (spec Limits); without it each replica counts its own
    if (redis) it('failed authentications counted on one replica lock the address out on the other', async () => {
        const FAILURE_MAX = 300;
        // one address of the suite's own (TRUST_PROXY is true, the default): no other test's address is touched
        const address = { 'x-forwarded-for': `198.51.100.${dialect === 'postgres' ? 1 : 2}` };
        const forged = { ...address, authorization: 'Bearer not.signed.here' };
        // the 300 failures must fall in one fixed one-minute window: start one with room enough
        const WINDOW = 60_000;
        if (WINDOW - (Date.now() % WINDOW) < 20_000) await new Promise((wake) => setTimeout(wake, WINDOW - (Date.now() % WINDOW) + 100));
        for (let failure = 0; failure < FAILURE_MAX - 1; failure++) {
            expect((await call(replicas.a, '/users/@me', { headers: forged })).status).toBe(401);
        }
        expect((await call(replicas.b, '/.well-known/openid-configuration', { headers: address })).status).toBe(200);
        expect((await call(replicas.b, '/users/@me', { headers: forged })).status).toBe(401);
        for (const replica of [replicas.a, replicas.b]) {
            const refused = await call(replica, '/.well-known/openid-configuration', { headers: address });
            expect(refused.status).toBe(429);
            expect(await refused.json()).toMatchObject({ code: 'too_many_requests' });
        }
        // another address is not affected
        expect((await call(replicas.a, '/.well-known/openid-configuration', { headers: { 'x-forwarded-for': '198.51.100.200' } })).status).toBe(200);
    });
    // with a shared bus the catalog's timer is a 60 s safety net, so a change seen within the
    // bounded wait below was announced, not timed out
    if (sharedBus) it('a permission created on one replica is in the other\'s catalog without waiting for its cache, under a new ETag', async () => {
        const fetchCatalog = async (replica: ServerProcess, ifNoneMatch?: string) => {
            const response = await call(replica, '/authorization', { headers: { authorization: admin, ...(ifNoneMatch ? { 'if-none-match': ifNoneMatch } : {}) } });
            expect([200, 304]).toContain(response.status);
            return { status: response.status, etag: response.headers.get('etag')!, body: response.status === 200 ? JSON.stringify(await response.json()) : '' };
        };
        // both replicas have built (and cache) their catalog; the tag is content-derived, so it is the same on both
        const before = await fetchCatalog(replicas.a);
        expect((await fetchCatalog(replicas.b)).etag).toBe(before.etag);
        expect((await fetchCatalog(replicas.b, before.etag)).status).toBe(304);
        const name = `bus-permission-${dialect}`;
        await replicas.json(replicas.a, 'POST', '/permissions', { name }, 201);
        let seen: Awaited<ReturnType<typeof fetchCatalog>> | undefined;
        for (let attempt = 0; attempt < 100 && !seen; attempt++) {
            // revalidating with the old tag: 304 until the change arrives, then 200 with the new body
            const answer = await fetchCatalog(replicas.b, before.etag);
            if (answer.status === 200) seen = answer;
            else await new Promise((wake) => setTimeout(wake, 20));
        }
        expect(seen?.body).toContain(name);
        expect(seen!.etag).not.toBe(before.etag);
        expect((await fetchCatalog(replicas.a)).etag).toBe(seen!.etag);
    });

    if (sharedBus) it('an entity written on one replica reaches a socket subscribed on the other', async () => {
        const issued = await post(replicas.b, '/token', { grant_type: 'password', username: 'admin', password: 'start123' });
        const { access_token: token } = await issued.json() as { access_token: string };
        const socket = connect(replicas.b.url, { transports: ['websocket'], reconnection: false, auth: { token } });
        try {
            await new Promise<void>((resolve, reject) => {
                socket.once('connect', () => resolve());
                socket.once('connect_error', reject);
            });
            const heard: Array<{ id: string; name: string }> = [];
            socket.on('event', (event: { id: string; name: string }) => heard.push(event));
            expect(await socket.timeout(5_000).emitWithAck('subscribe', { collection: 'roles' })).toEqual({ ok: true });
            const role = await replicas.json<{ data: { id: string } }>(replicas.a, 'POST', '/roles', { name: `bus-role-${dialect}` }, 201);
            for (let attempt = 0; attempt < 200 && !heard.some((event) => event.id === role.data.id); attempt++) {
                await new Promise((wake) => setTimeout(wake, 10));
            }
            expect(heard.find((event) => event.id === role.data.id)).toMatchObject({ name: 'role.created' });
        } finally {
            socket.disconnect();
        }
    });

    /*
     * PostgreSQL keeps no notification for a connection that is not listening: while B's LISTEN
     * connection is down B serves nothing from its caches, and once it listens again it has
     * emptied them. Its listener is named `realmgate_bus_<deployment>:<pid>` (bus/postgres-bus.ts).
     */
    if (dialect === 'postgres' && !redis) it('a replica whose bus connection is cut answers from the database until it listens again and emptied its caches', async () => {
        const pid = replicas.b.process.pid!;
        const listenerOfB = async () => (await sql<{ pid: number }>`select pid from pg_stat_activity
            where datname = current_database() and application_name like ${`realmgate_bus_%:${pid}`}`.execute(replicas.database.db)).rows.map((row) => row.pid);
        const client = await cachedClient('replicated-listener');
        // deactivated behind both replicas' backs (no bus message): B still authenticates it from memory
        await replicas.database.db.updateTable('auth_clients').set({ active: false }).where('id', '=', client.id).execute();
        expect((await issueTo(replicas.b, client.header)).status).toBe(200);

        const [cut] = await listenerOfB();
        expect(cut).toBeDefined();
        await sql`select pg_terminate_backend(${cut})`.execute(replicas.database.db);
        let listening: number[] = [];
        for (let attempt = 0; attempt < 500; attempt++) {
            listening = await listenerOfB();
            if (listening.length === 1 && listening[0] !== cut) break;
            await new Promise((wake) => setTimeout(wake, 20));
        }
        expect(listening).toHaveLength(1);
        expect(listening[0]).not.toBe(cut);
        // not live, or live again after the resync: either way the client is read, deactivated
        expect((await issueTo(replicas.b, client.header)).status).toBe(401);
        // and caching resumes: reactivated through A, remembered again on B
        const clientHits = async () => Number(/^realmgate_cache_hits_total\{cache="clients"\} (\d+)$/m.exec(await (await call(replicas.b, '/metrics')).text())?.[1]);
        await replicas.json(replicas.a, 'POST', `/clients/${client.id}`, { active: true }, 200);
        expect((await issueTo(replicas.b, client.header)).status).toBe(200);
        const hits = await clientHits();
        expect((await issueTo(replicas.b, client.header)).status).toBe(200);
        expect(await clientHits()).toBeGreaterThan(hits);
        expect(replicas.b.output.join('')).toContain('bus listening connection lost');
    });
}, dialects);
