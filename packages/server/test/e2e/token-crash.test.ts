import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ADMIN, basicHeader } from '../app.js';
import { createTestDatabase, describeEachDialect, type TestDatabase } from '../databases.js';
import { killServer, startServer, stopServer, type ServerProcess } from '../server-process.js';

const TIMEOUT = 180_000;

interface Issued {
    access: string;
    refresh?: string;
    /** the bearer route of the token's subject */
    me: '/users/@me' | '/clients/@me';
}

/**
 * Token rows under `kill -9` with asynchronous commit on (DB_ASYNCHRONOUS_COMMIT's default,
 * db/asynchronous-commit.ts). A killed server process loses no PostgreSQL commit — only a crash of
 * PostgreSQL loses the newest asynchronous ones — so: a revocation answered 200 holds after the
 * restart, and every token answered before the kill is active after it. What a PostgreSQL crash may
 * take (the newest session rows, and their refresh tokens with them) is then removed from the
 * database by hand: those tokens answer inactive, 401 and invalid_grant, the others are untouched,
 * and nothing answers an error. The pools' synchronous_commit values are read in
 * test/http/asynchronous-commit.test.ts.
 */
describeEachDialect('crash: kill -9 of a server committing token rows asynchronously', (dialect) => {
    let database: TestDatabase;
    let directory: string;
    const servers: ServerProcess[] = [];
    const admin = basicHeader(ADMIN.name, ADMIN.password);
    let client: string;
    let server: ServerProcess;

    const start = async () => {
        const started = await startServer({ DB_TYPE: dialect, DB_URL: database.location, WRITABLE_DIRECTORY_PATH: directory });
        servers.push(started);
        return started;
    };
    const form = (target: ServerProcess, path: string, body: Record<string, string>, authorization?: string) => fetch(`${target.url}${path}`, {
        method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...(authorization ? { authorization } : {}) },
        body: new URLSearchParams(body),
    });
    const created = async (path: string, body: object) => {
        const response = await fetch(`${server.url}${path}`, { method: 'POST', headers: { authorization: admin, 'content-type': 'application/json' }, body: JSON.stringify(body) });
        expect(response.status, await response.clone().text()).toBe(201);
        return (await response.json() as { data: { id: string } }).data.id;
    };
    /** introspection's `active` and the bearer route's status, which must agree */
    const stateOf = async (target: ServerProcess, token: Issued): Promise<'active' | 'inactive'> => {
        const introspected = await form(target, '/token/introspect', { token: token.access }, admin);
        expect(introspected.status).toBe(200);
        const { active } = await introspected.json() as { active: boolean };
        const bearer = await fetch(`${target.url}${token.me}`, { headers: { authorization: `Bearer ${token.access}` } });
        expect(bearer.status).toBe(active ? 200 : 401);
        return active ? 'active' : 'inactive';
    };

    beforeAll(async () => {
        directory = await mkdtemp(join(tmpdir(), 'realmgate-token-crash-'));
        database = await createTestDatabase(dialect);
        server = await start();
        client = await created('/clients', { name: 'crash-client', secret: 'crash-client-secret' });
        await created('/users', { name: 'crash-user', password: 'crash-user-password' });
    }, TIMEOUT);
    afterAll(async () => {
        await Promise.all(servers.map(stopServer));
        await database?.drop();
        if (directory) await rm(directory, { recursive: true, force: true });
    }, TIMEOUT);

    it('a revocation answered before a kill -9 holds after the restart: the revoked token stays refused', async () => {
        const credentials = basicHeader(client, 'crash-client-secret');
        const issued = await form(server, '/token', { grant_type: 'client_credentials' }, credentials);
        expect(issued.status).toBe(200);
        const token: Issued = { access: (await issued.json() as { access_token: string }).access_token, me: '/clients/@me' };
        expect(await stateOf(server, token)).toBe('active');
        expect((await form(server, '/token/revoke', { token: token.access }, credentials)).status).toBe(200);
        await killServer(server);

        server = await start();
        expect(await stateOf(server, token)).toBe('inactive');
        const row = await database.db.selectFrom('auth_sessions').select('revoked_at').where('id', '=', decodeJwt(token.access).session_id as string).executeTakeFirst();
        expect(row?.revoked_at).not.toBeNull();
    }, TIMEOUT);

    it('tokens answered before a kill -9 are active after the restart; the rows a PostgreSQL crash may lose only make theirs inactive', async () => {
        const credentials = basicHeader(client, 'crash-client-secret');
        const ACKNOWLEDGED = 24;
        const issued: Issued[] = [];
        let killed: Promise<void> | undefined;
        const lane = async (index: number) => {
            // a user's password grant (with a refresh token) in one lane of four, the rest client_credentials
            const user = index === 0;
            while (killed === undefined) {
                let response: Response;
                try {
                    response = await form(server, '/token', user ? { grant_type: 'password', username: 'crash-user', password: 'crash-user-password' } : { grant_type: 'client_credentials' }, user ? undefined : credentials);
                } catch {
                    return; // the process died with the request in flight: not answered
                }
                expect(response.status, await response.clone().text()).toBe(200);
                const body = await response.json() as { access_token: string; refresh_token?: string };
                issued.push({ access: body.access_token, ...(body.refresh_token ? { refresh: body.refresh_token } : {}), me: user ? '/users/@me' : '/clients/@me' });
                // the kill lands while the other lanes' token requests are in flight, once the
                // password lane (a bcrypt verification per grant, slower than the others) has answered
                if (killed === undefined && issued.length >= ACKNOWLEDGED && issued.some((token) => token.refresh)) killed = killServer(server);
            }
        };
        await Promise.all([0, 1, 2, 3].map(lane));
        await killed;
        expect(issued.some((token) => token.refresh)).toBe(true);

        server = await start();
        for (const token of issued) expect(await stateOf(server, token)).toBe('active');

        // a PostgreSQL crash loses the newest asynchronous commits: the later half of these sessions
        // (time-ordered ids) and, by their foreign key, their refresh tokens' rows
        const sessions = [...new Set(issued.map((token) => decodeJwt(token.access).session_id as string))].sort();
        const lost = new Set(sessions.slice(Math.floor(sessions.length / 2)));
        await database.db.deleteFrom('auth_sessions').where('id', 'in', [...lost]).execute();
        for (const token of issued) {
            const gone = lost.has(decodeJwt(token.access).session_id as string);
            expect(await stateOf(server, token)).toBe(gone ? 'inactive' : 'active');
            if (!token.refresh) continue;
            const refreshed = await form(server, '/token', { grant_type: 'refresh_token', refresh_token: token.refresh });
            expect(refreshed.status, await refreshed.clone().text()).toBe(gone ? 400 : 200);
            if (gone) expect(await refreshed.json()).toMatchObject({ error: 'invalid_grant' });
        }
    }, TIMEOUT);
}, ['postgres']);
