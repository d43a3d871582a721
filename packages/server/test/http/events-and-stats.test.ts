import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { createActor, createRealm } from '../actors.js';
import { startTestApp, useTestApp, type TestApp } from '../app.js';
import { describeEachDialect } from '../databases.js';
import { eventRowOf, insertEvents, type BeforeMark, type NewEvent } from '../../src/storage/events.js';
import { fillEventAggregates, sweepEventRetention } from '../../src/domains/event-log/maintenance.js';
import { createDatabase } from '../../src/db/connect.js';
import { createWorker, SWEEP_INTERVAL_MS } from '../../src/worker/runner.js';
import { sweepsOf } from '../../src/worker/sweeps.js';

const DAY = 86_400_000;
type EventRecord = { id: string; name: string; refType: string; refId: string | null; realmId: string | null; data: unknown; createdAt: string };
type Bucket = { bucket: string; count: number; [key: string]: unknown };

/** Write raw events at chosen instants (the aggregates' input), as the API would have. */
async function seedEvents(app: TestApp, events: Array<Partial<NewEvent> & { at: Date }>): Promise<void> {
    await insertEvents(app.deps.db, events.map(({ at, ...event }) => eventRowOf(app.deps.handle.dialect, {
        name: 'user.created', scope: 'api', refType: 'user', refId: randomUUID(), realmId: null, ...event,
    }, at)));
}

const iso = (date: Date) => date.toISOString();
const since = (date: Date) => `filter[createdAt]=${encodeURIComponent(`>=${iso(date)}`)}`;
const sum = (buckets: Bucket[]) => buckets.reduce((total, bucket) => total + bucket.count, 0);

