import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { useTestApp, type TestApp } from '../../test/app.js';
import { describeEachDialect } from '../../test/databases.js';
import { createClient, masterRealmId } from '../../test/identities.js';
import { createDatabase, type DatabaseHandle } from '../db/connect.js';
import { toDbDate, type DialectName } from '../db/values.js';
import { deleteExpiredBatch } from '../storage/sweeps.js';
import { createHealthServer } from './health-listener.js';
import { createWorker, HEALTH_WINDOW_MS, SWEEP_INTERVAL_MS } from './runner.js';
import { SWEEPS, type Sweep } from './sweeps.js';

/** A second connection (pool or file) to the suite's database: another worker process sees the database this way. */
async function secondHandle(app: TestApp, dialect: DialectName): Promise<DatabaseHandle> {
    return dialect === 'sqlite' ?
        createDatabase({ type: 'sqlite', sqlitePath: app.database.location }) :
        createDatabase({ type: dialect, url: app.database.location });
}

describeEachDialect('worker: sweeps, leases and health', (dialect) => {
    const app = useTestApp(dialect);
    /** the instant every pass of this suite counts as: the sweeps read no wall clock */
    const T = Date.UTC(2030, 0, 1, 12);
    const expired = new Date(T - 1_000);
    const live = new Date(T + 3_600_000);
    let realmId: string;
    let userId: string;
    let clientId: string;
    let other: DatabaseHandle;

    beforeAll(async () => {
        realmId = await masterRealmId(app);
        userId = (await app.deps.db.selectFrom('auth_users').select('id').where('name', '=', 'admin').executeTakeFirstOrThrow()).id;
        clientId = (await createClient(app, realmId)).id;
        other = await secondHandle(app, dialect);
    });
    afterAll(async () => other?.destroy());

    const date = (value: Date) => toDbDate(dialect, value);
    const insertSession = async (expiresAt: Date, extra: { parentId?: string; revoked?: boolean } = {}) => {
        const id = randomUUID();
        const now = date(new Date(T - 60_000));
        await app.deps.db.insertInto('auth_sessions').values({
            id, sub: userId, sub_kind: 'user', user_id: userId, client_id: clientId, realm_id: realmId, ip_address: null, user_agent: null,
            seen_at: now, expires_at: date(expiresAt), revoked_at: extra.revoked ? now : null, parent_id: extra.parentId ?? null,
            cookie_digest: null, created_at: now, updated_at: now,
        }).execute();
        return id;
    };
    const insertToken = async (sessionId: string, expiresAt: Date) => {
        const id = randomUUID();
        await app.deps.db.insertInto('auth_session_tokens').values({ id, kind: 'access', session_id: sessionId, expires_at: date(expiresAt), created_at: date(new Date(T)) }).execute();
        return id;
    };
    const insertCode = async (sessionId: string, expiresAt: Date) => {
        const id = randomUUID();
        await app.deps.db.insertInto('auth_authorization_codes').values({
            id, code_digest: randomUUID().replace(/-/g, '').padEnd(64, '0'), realm_id: realmId, client_id: clientId, user_id: userId, session_id: sessionId,
            redirect_uri: 'https://app.example/cb', scope: 'openid', nonce: null, code_challenge: null, code_challenge_method: null,
            auth_time: date(new Date(T)), expires_at: date(expiresAt), used_at: null, issued_session_id: null, created_at: date(new Date(T)),
        }).execute();
        return id;
    };
    const insertDeviceCode = async (expiresAt: Date) => {
        const id = randomUUID();
        await app.deps.db.insertInto('auth_device_codes').values({
            id, device_code_digest: randomUUID().replace(/-/g, '').padEnd(64, '1'), user_code_digest: randomUUID().replace(/-/g, '').padEnd(64, '2'),
            realm_id: realmId, client_id: clientId, scope: 'openid', status: 'pending', user_id: null, session_id: null, poll_interval: 5,
            polled_at: null, expires_at: date(expiresAt), consumed_at: null, created_at: date(new Date(T)),
        }).execute();
        return id;
    };
    const insertTicket = async (expiresAt: Date) => {
        const id = randomUUID();
        await app.deps.db.insertInto('auth_mfa_tickets').values({ id, user_id: userId, realm_id: realmId, expires_at: date(expiresAt), created_at: date(new Date(T)) }).execute();
        return id;
    };
    const present = async (table: 'auth_sessions' | 'auth_session_tokens' | 'auth_authorization_codes' | 'auth_device_codes' | 'auth_mfa_tickets', ids: string[]) => {
        const rows = await app.deps.db.selectFrom(table as 'auth_mfa_tickets').select('id').where('id', 'in', ids).execute();
        return ids.map((id) => rows.some((row) => row.id === id));
    };

    it('deletes only the rows whose expiry has passed, on every table of the registry', async () => {
        const gone = await insertSession(expired);
        const kept = await insertSession(live);
        const revokedLive = await insertSession(live, { revoked: true });
        // a browser session outlived by an application session signed in through it stays until the child expires
        const parent = await insertSession(expired);
        const child = await insertSession(live, { parentId: parent });
        const tokens = [await insertToken(kept, expired), await insertToken(kept, live)];
        const codes = [await insertCode(kept, expired), await insertCode(kept, live)];
        const devices = [await insertDeviceCode(expired), await insertDeviceCode(live)];
        const tickets = [await insertTicket(expired), await insertTicket(live)];

        const worker = createWorker({ db: app.deps.db, dialect, sweeps: SWEEPS, now: () => T, holder: 'sweeper' });
        await worker.runOnce();
        expect(await present('auth_sessions', [gone, kept, revokedLive, parent, child])).toEqual([false, true, true, true, true]);
        expect(await present('auth_session_tokens', tokens)).toEqual([false, true]);
        expect(await present('auth_authorization_codes', codes)).toEqual([false, true]);
        expect(await present('auth_device_codes', devices)).toEqual([false, true]);
        expect(await present('auth_mfa_tickets', tickets)).toEqual([false, true]);
        expect(worker.health().ok).toBe(true);
        await worker.stop();
    });

    it('deletes in bounded batches: one batch removes at most its limit', async () => {
        const tickets = [await insertTicket(expired), await insertTicket(expired), await insertTicket(expired), await insertTicket(live)];
        expect(await deleteExpiredBatch(app.deps.db, dialect, 'auth_mfa_tickets', new Date(T), 2)).toBe(2);
        expect((await present('auth_mfa_tickets', tickets)).filter(Boolean)).toHaveLength(2);
        expect(await deleteExpiredBatch(app.deps.db, dialect, 'auth_mfa_tickets', new Date(T), 2)).toBe(1);
        expect(await present('auth_mfa_tickets', tickets)).toEqual([false, false, false, true]);
    });

    it('of two workers on one database (two connections), only one runs a sweep per lease period', async () => {
        const runs: string[] = [];
        const name = `contended-${randomUUID().slice(0, 8)}`;
        const counted = (holder: string): Sweep => ({ name, run: async () => { runs.push(holder); return 0; } });
        let clock = T;
        const a = createWorker({ db: app.deps.db, dialect, sweeps: [counted('a')], now: () => clock, holder: 'worker-a' });
        const b = createWorker({ db: other.db, dialect, sweeps: [counted('b')], now: () => clock, holder: 'worker-b' });
        for (let round = 0; round < 5; round++) {
            runs.length = 0;
            await Promise.all([a.runOnce(), b.runOnce()]);
            expect(runs, `round ${round}`).toHaveLength(1);
            // both passes succeeded: the one that ran the sweep, and the one that found it leased
            expect(a.health().ok && b.health().ok).toBe(true);
            clock += SWEEP_INTERVAL_MS;
        }
        // a worker that stops gives its lease up, so the other runs the sweep at once
        const holderOfLast = runs[0] === 'a' ? a : b;
        const survivor = holderOfLast === a ? b : a;
        await holderOfLast.stop();
        runs.length = 0;
        await survivor.runOnce();
        expect(runs).toEqual([holderOfLast === a ? 'b' : 'a']);
        await survivor.stop();
    });

    it('answers GET / with 200 while sweeps succeed and 503 once one has gone five minutes without a successful pass', async () => {
        const handle = await secondHandle(app, dialect);
        let clock = T;
        const worker = createWorker({ db: handle.db, dialect, sweeps: SWEEPS, now: () => clock, holder: `health-${randomUUID()}` });
        const server = createHealthServer(() => worker.health());
        await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
        const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
        try {
            await worker.runOnce();
            let answer = await fetch(url);
            expect(answer.status).toBe(200);
            expect(await answer.json()).toMatchObject({ status: 'ok' });
            // the database goes away: passes fail from now on
            await handle.destroy();
            clock = T + HEALTH_WINDOW_MS - 1;
            await worker.runOnce();
            expect((await fetch(url)).status).toBe(200);
            clock = T + HEALTH_WINDOW_MS;
            answer = await fetch(url);
            expect(answer.status).toBe(503);
            const body = await answer.json() as { status: string; sweeps: { name: string; lastSuccessAt: string; lastError?: string }[] };
            expect(body.status).toBe('unavailable');
            expect(body.sweeps.map((sweep) => sweep.name)).toEqual(SWEEPS.map((sweep) => sweep.name));
            expect(body.sweeps[0]).toMatchObject({ lastSuccessAt: new Date(T).toISOString(), lastError: expect.any(String) });
            expect((await fetch(`${url}metrics`)).status).toBe(404);
        } finally {
            await new Promise<void>((resolve) => server.close(() => resolve()));
            await worker.stop();
            await handle.destroy();
        }
    });
}, ['sqlite', 'postgres', 'mysql']);
