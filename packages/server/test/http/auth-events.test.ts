import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import { createRealm } from '../actors.js';
import { useTestApp } from '../app.js';
import { authorizeParams, browser, browserWorld, locationParams } from '../browser.js';
import { describeEachDialect } from '../databases.js';
import { createUser } from '../identities.js';
import { createDetachedEventLog } from '../../src/storage/events.js';

type Row = { name: string; scope: string; ref_type: string; ref_id: string | null; realm_id: string | null; data: string | null };

/*
 * Sign-in success and failure (password grant, Basic, browser form), token
 * issuance per grant and session ends are entries of the event log, written beside the request.
 */
describeEachDialect('event log: sign-ins, token issuance and session ends', (dialect) => {
    const app = useTestApp(dialect);

    const entries = async (filter: { refId?: string; realmId?: string; names?: string[] }): Promise<Array<Row & { parsed: Record<string, unknown> }>> => {
        await app.deps.events.settled();
        let query = app.deps.db.selectFrom('auth_events').select(['name', 'scope', 'ref_type', 'ref_id', 'realm_id', 'data']);
        if (filter.refId) query = query.where('ref_id', '=', filter.refId);
        if (filter.realmId) query = query.where('realm_id', '=', filter.realmId);
        if (filter.names) query = query.where('name', 'in', filter.names);
        const rows = await query.execute();
        return rows.map((row) => ({ ...row, parsed: row.data ? JSON.parse(row.data) as Record<string, unknown> : {} }));
    };

    it('records a password-grant sign-in, its session and its token; a wrong password as signInFailed without the name typed', async () => {
        const realmId = await createRealm(app, `auth-events-${randomUUID().slice(0, 6)}`);
        const email = `pw-${randomUUID().slice(0, 6)}@example.org`;
        const user = await createUser(app, realmId, undefined, { password: 'right-password-1', email });
        const token = await app.json<{ access_token: string; refresh_token: string }>({
            method: 'POST', url: '/token', as: null, payload: { grant_type: 'password', username: user.name, password: 'right-password-1', realm_id: realmId },
        }, 200);
        for (const username of [user.name, email]) {
            const refused = await app.request({ method: 'POST', url: '/token', as: null, payload: { grant_type: 'password', username, password: 'wrong-password', realm_id: realmId } });
            expect(refused.statusCode).toBe(400);
        }
        await app.json({ method: 'POST', url: '/token', as: null, payload: { grant_type: 'refresh_token', refresh_token: token.refresh_token } }, 200);

        const rows = await entries({ realmId, names: ['signedIn', 'signInFailed', 'tokenIssued', 'session.created'] });
        const named = (name: string) => rows.filter((row) => row.name === name);
        expect(named('signedIn')).toEqual([expect.objectContaining({ scope: 'auth', ref_type: 'user', ref_id: user.id, parsed: expect.objectContaining({ method: 'password', grantType: 'password' }) })]);
        expect(named('session.created')).toHaveLength(1);
        expect(named('tokenIssued').map((row) => row.parsed.grantType).sort()).toEqual(['password', 'refresh_token']);
        // the second attempt typed an address: whatever it resolved to, the entry does not carry it
        expect(named('signInFailed')).toHaveLength(2);
        expect(named('signInFailed')).toContainEqual(expect.objectContaining({ ref_type: 'user', ref_id: user.id, parsed: { method: 'password' } }));
        for (const row of rows) expect(JSON.stringify(row)).not.toContain(email);
    });

    it('records client_credentials issuance and a wrong client secret', async () => {
        const realmId = await createRealm(app, `client-events-${randomUUID().slice(0, 6)}`);
        const client = (await app.json<{ data: { id: string } }>({ method: 'POST', url: '/clients', payload: { realmId, name: `svc-${randomUUID().slice(0, 6)}`, secret: 'svc-secret-1', grantTypes: ['client_credentials'] } }, 201)).data;
        await app.json({ method: 'POST', url: '/token', as: null, payload: { grant_type: 'client_credentials', client_id: client.id, client_secret: 'svc-secret-1', realm_id: realmId } }, 200);
        expect((await app.request({ method: 'POST', url: '/token', as: null, payload: { grant_type: 'client_credentials', client_id: client.id, client_secret: 'nope', realm_id: realmId } })).statusCode).toBe(401);
        const rows = await entries({ refId: client.id, names: ['signedIn', 'signInFailed'] });
        expect(rows.map((row) => [row.name, row.ref_type, row.parsed.method]).sort()).toEqual([['signInFailed', 'client', 'client'], ['signedIn', 'client', 'client']]);
        const issued = await entries({ realmId, names: ['tokenIssued'] });
        expect(issued.map((row) => row.parsed.grantType)).toEqual(['client_credentials']);
        for (const row of await entries({ realmId })) expect(JSON.stringify(row)).not.toContain('svc-secret-1');
    });

    // Basic authenticates every request and opens no session: its successes are no sign-in entries
    // (an API client would fill the log with one per call), its failures are
    it('records a wrong Basic password, not each request a right one authenticates (the request answers regardless)', async () => {
        const realmId = await createRealm(app, `basic-events-${randomUUID().slice(0, 6)}`);
        const user = await createUser(app, realmId, undefined, { password: 'basic-password-1' });
        expect((await app.request({ method: 'GET', url: '/users/@me', as: app.basic(user.id, 'basic-password-1') })).statusCode).toBe(200);
        expect((await app.request({ method: 'GET', url: `/realms/${realmId}/users`, as: app.basic(user.name, 'wrong-password') })).statusCode).toBe(401);
        expect(await entries({ refId: user.id, names: ['signedIn'] })).toEqual([]);
        const failed = await entries({ realmId, names: ['signInFailed'] });
        expect(failed).toEqual([expect.objectContaining({ ref_type: 'identity', ref_id: null, parsed: { method: 'basic' } })]);
        for (const row of failed) expect(JSON.stringify(row)).not.toContain(user.name);
    });

    it('records browser sign-ins and failures, the code redemption and the session end of a revocation', async () => {
        const world = await browserWorld(app, { firstParty: true });
        const wrong = browser(app);
        const page = await wrong.authorize(authorizeParams(world).params);
        expect((await wrong.submit(page, { username: world.user.email, password: 'wrong-password' })).statusCode).toBe(401);
        const client = browser(app);
        const { params, pair } = authorizeParams(world);
        const answer = await client.submit(await client.authorize(params), { username: world.user.name, password: world.user.password });
        const code = locationParams(answer).params.code!;
        const token = await app.json<{ access_token: string }>({
            method: 'POST', url: '/token', as: null,
            payload: { grant_type: 'authorization_code', code, redirect_uri: world.redirectUri, client_id: world.clientId, code_verifier: pair.verifier },
        }, 200);
        const session = await app.json<{ data: { id: string } }>({ method: 'GET', url: '/sessions/@me', as: `Bearer ${token.access_token}` }, 200);
        await app.json({ method: 'DELETE', url: `/sessions/${session.data.id}` }, 200);

        const rows = await entries({ realmId: world.realmId, names: ['signedIn', 'signInFailed', 'tokenIssued', 'sessionEnded'] });
        const summary = rows.map((row) => `${row.name}:${String(row.parsed.method ?? row.parsed.grantType ?? '')}`).sort();
        expect(summary).toEqual(expect.arrayContaining(['signInFailed:form', 'signedIn:form', 'tokenIssued:authorization_code']));
        expect(rows.filter((row) => row.name === 'sessionEnded').length).toBeGreaterThanOrEqual(1);
        for (const row of rows) expect(JSON.stringify(row)).not.toContain(world.user.email);
    });

    it('never fails the request when the event write fails (a write error is logged, not thrown)', async () => {
        const realmId = await createRealm(app, `failing-events-${randomUUID().slice(0, 6)}`);
        const user = await createUser(app, realmId, undefined, { password: 'right-password-1' });
        // an entry naming a realm that does not exist is refused by the foreign key: the request still answers
        app.deps.events.record({ name: 'probe', scope: 'auth', refType: 'user', refId: user.id, realmId: randomUUID() });
        await app.json({ method: 'POST', url: '/token', as: null, payload: { grant_type: 'password', username: user.name, password: 'right-password-1', realm_id: realmId } }, 200);
        await app.deps.events.settled();
        expect(await entries({ names: ['probe'] })).toEqual([]);
        expect(await entries({ realmId, names: ['signedIn'] })).toHaveLength(1);
    });
    it('writes a batch of detached entries in one INSERT; a row that fails is reported alone and the others are kept', async () => {
        const realmId = await createRealm(app, `auth-events-${randomUUID().slice(0, 6)}`);
        const errors: unknown[] = [];
        const log = createDetachedEventLog(app.deps.db, app.deps.handle.dialect, (error) => errors.push(error));
        const refIds = Array.from({ length: 5 }, () => randomUUID());
        refIds.forEach((refId, index) => log.record({
            name: 'tokenIssued', scope: 'auth', refType: 'session', refId,
            // the third names a realm that does not exist: its foreign key fails, the batch with it
            realmId: index === 2 ? randomUUID() : realmId, data: { index },
        }));
        await log.settled();
        expect(errors).toHaveLength(1);
        const rows = await app.deps.db.selectFrom('auth_events').select(['ref_id', 'data']).where('ref_id', 'in', refIds).execute();
        expect(rows.map((row) => row.ref_id).sort()).toEqual(refIds.filter((_, index) => index !== 2).sort());
        // settled() after settled(): nothing left to write
        await log.settled();
        expect(errors).toHaveLength(1);
    });
});