describeEachDialect('event log and statistics', (dialect) => {
    const app = useTestApp(dialect);
    let realmA: string;
    beforeAll(async () => {
        realmA = await createRealm(app, `events-a-${randomUUID().slice(0, 6)}`);
    });

    it('records created, updated and deleted entries and never a withheld column (spec Events 4, 5)', async () => {
        const email = `someone-${randomUUID().slice(0, 6)}@example.org`;
        const user = (await app.json<{ data: { id: string } }>({ method: 'POST', url: '/users', payload: { realmId: realmA, name: `u-${randomUUID().slice(0, 6)}`, email, password: 'user-password-1' } }, 201)).data;
        await app.json({ method: 'POST', url: `/users/${user.id}`, payload: { email: `changed-${email}`, displayName: 'Someone' } }, 200);
        const client = (await app.json<{ data: { id: string } }>({ method: 'POST', url: '/clients', payload: { realmId: realmA, name: `c-${randomUUID().slice(0, 6)}`, secret: 'client-secret-plain' } }, 201)).data;
        const rotated = await app.json<{ meta: { secret: string } }>({ method: 'POST', url: `/clients/${client.id}/secret`, payload: {} }, 200);
        const key = (await app.json<{ data: { id: string } }>({ method: 'POST', url: '/keys', payload: { realmId: realmA, algorithm: 'ES256' } }, 201)).data;
        const privateKey = (await app.deps.db.selectFrom('auth_keys').select('private_key').where('id', '=', key.id).executeTakeFirstOrThrow()).private_key!;
        await app.json({ method: 'DELETE', url: `/users/${user.id}` }, 200);

        const listed = await app.json<{ data: EventRecord[] }>({ method: 'GET', url: `/events?filter[refId]=${user.id}&sort=createdAt` }, 200);
        expect(listed.data.map((event) => event.name).sort()).toEqual(['user.created', 'user.deleted', 'user.updated']);
        const rotation = await app.json<{ data: EventRecord[] }>({ method: 'GET', url: `/events?filter[name]=clientSecretRotated&filter[refId]=${client.id}` }, 200);
        expect(rotation.data).toHaveLength(1);

        // over every stored row, not only what the API serves
        const rows = await app.deps.db.selectFrom('auth_events').selectAll().execute();
        const forbiddenValues = [email, `changed-${email}`, 'client-secret-plain', rotated.meta.secret, 'user-password-1', privateKey];
        const forbiddenKeys = ['email', 'password', 'secret', 'resetHash', 'activateHash', 'reset_hash', 'activate_hash', 'privateKey', 'private_key'];
        expect(rows.length).toBeGreaterThan(0);
        for (const row of rows) {
            const text = JSON.stringify(row);
            for (const value of forbiddenValues) expect(text, row.name).not.toContain(value);
            const data = row.data === null ? {} : JSON.parse(row.data) as Record<string, unknown>;
            for (const key of forbiddenKeys) expect(Object.keys(data), row.name).not.toContain(key);
        }
    });

    it('answers 400 with issues for a statistic without a lower bound on createdAt, a bad group or aggregate', async () => {
        const cases = [
            '/users/@stats?group=bucket(createdAt,day)',
            `/users/@stats?group=bucket(createdAt,day)&filter[createdAt]=${encodeURIComponent('<2030-01-01T00:00:00Z')}`,
            `/users/@stats?group=bucket(createdAt,week)&${since(new Date(Date.now() - DAY))}`,
            `/users/@stats?group=bucket(createdAt,day),name&${since(new Date(Date.now() - DAY))}`,
            `/users/@stats?group=bucket(createdAt,day)&aggregate=sum&${since(new Date(Date.now() - DAY))}`,
            `/users/@stats?group=bucket(createdAt,day)&filter[createdAt]=2030-01-01&${since(new Date(Date.now() - DAY))}`,
            `/events/@stats?group=bucket(createdAt,day)&filter[data]=x&${since(new Date(Date.now() - DAY))}`,
        ];
        for (const url of cases) {
            const response = await app.request({ method: 'GET', url });
            expect(response.statusCode, url).toBe(400);
            expect((response.json() as { issues: unknown[] }).issues.length, url).toBeGreaterThan(0);
        }
    });

    it('counts the same entries per hour (raw events) and per day and month (aggregates)', async () => {
        const realm = await createRealm(app, `stats-${randomUUID().slice(0, 6)}`);
        const now = new Date();
        const start = new Date(Math.floor(now.getTime() / DAY) * DAY - DAY);
        await seedEvents(app, [
            { realmId: realm, at: new Date(start.getTime() + 3_600_000) },
            { realmId: realm, at: new Date(start.getTime() + 2 * 3_600_000) },
            { realmId: realm, at: new Date(start.getTime() + 2 * 3_600_000 + 60_000) },
            { realmId: realm, at: new Date(start.getTime() + DAY + 60_000) },
            { realmId: realm, name: 'role.created', refType: 'role', at: new Date(start.getTime() + DAY + 60_000) },
        ]);
        await fillEventAggregates(app.deps, now);
        const url = (unit: string) => `/realms/${realm}/users/@stats?group=bucket(createdAt,${unit})&aggregate=count&${since(start)}`;
        const hours = await app.json<{ data: Bucket[] }>({ method: 'GET', url: url('hour') }, 200);
        const days = await app.json<{ data: Bucket[] }>({ method: 'GET', url: url('day') }, 200);
        const months = await app.json<{ data: Bucket[] }>({ method: 'GET', url: url('month') }, 200);
        expect(hours.data.map((bucket) => bucket.count)).toEqual([1, 2, 1]);
        expect(hours.data[0]!.bucket).toBe(new Date(start.getTime() + 3_600_000).toISOString());
        expect(days.data).toEqual([{ bucket: iso(start).slice(0, 10), count: 3 }, { bucket: iso(new Date(start.getTime() + DAY)).slice(0, 10), count: 1 }]);
        expect(sum(months.data)).toBe(4);
        expect(sum(hours.data)).toBe(sum(days.data));

        // the event log counts every entry, grouped by name
        const events = await app.json<{ data: Bucket[] }>({ method: 'GET', url: `/realms/${realm}/events/@stats?group=bucket(createdAt,day),name&${since(start)}` }, 200);
        expect(events.data.filter((bucket) => bucket.name === 'role.created').map((bucket) => bucket.count)).toEqual([1]);
    });

    it('shows a realm administrator only its realm\'s events and statistics', async () => {
        const own = await createRealm(app, `own-${randomUUID().slice(0, 6)}`);
        const foreign = await createRealm(app, `foreign-${randomUUID().slice(0, 6)}`);
        const now = new Date();
        await seedEvents(app, [
            { realmId: own, at: new Date(now.getTime() - 60_000) },
            { realmId: foreign, at: new Date(now.getTime() - 60_000) },
            { realmId: foreign, at: new Date(now.getTime() - 60_000) },
        ]);
        await fillEventAggregates(app.deps, now);
        const actor = await createActor(app, own, [{ permission: 'event_read', scope: 'own' }, { permission: 'user_read', scope: 'own' }]);
        const listed = await app.json<{ data: EventRecord[] }>({ method: 'GET', url: '/events?page[limit]=100', as: actor.header }, 200);
        expect(listed.data.length).toBeGreaterThan(0);
        expect(listed.data.every((event) => event.realmId === own)).toBe(true);
        const foreignList = await app.json<{ data: EventRecord[] }>({ method: 'GET', url: `/realms/${foreign}/events`, as: actor.header }, 200);
        expect(foreignList.data).toEqual([]);
        for (const unit of ['hour', 'day']) {
            const stats = await app.json<{ data: Bucket[] }>({ method: 'GET', url: `/users/@stats?group=bucket(createdAt,${unit}),realmId&${since(new Date(now.getTime() - DAY))}`, as: actor.header }, 200);
            expect(stats.data.map((bucket) => bucket.realmId)).toEqual([own]);
            expect(sum(stats.data)).toBe(1);
            const foreignStats = await app.json<{ data: Bucket[] }>({ method: 'GET', url: `/realms/${foreign}/users/@stats?group=bucket(createdAt,${unit})&${since(new Date(now.getTime() - DAY))}`, as: actor.header }, 200);
            expect(foreignStats.data).toEqual([]);
        }
    });

    it('describes every collection in GET /schemas, the user authenticator included, and events in @schema', async () => {
        const bulk = await app.json<{ data: Array<{ collection: string; statistic: boolean }> }>({ method: 'GET', url: '/schemas' }, 200);
        const collections = bulk.data.map((entry) => entry.collection);
        expect(collections).toContain('user-authenticators');
        expect(collections).toContain('events');
        expect(bulk.data.filter((entry) => entry.statistic)).toHaveLength(13);
        const events = await app.json<{ data: { collection: string } }>({ method: 'GET', url: '/events/@schema' }, 200);
        expect(events.data.collection).toBe('events');
        expect((await app.request({ method: 'GET', url: '/user-authenticators/@schema' })).statusCode).not.toBe(200);
    });

    it('answers the user authenticator\'s @schema as an absent facet: 404, as a disabled @schema does, never a 400 for a malformed id', async () => {
        // spec "Schema and statistics facets": @ marks a reserved segment that is never a name or an
        // id, and GET /<collection>/@schema is not available for the user authenticator collection
        const absent = await app.request({ method: 'GET', url: '/user-authenticators/@schema' });
        expect(absent.statusCode, absent.body).toBe(404);
        for (const request of [{ method: 'DELETE', url: '/user-authenticators/@schema' }, { method: 'POST', url: '/user-authenticators/@schema/confirm', payload: { code: '1' } }] as const) {
            expect((await app.request(request)).statusCode, request.method).toBe(404);
        }
        const disabled = await startTestApp(dialect, { querySchemaDiscoveryEnabled: false });
        try {
            const answer = await disabled.request({ method: 'GET', url: '/roles/@schema' });
            expect(answer.statusCode).toBe(404);
            expect(absent.json()).toMatchObject({ statusCode: 404, code: answer.json<{ code: string }>().code });
        } finally {
            await disabled.dispose();
        }
    });
});

