import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql, type Kysely } from 'kysely';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app.js';
import { loadConfig } from '../../src/config/load.js';
import { createDatabase, type DatabaseHandle } from '../../src/db/connect.js';
import type { PoolName } from '../../src/db/replication.js';
import type { Database } from '../../src/db/schema.js';
import { ADMIN, basicHeader } from '../app.js';
import { createMigratedTestDatabase } from '../database-templates.js';
import { describeEachDialect, type TestDatabase } from '../databases.js';

/*
 * PostgreSQL asynchronous commit (DB_ASYNCHRONOUS_COMMIT; db/asynchronous-commit.ts): the session,
 * refresh-token and event rows of token answers commit on connections with synchronous_commit off;
 * everything whose loss would fail open — spending, rotation, revocation — on the request pool,
 * whose connections keep it on. The pool observer names the pool of every statement. A lost row
 * (what a PostgreSQL crash may take of those commits) is emulated by deleting it: its token is then
 * inactive everywhere, never an error.
 */
describeEachDialect('PostgreSQL asynchronous commit of the rows whose loss fails closed', () => {
    const statements: { pool: PoolName; sql: string }[] = [];
    let database: TestDatabase;
    let handle: DatabaseHandle;
    let app: App;
    const config = (asynchronousCommit = true) => loadConfig({}, {
        logLevel: 'silent', env: 'test', writableDirectoryPath: join(tmpdir(), 'realmgate-test'),
        db: { type: 'postgres', url: database.location, asynchronousCommit },
    });
    const admin = basicHeader(ADMIN.name, ADMIN.password);
    let client: { id: string; basic: string };

    beforeAll(async () => {
        database = await createMigratedTestDatabase('postgres');
        handle = await createDatabase({ type: 'postgres', url: database.location, observePools: (pool, text) => statements.push({ pool, sql: text }) });
        app = await createApp(config(), { handle, bcryptCost: 4 });
        const created = await inject(app, 'POST', '/clients', { name: 'async-commit', secret: 'async-commit-secret' }, admin);
        expect(created.statusCode, created.body).toBe(201);
        const id = (created.json() as { data: { id: string } }).data.id;
        client = { id, basic: basicHeader(id, 'async-commit-secret') };
        expect((await inject(app, 'POST', '/users', { name: 'async-user', password: 'user-password' }, admin)).statusCode).toBe(201);
    }, 120_000);
    afterAll(async () => {
        await app?.close();
        await handle?.destroy();
        await database?.drop();
    });

    /** the setting on `count` connections of a pool at once (each holds its connection for the sleep) */
    const settingOn = async (db: Kysely<Database>, count: number): Promise<string[]> => {
        const reads = Array.from({ length: count }, () => sql<{ value: string }>`select current_setting('synchronous_commit') as value, pg_sleep(0.05)`.execute(db));
        return (await Promise.all(reads)).map((result) => result.rows[0]!.value);
    };

    it('its connections run with synchronous_commit off; the request pool\'s keep it on; together they stay within DB_POOL_SIZE', async () => {
        expect(handle.asyncCommitDb).toBeDefined();
        // DB_POOL_SIZE 10 (the default): a quarter, rounded down, commits asynchronously
        expect(await settingOn(handle.asyncCommitDb!, 2)).toEqual(['off', 'off']);
        expect(await settingOn(handle.db, 8)).toEqual(Array(8).fill('on'));
        expect(handle.pool!().total).toBeLessThanOrEqual(10);
    });

    it('token answers write sessions, refresh tokens and events there; rotation, revocation and every other write run on the request pool', async () => {
        statements.length = 0;
        const issued = await inject(app, 'POST', '/token', { grant_type: 'client_credentials' }, client.basic);
        expect(issued.statusCode, issued.body).toBe(200);
        const login = await inject(app, 'POST', '/token', { grant_type: 'password', username: 'async-user', password: 'user-password' });
        expect(login.statusCode, login.body).toBe(200);
        const rotated = await inject(app, 'POST', '/token', { grant_type: 'refresh_token', refresh_token: (login.json() as { refresh_token: string }).refresh_token });
        expect(rotated.statusCode, rotated.body).toBe(200);
        const revoked = await inject(app, 'POST', '/token/revoke', { token: (issued.json() as { access_token: string }).access_token }, client.basic);
        expect(revoked.statusCode, revoked.body).toBe(200);
        await app.deps.events.settled();

        const on = (pool: PoolName) => statements.filter((statement) => statement.pool === pool).map((statement) => statement.sql);
        const asynchronous = on('async-commit');
        // nothing but INSERTs of those three tables reaches the asynchronous-commit connections
        for (const text of asynchronous) expect(text).toMatch(/^insert into "auth_(sessions|session_tokens|events)" /);
        for (const table of ['auth_sessions', 'auth_session_tokens', 'auth_events']) {
            expect(asynchronous.some((text) => text.startsWith(`insert into "${table}" `)), table).toBe(true);
        }
        const durable = on('primary');
        // the rotation spends the old refresh token, the revocation ends the session: both wait for the flush
        // (a rotation within a minute of the login leaves the session row alone: storage/session-tokens.ts sessionTouchDue)
        expect(durable.some((text) => /^(with "rotated" as \()?update "auth_session_tokens" set "jti"/.test(text))).toBe(true);
        expect(durable.some((text) => /^update "auth_sessions" set "revoked_at"/.test(text))).toBe(true);
        expect(durable.some((text) => /^insert into "auth_(sessions|session_tokens|events)" /.test(text))).toBe(false);
    });

    it('DB_ASYNCHRONOUS_COMMIT=false writes everything on the request pool', async () => {
        const synchronous = await createApp(config(false), { handle, bcryptCost: 4 });
        try {
            statements.length = 0;
            const login = await inject(synchronous, 'POST', '/token', { grant_type: 'password', username: 'async-user', password: 'user-password' });
            expect(login.statusCode, login.body).toBe(200);
            await synchronous.deps.events.settled();
            expect(statements.some((statement) => statement.sql.startsWith('insert into "auth_sessions" '))).toBe(true);
            expect(statements.filter((statement) => statement.pool === 'async-commit')).toEqual([]);
        } finally {
            await synchronous.close();
        }
    });

    it('a lost session or refresh-token row makes its tokens inactive: 401, active false, invalid_grant — never an error', async () => {
        const tokensOf = async (payload: Record<string, string>, credentials?: string) => {
            const response = await inject(app, 'POST', '/token', payload, credentials);
            expect(response.statusCode, response.body).toBe(200);
            return response.json() as { access_token: string; refresh_token?: string };
        };
        const sessionOf = (token: string) => decodeJwt(token).session_id as string;
        const lostSession = await tokensOf({ grant_type: 'password', username: 'async-user', password: 'user-password' });
        const lostRefresh = await tokensOf({ grant_type: 'password', username: 'async-user', password: 'user-password' });
        const lostClientSession = await tokensOf({ grant_type: 'client_credentials' }, client.basic);
        // what a PostgreSQL crash may take of asynchronous commits: the session row (its refresh
        // tokens' rows go with it, as they were written after it), or only a refresh token's row
        await database.db.deleteFrom('auth_sessions').where('id', 'in', [sessionOf(lostSession.access_token), sessionOf(lostClientSession.access_token)]).execute();
        await database.db.deleteFrom('auth_session_tokens').where('id', '=', decodeJwt(lostRefresh.refresh_token!).jti!).execute();

        const introspect = async (token: string) => {
            const response = await inject(app, 'POST', '/token/introspect', { token }, admin);
            expect(response.statusCode, response.body).toBe(200);
            return (response.json() as { active: boolean }).active;
        };
        const bearer = async (url: string, token: string) => (await app.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } })).statusCode;
        const refresh = async (token: string) => {
            const response = await inject(app, 'POST', '/token', { grant_type: 'refresh_token', refresh_token: token });
            return { status: response.statusCode, error: (response.json() as { error?: string }).error };
        };

        for (const token of [lostSession.access_token, lostSession.refresh_token!]) expect(await introspect(token)).toBe(false);
        expect(await bearer('/users/@me', lostSession.access_token)).toBe(401);
        expect(await bearer('/userinfo', lostSession.access_token)).toBe(401);
        expect(await refresh(lostSession.refresh_token!)).toEqual({ status: 400, error: 'invalid_grant' });
        // RFC 7009 §2.2: its user may revoke it; nothing is left to end, and the answer is the same
        expect((await inject(app, 'POST', '/token/revoke', { token: lostSession.refresh_token! }, basicHeader('async-user', 'user-password'))).statusCode).toBe(200);

        expect(await introspect(lostClientSession.access_token)).toBe(false);
        expect(await bearer('/clients/@me', lostClientSession.access_token)).toBe(401);

        // the session survived, its refresh token's row did not: the access token lives, the refresh is refused
        expect(await introspect(lostRefresh.access_token)).toBe(true);
        expect(await bearer('/users/@me', lostRefresh.access_token)).toBe(200);
        expect(await introspect(lostRefresh.refresh_token!)).toBe(false);
        expect(await refresh(lostRefresh.refresh_token!)).toEqual({ status: 400, error: 'invalid_grant' });
    });
}, ['postgres']);

async function inject(app: App, method: 'POST', url: string, payload: Record<string, string>, authorization?: string) {
    const json = url === '/clients' || url === '/users';
    return app.app.inject({
        method, url,
        headers: { ...(authorization ? { authorization } : {}), 'content-type': json ? 'application/json' : 'application/x-www-form-urlencoded' },
        payload: json ? JSON.stringify(payload) : new URLSearchParams(payload).toString(),
    });
}
