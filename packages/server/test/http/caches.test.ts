import type { CompiledQuery } from 'kysely';
import { decodeProtectedHeader } from 'jose';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { useTestApp, type TestApp } from '../app.js';
import { describeEachDialect } from '../databases.js';
import { createClient, createUser } from '../identities.js';
import { login } from '../sessions.js';
import { syncMappedRoles } from '../../src/storage/identity-providers.js';
import { protocolTransaction } from '../../src/storage/write-transaction.js';

/**
 * The caches of one process (active signing keys, grants, realms, clients that
 * authenticated) answer the hot paths without the database, and every write through the API
 * empties what it changes before it answers — the next request sees the change. In process here
 * (CACHES=on: one process on PostgreSQL/MySQL too); across two replicas in e2e/replicas.test.ts.
 */
describeEachDialect('caches: served from memory, emptied by every write before it answers', (dialect) => {
    const app = useTestApp(dialect, { caches: 'on' });

    /** the SQL statements (database round trips) `work` sends */
    let recording: string[] | null = null;
    let restore: (() => void) | undefined;
    beforeAll(() => {
        const executor = Object.getPrototypeOf(Object.getPrototypeOf(app.deps.db.getExecutor())) as { executeQuery: (query: CompiledQuery, id: unknown) => Promise<unknown> };
        const execute = executor.executeQuery;
        executor.executeQuery = function (this: unknown, query: CompiledQuery, id: unknown) {
            recording?.push(query.sql);
            return execute.call(this, query, id);
        };
        restore = () => {
            executor.executeQuery = execute;
        };
    });
    afterAll(() => restore?.());
    const statementsOf = async (work: () => Promise<unknown>): Promise<string[]> => {
        // the event log writes earlier requests' entries up to 50 ms later (storage/events.ts): they
        // are written before the recording starts, so only `work`'s own statements are counted
        await app.deps.events.settled();
        recording = [];
        try {
            await work();
            return recording;
        } finally {
            recording = null;
        }
    };
    const reading = (statements: string[], table: string) => statements.filter((sql) => /^\s*select/i.test(sql) && sql.includes(`"${table}"`) || sql.includes(`\`${table}\``));

    let realmId: string;
    beforeAll(async () => {
        realmId = (await app.json<{ data: { id: string } }>({ method: 'POST', url: '/realms', payload: { name: `cached-${dialect}` } }, 201)).data.id;
    });
    const issue = (a: TestApp, header: string) => a.request({
        method: 'POST', url: '/token', as: header, payload: { grant_type: 'client_credentials', realm_id: realmId },
    });

    it('a known client authenticates, its realm resolves and the realm key signs without reading auth_clients, auth_realms or auth_keys', async () => {
        const client = await createClient(app, realmId);
        expect((await issue(app, client.header)).statusCode).toBe(200);
        let status = 0;
        const statements = await statementsOf(async () => {
            status = (await issue(app, client.header)).statusCode;
        });
        expect(status).toBe(200);
        for (const table of ['auth_clients', 'auth_realms', 'auth_keys']) expect(reading(statements, table), table).toEqual([]);
        // a wrong secret is never answered from memory: refused, whatever was remembered
        expect((await issue(app, app.basic(client.id, 'not-the-secret'))).statusCode).toBe(401);
        expect((await issue(app, client.header)).statusCode).toBe(200);
    });

    it("a known client's scope bindings are remembered; a binding added, changed or removed, or its scope deleted, applies to the next token", async () => {
        const client = await createClient(app, realmId);
        const scopeOf = async (scope?: string) => {
            const answer = await app.request({ method: 'POST', url: '/token', as: client.header, payload: { grant_type: 'client_credentials', realm_id: realmId, ...(scope ? { scope } : {}) } });
            return answer.statusCode === 200 ? (answer.json() as { scope: string }).scope : `${answer.statusCode} ${(answer.json() as { error: string }).error}`;
        };
        expect(await scopeOf()).toBe('global');
        expect(await scopeOf()).toBe('global');
        const statements = await statementsOf(() => scopeOf());
        expect(reading(statements, 'auth_client_scopes')).toEqual([]);

        const reports = await app.json<{ data: { id: string } }>({ method: 'POST', url: '/scopes', payload: { name: 'reports', realmId } }, 201);
        const binding = await app.json<{ data: { id: string } }>({ method: 'POST', url: '/client-scopes', payload: { clientId: client.id, scopeId: reports.data.id } }, 201);
        // bound: the client is restricted to its bindings, and none is a default yet
        expect(await scopeOf('reports')).toBe('reports');
        expect(await scopeOf('audit')).toBe('400 invalid_scope');
        expect(await scopeOf()).toBe('global');
        await app.json({ method: 'POST', url: `/client-scopes/${binding.data.id}`, payload: { default: true } }, 200);
        expect(await scopeOf()).toBe('reports');
        await app.json({ method: 'DELETE', url: `/client-scopes/${binding.data.id}` }, 200);
        expect(await scopeOf()).toBe('global');
        await app.json({ method: 'POST', url: '/client-scopes', payload: { clientId: client.id, scopeId: reports.data.id, default: true } }, 201);
        expect(await scopeOf()).toBe('reports');
        await app.json({ method: 'DELETE', url: `/scopes/${reports.data.id}` }, 200);
        expect(await scopeOf()).toBe('global');
    });

    it("a user bearer's GET /users/@me is one statement, its row read with the token's state: fresh on every request", async () => {
        const user = await createUser(app, realmId, undefined, { email: 'me@example.test' });
        const { accessToken } = await login(app, realmId, user.name, user.password);
        const me = async (query = '') => app.request({ method: 'GET', url: `/users/@me${query}`, as: `Bearer ${accessToken}` });
        expect((await me()).statusCode).toBe(200);
        let answer: Awaited<ReturnType<typeof me>> | undefined;
        const statements = await statementsOf(async () => {
            answer = await me();
        });
        expect(statements).toHaveLength(1);
        const record = (answer!.json() as { data: Record<string, unknown> }).data;
        expect(record).toMatchObject({ id: user.id, name: user.name, realmId, active: true, emailVerified: false });
        // withheld unless asked for (the reader is the row), never a hash
        expect(record).not.toHaveProperty('email');
        expect(record).not.toHaveProperty('password');
        expect(((await me('?fields=%2Bemail')).json() as { data: { email: string } }).data.email).toBe('me@example.test');
        // the same answer as a read by id
        const byId = await app.json<{ data: Record<string, unknown> }>({ method: 'GET', url: `/users/${user.id}` }, 200);
        expect(record).toEqual(byId.data);
        await app.json({ method: 'POST', url: `/users/${user.id}`, payload: { displayName: 'Renamed', nameLocked: false } }, 200);
        expect(((await me()).json() as { data: { displayName: string; nameLocked: boolean } }).data).toMatchObject({ displayName: 'Renamed', nameLocked: false });
        await app.json({ method: 'POST', url: `/users/${user.id}`, payload: { active: false } }, 200);
        expect((await me()).statusCode).toBe(401);
    });

    it("a refresh rotation reads its token's key mark, session and subject in one statement before it writes", async () => {
        const user = await createUser(app, realmId);
        const first = await login(app, realmId, user.name, user.password);
        const refresh = (token: string) => app.request({ method: 'POST', url: '/token', as: null, payload: { grant_type: 'refresh_token', refresh_token: token } });
        // the key's material is remembered after its first use
        const second = refresh(first.refreshToken);
        const rotated = (await second).json() as { refresh_token: string };
        let answer: Awaited<ReturnType<typeof refresh>> | undefined;
        const statements = await statementsOf(async () => {
            answer = await refresh(rotated.refresh_token);
        });
        expect(answer!.statusCode).toBe(200);
        expect(statements.filter((text) => /^\s*select/i.test(text))).toHaveLength(1);
        // a deactivated subject is refused at its next rotation, from that same read
        await app.json({ method: 'POST', url: `/users/${user.id}`, payload: { active: false } }, 200);
        const refused = await refresh((answer!.json() as { refresh_token: string }).refresh_token);
        expect(refused.statusCode).toBe(400);
        expect((refused.json() as { error: string }).error).toBe('invalid_grant');
    });

    it('a rotated secret, a deactivated and a deleted client are refused on the next request', async () => {
        const client = await createClient(app, realmId);
        expect((await issue(app, client.header)).statusCode).toBe(200);
        const rotated = await app.json<{ meta: { secret: string } }>({ method: 'POST', url: `/clients/${client.id}/secret`, payload: {} }, 200);
        expect((await issue(app, client.header)).statusCode).toBe(401);
        const renewed = app.basic(client.id, rotated.meta.secret);
        expect((await issue(app, renewed)).statusCode).toBe(200);
        await app.json({ method: 'POST', url: `/clients/${client.id}`, payload: { active: false } }, 200);
        expect((await issue(app, renewed)).statusCode).toBe(401);
        await app.json({ method: 'POST', url: `/clients/${client.id}`, payload: { active: true } }, 200);
        expect((await issue(app, renewed)).statusCode).toBe(200);
        await app.json({ method: 'DELETE', url: `/clients/${client.id}` }, 200);
        expect((await issue(app, renewed)).statusCode).toBe(401);
    });

    it("a known client's pushed request (RFC 9126) is one statement, its INSERT; a client or realm change applies to the next push", async () => {
        const redirectUri = 'https://app.cached.example/cb';
        const client = await createClient(app, realmId, undefined, { redirectUri });
        const push = (extra: Record<string, string> = {}) => app.request({
            method: 'POST', url: '/par', as: null, headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: client.header },
            payload: new URLSearchParams({
                response_type: 'code', client_id: client.id, redirect_uri: redirectUri, scope: 'openid', state: 's',
                code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256', ...extra,
            }).toString(),
        });
        expect((await push()).statusCode).toBe(201);
        let status = 0;
        const statements = await statementsOf(async () => {
            status = (await push()).statusCode;
        });
        expect(status).toBe(201);
        expect(statements).toHaveLength(1);
        expect(statements[0]).toMatch(/^\s*insert into .auth_pushed_requests./i);
        // a redirect URI withdrawn, the client deactivated, the realm requiring pushed requests: each on the next request
        await app.json({ method: 'POST', url: `/clients/${client.id}`, payload: { redirectUri: 'https://app.cached.example/other' } }, 200);
        expect((await push()).statusCode).toBe(400);
        await app.json({ method: 'POST', url: `/clients/${client.id}`, payload: { redirectUri } }, 200);
        expect((await push()).statusCode).toBe(201);
        await app.json({ method: 'POST', url: `/clients/${client.id}`, payload: { active: false } }, 200);
        expect((await push()).statusCode).toBe(401);
        await app.json({ method: 'POST', url: `/clients/${client.id}`, payload: { active: true } }, 200);
        expect((await push()).statusCode).toBe(201);
        // the realm's own rule, remembered with the client: /authorize reads the same cache
        const authorizeError = async () => {
            const answer = await authorize();
            return answer.statusCode === 303 ? new URL(String(answer.headers.location)).searchParams.get('error') : `${answer.statusCode}`;
        };
        const authorize = () => app.request({
            method: 'GET', as: null,
            url: `/authorize?${new URLSearchParams({ response_type: 'code', client_id: client.id, redirect_uri: redirectUri, scope: 'openid', state: 's', code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256' }).toString()}`,
        });
        const before = await authorizeError();
        expect(before).not.toBe('invalid_request');
        await app.json({ method: 'POST', url: `/realms/${realmId}`, payload: { requirePushedAuthorizationRequests: true } }, 200);
        // RFC 9126 §5: the request is refused to the redirect URI
        expect(await authorizeError()).toBe('invalid_request');
        expect((await push()).statusCode).toBe(201);
        await app.json({ method: 'POST', url: `/realms/${realmId}`, payload: { requirePushedAuthorizationRequests: false } }, 200);
        expect(await authorizeError()).toBe(before);
    });

    it('a disabled or deleted signing key never signs the next token', async () => {
        const client = await createClient(app, realmId);
        const kidOf = async () => {
            const response = await issue(app, client.header);
            expect(response.statusCode, response.body).toBe(200);
            return decodeProtectedHeader((response.json() as { access_token: string }).access_token).kid!;
        };
        const first = await kidOf();
        expect(await kidOf()).toBe(first);
        await app.json({ method: 'POST', url: `/keys/${first}`, payload: { status: 'disabled' } }, 200);
        const second = await kidOf();
        expect(second).not.toBe(first);
        // a newer key of higher priority takes over at once
        const third = (await app.json<{ data: { id: string } }>({ method: 'POST', url: '/keys', payload: { realmId, use: 'sig', algorithm: 'ES256', priority: 5 } }, 201)).data.id;
        expect(await kidOf()).toBe(third);
        await app.json({ method: 'DELETE', url: `/keys/${third}?force=true` }, 200);
        expect(await kidOf()).toBe(second);
    });

    it("a role's permission removed or added changes the holder's next decision", async () => {
        const role = (await app.json<{ data: { id: string } }>({ method: 'POST', url: '/roles', payload: { name: `cached-role-${dialect}`, realmId } }, 201)).data;
        const userRead = (await app.json<{ data: { id: string } }>({ method: 'GET', url: '/permissions/user_read' }, 200)).data;
        const user = await createUser(app, realmId);
        await app.json({ method: 'POST', url: '/user-roles', payload: { userId: user.id, roleId: role.id } }, 201);
        await createUser(app, realmId);
        const users = () => app.request({ method: 'GET', url: `/users?filter[realmId]=${realmId}`, as: user.header });
        // without user_read a user lists nobody; with it, every user of its realm
        const seen = async () => {
            const response = await users();
            expect(response.statusCode, response.body).toBe(200);
            return (response.json() as { data: unknown[] }).data.length;
        };
        expect(await seen()).toBe(0);
        expect(await seen()).toBe(0);
        const binding = (await app.json<{ data: { id: string } }>({ method: 'POST', url: '/role-permissions', payload: { roleId: role.id, permissionId: userRead.id, realmScope: 'own' } }, 201)).data;
        expect(await seen()).toBeGreaterThan(1);
        // remembered now: the second decision reads no grant table
        const statements = await statementsOf(users);
        expect(statements.filter((sql) => sql.includes('auth_role_permissions') || sql.includes('auth_user_permissions'))).toEqual([]);
        await app.json({ method: 'DELETE', url: `/role-permissions/${binding.id}` }, 200);
        expect(await seen()).toBe(0);
        // and the role taken from the user, with the permission back on the role
        await app.json({ method: 'POST', url: '/role-permissions', payload: { roleId: role.id, permissionId: userRead.id, realmScope: 'own' } }, 201);
        expect(await seen()).toBeGreaterThan(1);
        const held = (await app.json<{ data: { id: string }[] }>({ method: 'GET', url: `/user-roles?filter[userId]=${user.id}` }, 200)).data;
        for (const row of held) await app.json({ method: 'DELETE', url: `/user-roles/${row.id}` }, 200);
        expect(await seen()).toBe(0);
    });

    it("an upstream login's role mappings (no entity event) change the user's next decision too", async () => {
        const role = (await app.json<{ data: { id: string } }>({ method: 'POST', url: '/roles', payload: { name: `mapped-role-${dialect}`, realmId } }, 201)).data;
        const userRead = (await app.json<{ data: { id: string } }>({ method: 'GET', url: '/permissions/user_read' }, 200)).data;
        await app.json({ method: 'POST', url: '/role-permissions', payload: { roleId: role.id, permissionId: userRead.id, realmScope: 'own' } }, 201);
        const user = await createUser(app, realmId);
        const seen = async () => {
            const response = await app.request({ method: 'GET', url: `/users?filter[realmId]=${realmId}`, as: user.header });
            expect(response.statusCode, response.body).toBe(200);
            return (response.json() as { data: unknown[] }).data.length;
        };
        // what federation/provision.ts does on every login: the mapped roles synced in a protocol transaction
        const sync = (matched: string[]) => protocolTransaction(app.deps.db, (tx) =>
            syncMappedRoles(tx, app.deps.handle.dialect, user.id, [role.id], new Set(matched), new Date()));
        expect(await seen()).toBe(0);
        expect(await seen()).toBe(0);
        await sync([role.id]);
        expect(await seen()).toBeGreaterThan(0);
        expect(await seen()).toBeGreaterThan(0);
        await sync([]);
        expect(await seen()).toBe(0);
    });

    it('reports every cache with its entries, bound and counters in /metrics', async () => {
        const metrics = await app.request({ method: 'GET', url: '/metrics', as: null, remoteAddress: '127.0.0.1' });
        expect(metrics.statusCode).toBe(200);
        for (const cache of ['active_signing_keys', 'grants', 'realms', 'clients', 'client_scopes']) {
            expect(metrics.body).toMatch(new RegExp(`realmgate_cache_bound\\{cache="${cache}"\\} [1-9]`));
            expect(metrics.body).toMatch(new RegExp(`realmgate_cache_entries\\{cache="${cache}"\\} \\d+`));
            expect(metrics.body).toMatch(new RegExp(`realmgate_cache_hits_total\\{cache="${cache}"\\} [1-9]`));
        }
        expect(metrics.body).toContain('realmgate_cache_invalidations_total{cache="grants"}');
    });
});