describeEachDialect('event aggregates: backfill, realm deletion and retention', (dialect) => {
    const app = useTestApp(dialect, { eventLogRetentionDays: 400, eventLogAggregateRetentionDays: 200 });
    const aggregated = async (day: string) => app.deps.db.selectFrom('auth_event_aggregates').selectAll().where('day', '=', day).execute();

    it('backfills older days seven per call under a controlled clock, skipping gaps', async () => {
        const now = new Date('2030-06-30T12:00:00.000Z');
        const dayAt = (offset: number) => new Date(Date.parse('2030-06-30T10:00:00.000Z') - offset * DAY);
        // today, and days 3…20 back, with a gap between 10 and 15
        const offsets = [0, 3, 4, 5, 6, 7, 8, 9, 10, 15, 16, 17, 18, 19, 20];
        await seedEvents(app, offsets.map((offset) => ({ at: dayAt(offset), name: 'client.created', refType: 'client' })));
        const dayOf = (offset: number) => dayAt(offset).toISOString().slice(0, 10);

        const first = await fillEventAggregates(app.deps, now);
        expect(first).toEqual(expect.arrayContaining([dayOf(0), dayOf(1), dayOf(3), dayOf(9)]));
        expect(first).not.toContain(dayOf(10));
        expect(await aggregated(dayOf(9))).toHaveLength(1);
        expect(await aggregated(dayOf(10))).toHaveLength(0);
        await fillEventAggregates(app.deps, now);
        // the second pass starts at the latest event before the earliest aggregated day: day 10, then 15…16
        expect((await aggregated(dayOf(10)))[0]!.count).toBe(1);
        expect(await aggregated(dayOf(16))).toHaveLength(1);
        expect(await aggregated(dayOf(17))).toHaveLength(0);
        await fillEventAggregates(app.deps, now);
        expect(await aggregated(dayOf(20))).toHaveLength(1);
        // a further pass changes nothing older
        await fillEventAggregates(app.deps, now);
        const counts = await app.deps.db.selectFrom('auth_event_aggregates').select(['day', 'count']).where('name', '=', 'client.created').where('day', '<=', '2030-06-30').execute();
        expect(counts.reduce((total, row) => total + Number(row.count), 0)).toBe(offsets.length);
    });

    it('deleting a realm deletes its aggregates; its created entry counts again as deployment-wide on the recomputed days', async () => {
        const created = await app.json<{ data: { id: string } }>({ method: 'POST', url: '/realms', payload: { name: `gone-${randomUUID().slice(0, 6)}` } }, 201);
        const realmId = created.data.id;
        await app.json({ method: 'POST', url: '/users', payload: { realmId, name: 'someone', password: 'user-password-1' } }, 201);
        const now = new Date();
        const today = now.toISOString().slice(0, 10);
        await fillEventAggregates(app.deps, now);
        const before = await app.deps.db.selectFrom('auth_event_aggregates').selectAll().where('realm_id', '=', realmId).execute();
        // the user's grant of the realm's default role is recorded as /user-roles records one (API.md §8)
        expect(before.map((row) => row.name).sort()).toEqual(['realm.created', 'user.created', 'user_role.created']);
        const wideBefore = await app.deps.db.selectFrom('auth_event_aggregates').selectAll().where('day', '=', today).where('realm_id', 'is', null).where('name', '=', 'realm.created').execute();

        await app.json({ method: 'DELETE', url: `/realms/${realmId}` }, 200);
        expect(await app.deps.db.selectFrom('auth_event_aggregates').selectAll().where('realm_id', '=', realmId).execute()).toEqual([]);
        // the raw created entry outlived the realm, deployment-wide; the user's went with it
        const raw = await app.deps.db.selectFrom('auth_events').selectAll().where('ref_id', '=', realmId).execute();
        expect(raw.map((row) => [row.name, row.realm_id]).sort()).toEqual([['realm.created', null], ['realm.deleted', null]]);
        await fillEventAggregates(app.deps, now);
        const wideAfter = await app.deps.db.selectFrom('auth_event_aggregates').selectAll().where('day', '=', today).where('realm_id', 'is', null).where('name', '=', 'realm.created').execute();
        expect(Number(wideAfter[0]!.count)).toBe(Number(wideBefore[0]?.count ?? 0) + 1);
    });

    it('deletes raw events and aggregates past their retention', async () => {
        const now = new Date('2031-01-01T00:30:00.000Z');
        const old = new Date(now.getTime() - 401 * DAY);
        const kept = new Date(now.getTime() - 399 * DAY);
        await seedEvents(app, [{ at: old, name: 'scope.created', refType: 'scope' }, { at: kept, name: 'scope.created', refType: 'scope' }]);
        const oldDay = new Date(now.getTime() - 201 * DAY).toISOString().slice(0, 10);
        const keptDay = new Date(now.getTime() - 199 * DAY).toISOString().slice(0, 10);
        await app.deps.db.insertInto('auth_event_aggregates').values([oldDay, keptDay].map((day) => ({
            id: randomUUID(), day, realm_id: null, scope: 'api', name: 'retention.probe', ref_type: 'probe', count: 1,
        }))).execute();
        const swept = await sweepEventRetention(app.deps, now);
        expect(swept.events).toBeGreaterThanOrEqual(1);
        const remaining = await app.deps.db.selectFrom('auth_events').select('created_at').where('name', '=', 'scope.created').execute();
        expect(remaining).toHaveLength(1);
        const probes = await app.deps.db.selectFrom('auth_event_aggregates').select('day').where('name', '=', 'retention.probe').execute();
        expect(probes.map((row) => row.day)).toEqual([keptDay]);
    });
});

