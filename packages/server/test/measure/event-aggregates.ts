/*
 * CPU of one event-aggregates pass (the worker's, every minute) with 300,000 raw events of today
 * and yesterday on a SQLite file (SQLite runs in this process, so process CPU time counts the SQL
 * too). Not wall time: the machine is shared.
 *
 *   node --conditions=source --import tsx packages/server/test/measure/event-aggregates.ts [events]
 *
 * The events are spread evenly over the two days (about 1.7 per second for 300,000) and
 * written in time order. Prints the CPU time of:
 * - the recount the pass did before migration 0012 (today's and yesterday's events counted again
 *   and their days replaced): reproduced here statement for statement, as `recount`;
 * - the incremental pass working off the whole backlog once (all events unmarked; bounded to
 *   AGGREGATE_BATCH × AGGREGATE_MAX_BATCHES per pass, so it may take two);
 * - the steady state: a pass with nothing new, and a pass after 1,000 and 10,000 new events.
 */
import { randomUUID } from 'node:crypto';
import { fillEventAggregates } from '../../src/domains/event-log/maintenance.js';
import { createdAtBucket, eventRowOf, insertEvents } from '../../src/storage/events.js';
import { toDbDate } from '../../src/db/values.js';
import { startTestApp } from '../app.js';

const total = Number(process.argv[2] ?? 300_000);
const app = await startTestApp('sqlite');
const { db } = app.deps;
const dialect = app.deps.handle.dialect;
const DAY = 86_400_000;
const now = new Date();
const today = new Date(Math.floor(now.getTime() / DAY) * DAY);
const yesterday = new Date(today.getTime() - DAY);
const NAMES = ['auth.signedIn', 'session.created', 'auth.tokenIssued', 'auth.signInFailed'];

const cpu = async (what: string, run: () => Promise<unknown>) => {
    const start = process.cpuUsage();
    await run();
    const used = process.cpuUsage(start);
    console.log(`${what.padEnd(52)} ${((used.user + used.system) / 1000).toFixed(1)} ms CPU`);
};

/**
 * `count` events between yesterday 00:00 and now, across four realms and four names, written in
 * time order as a server writes them (each up to 50 ms early: the detached writer's delay), so
 * the table's physical order follows time as in production.
 */
async function seed(count: number, from = yesterday.getTime(), to = now.getTime()): Promise<void> {
    const realms = await db.selectFrom('auth_realms').select('id').execute();
    for (let start = 0; start < count; start += 500) {
        const rows = [];
        for (let i = start; i < Math.min(count, start + 500); i++) {
            rows.push(eventRowOf(dialect, {
                name: NAMES[i % NAMES.length]!, scope: 'auth', refType: 'session', refId: randomUUID(),
                realmId: realms[i % realms.length]!.id, request: { ip: '127.0.0.1', method: 'POST', path: '/token' },
            }, new Date(from + Math.floor((i / count) * (to - from)) - Math.floor(Math.random() * 50))));
        }
        await insertEvents(db, rows);
    }
}

try {
    for (let i = 0; i < 3; i++) await app.json({ method: 'POST', url: '/realms', payload: { name: `measure-${i}` } }, 201);
    await seed(total);
    console.log(`${total} raw events of today and yesterday (sqlite file, in process)`);

    // before: the previous release's pass (countEventsByDay over the two days, then the DELETE of its replace; the INSERT of a few dozen count rows is left out)
    await cpu('recount (before 0012: every pass)', async () => {
        const day = createdAtBucket(dialect, 'day');
        const counts = await db.selectFrom('auth_events')
            .select([day.as('day'), 'realm_id', 'scope', 'name', 'ref_type', (eb) => eb.fn.countAll<number>().as('count')])
            .where('created_at', '>=', toDbDate(dialect, yesterday)).where('created_at', '<', toDbDate(dialect, new Date(today.getTime() + DAY)))
            .groupBy([day, 'realm_id', 'scope', 'name', 'ref_type']).execute();
        await db.transaction().execute(async (tx) => {
            await tx.deleteFrom('auth_event_aggregates').where('day', 'in', [...new Set(counts.map((row) => row.day))]).execute();
            // the measure keeps its rows out: the incremental passes below start from empty aggregates
        });
    });

    await cpu('incremental, first pass (whole backlog unmarked)', () => fillEventAggregates(app.deps, now));
    await cpu('incremental, second pass (rest of the backlog)', () => fillEventAggregates(app.deps, now));
    await cpu('incremental, nothing new', () => fillEventAggregates(app.deps, now));
    await seed(1_000, now.getTime() - 60_000);
    await cpu('incremental, 1,000 new events', () => fillEventAggregates(app.deps, now));
    await seed(10_000, now.getTime() - 60_000);
    await cpu('incremental, 10,000 new events', () => fillEventAggregates(app.deps, now));
    await cpu('incremental, nothing new', () => fillEventAggregates(app.deps, now));

    const counted = await db.selectFrom('auth_event_aggregates').select((eb) => eb.fn.sum<number>('count').as('sum')).executeTakeFirstOrThrow();
    const raw = await db.selectFrom('auth_events').select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow();
    console.log(`aggregated ${Number(counted.sum)} of ${Number(raw.count)} raw events`);
} finally {
    await app.dispose();
}