/*
 * CACHES=auto (the default) caches wherever every process hears every invalidation: on PostgreSQL
 * its own LISTEN/NOTIFY bus carries them, Redis or not; MySQL without Redis has no bus between
 * its replicas, so it caches nothing (bus/setup.ts, wire.ts cachingAllowed).
 */
describeEachDialect('CACHES=auto without Redis', (dialect) => {
    const app = useTestApp(dialect);
    const caching = dialect === 'postgres';

    it(caching ? 'caches on PostgreSQL, whose replicas share its bus' : 'caches nothing on MySQL, whose replicas share no bus', async () => {
        expect(app.deps.config.redisUrl).toBeUndefined();
        expect(app.deps.config.caches).toBe('auto');
        expect(app.deps.bus.shared).toBe(caching);
        const realmId = (await app.json<{ data: { id: string } }>({ method: 'POST', url: '/realms', payload: { name: `auto-${dialect}` } }, 201)).data.id;
        const client = await createClient(app, realmId);
        const clientHits = () => app.deps.caches.stats().find((cache) => cache.name === 'clients')!.hits;
        const before = clientHits();
        for (let round = 0; round < 2; round++) {
            const answer = await app.request({ method: 'POST', url: '/token', as: client.header, payload: { grant_type: 'client_credentials', realm_id: realmId } });
            expect(answer.statusCode).toBe(200);
        }
        // the second request's client came from memory, or from the database again
        expect(clientHits() > before).toBe(caching);
    });
}, ['postgres', 'mysql']);