describeEachDialect('event aggregates: incremental passes count every event exactly once', (dialect) => {
    const retention = { eventLogRetentionDays: 400, eventLogAggregateRetentionDays: 200 };
    const app = useTestApp(dialect, retention);
    const HOUR = 3_600_000;

    /** a name of this test's own, so other tests' events and aggregates do not mix in */
    const probe = () => `probe-${randomUUID().slice(0, 8)}.created`;
    /** `day|realm → count` of the aggregates, and of a full recount of the raw events: they must be equal */
    const aggregates = async (name: string) => Object.fromEntries((await app.deps.db.selectFrom('auth_event_aggregates')
        .select(['day', 'realm_id', 'count']).where('name', '=', name).execute()).map((row) => [`${row.day}|${row.realm_id}`, Number(row.count)]));
    const recount = async (name: string) => {
        const rows = await app.deps.db.selectFrom('auth_events').select(['created_at', 'realm_id']).where('name', '=', name).execute();
        const counts: Record<string, number> = {};
        for (const row of rows) {
            const key = `${new Date(row.created_at as string | Date).toISOString().slice(0, 10)}|${row.realm_id}`;
            counts[key] = (counts[key] ?? 0) + 1;
        }
        return counts;
    };
    const expectExact = async (name: string, total: number) => {
        const counted = await aggregates(name);
        expect(counted).toEqual(await recount(name));
        expect(Object.values(counted).reduce((sum, count) => sum + count, 0)).toBe(total);
    };
    const seed = (name: string, times: Date[], realmId: string | null = null) =>
        seedEvents(app, times.map((at) => ({ at, name, refType: 'probe', realmId })));

    it('counts events arriving between passes, late events with older times included, exactly once over many passes', async () => {
        const name = probe();
        const now = new Date();
        let total = 0;
        for (let pass = 0; pass < 8; pass++) {
            // new events, and late ones: written now with a time before the previous pass (another replica's batch)
            const times = [new Date(now.getTime() - pass), new Date(now.getTime() - 5 * 60_000 - pass), new Date(now.getTime() - 20 * HOUR - pass)];
            await seed(name, times);
            total += times.length;
            await fillEventAggregates(app.deps, now);
            await expectExact(name, total);
        }
        // passes with nothing new change nothing
        await fillEventAggregates(app.deps, now);
        await expectExact(name, total);
    });

    it('works a backlog above one batch off over several bounded passes and ends exact', async () => {
        const name = probe();
        const now = new Date();
        await seed(name, Array.from({ length: 55 }, (_, index) => new Date(now.getTime() - index * 1_000)));
        const options = { batch: 10, maxBatches: 2 };
        await fillEventAggregates(app.deps, now, options);
        const counted = async () => Object.values(await aggregates(name)).reduce((sum, count) => sum + count, 0);
        // other tests' events may be pending too; this name's 55 cannot all fit in 20
        expect(await counted()).toBeLessThanOrEqual(20);
        for (let pass = 0; pass < 20 && await counted() < 55; pass++) await fillEventAggregates(app.deps, now, options);
        await expectExact(name, 55);
    });

    it('rolls the added counts back with the marks when the pass fails before marking (a crash), and counts them once later', async () => {
        const name = probe();
        const now = new Date();
        await seed(name, [now, new Date(now.getTime() - HOUR), new Date(now.getTime() - 2 * HOUR)]);
        const failing = async () => { throw new Error('simulated crash between count and mark'); };
        await expect(fillEventAggregates(app.deps, now, { beforeMark: failing })).rejects.toThrow('simulated crash');
        expect(await aggregates(name)).toEqual({});
        // a failing statement inside the transaction, not only a thrown error
        const badStatement: BeforeMark = async (tx) => { await sql`select * from no_such_table`.execute(tx); };
        await expect(fillEventAggregates(app.deps, now, { beforeMark: badStatement })).rejects.toThrow();
        expect(await aggregates(name)).toEqual({});
        await fillEventAggregates(app.deps, now);
        await expectExact(name, 3);
        await fillEventAggregates(app.deps, now);
        await expectExact(name, 3);
    });

    it('two workers on one database (two connections) take the lease in turn and together count each event once', async () => {
        const name = probe();
        const other = dialect === 'sqlite' ?
            await createDatabase({ type: 'sqlite', sqlitePath: app.database.location }) :
            await createDatabase({ type: dialect, url: app.database.location });
        const sweeps = sweepsOf(retention).filter((sweep) => sweep.name === 'event-aggregates');
        let clock = Date.now();
        const a = createWorker({ db: app.deps.db, dialect, sweeps, now: () => clock, holder: `a-${randomUUID()}` });
        const b = createWorker({ db: other.db, dialect, sweeps, now: () => clock, holder: `b-${randomUUID()}` });
        try {
            let total = 0;
            for (let round = 0; round < 6; round++) {
                await seed(name, [new Date(clock), new Date(clock - 10 * 60_000)]);
                total += 2;
                // even rounds: both race (the lease lets one run); odd rounds: the lease has lapsed and the other worker runs alone
                if (round % 2 === 0) await Promise.all([a.runOnce(), b.runOnce()]);
                else await (round % 4 === 1 ? b : a).runOnce();
                expect(a.health().ok && b.health().ok).toBe(true);
                await expectExact(name, total);
                clock += 2 * SWEEP_INTERVAL_MS;
            }
        } finally {
            await a.stop();
            await b.stop();
            await other.destroy();
        }
    });

    it('counts a deleted realm\'s own created entry once, deployment-wide, even when it had been counted under the realm', async () => {
        const created = await app.json<{ data: { id: string } }>({ method: 'POST', url: '/realms', payload: { name: `inc-${randomUUID().slice(0, 6)}` } }, 201);
        const realmId = created.data.id;
        const name = probe();
        const now = new Date();
        await seed(name, [now, now], realmId);
        await fillEventAggregates(app.deps, now);
        await expectExact(name, 2);
        const wide = async () => (await app.deps.db.selectFrom('auth_events').select('id')
            .where('ref_id', '=', realmId).where('name', '=', 'realm.created').execute()).length;
        const wideCount = async () => (await app.deps.db.selectFrom('auth_event_aggregates').select('count')
            .where('realm_id', 'is', null).where('name', '=', 'realm.created').execute()).reduce((sum, row) => sum + Number(row.count), 0);
        const before = await wideCount();
        await app.json({ method: 'DELETE', url: `/realms/${realmId}` }, 200);
        expect(await wide()).toBe(1);
        await fillEventAggregates(app.deps, now);
        await fillEventAggregates(app.deps, now);
        expect(await wideCount()).toBe(before + 1);
        // the realm's own probe events went with it, and so did their counts
        await expectExact(name, 0);
    });
});

describe('aggregate retention unset', () => {
    it('keeps aggregates forever by default', async () => {
        const { loadConfig } = await import('../../src/config/load.js');
        expect(loadConfig({}).eventLogAggregateRetentionDays).toBeUndefined();
    });
});
