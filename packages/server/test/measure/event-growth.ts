/*
 * Whether `auth_events` stays flat as it grows (a month of load kept by EVENT_LOG_RETENTION_DAYS):
 * on a PostgreSQL database of its own, the cost of the three things that touch the table on every
 * pass, first on an empty table and then with `rows` older events already in it (aggregated, as in
 * steady state, spread over the last 30 days):
 * - inserts: the detached event writer's multi-row INSERTs of 100 (storage/events.ts);
 * - the aggregates pass with 10,000 new events (domains/event-log/maintenance.ts, every minute);
 * - the retention sweep deleting a minute of events that just passed EVENT_LOG_RETENTION_DAYS.
 * Wall time (PostgreSQL runs in its own process); the median of five runs of each.
 *
 *   node --conditions=source --import tsx packages/server/test/measure/event-growth.ts [rows]
 *
 * MEASURE_POSTGRES_URL names the server (default postgres://postgres@127.0.0.1:5432).
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { sql } from 'kysely';
import { createDatabase } from '../../src/db/connect.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { fillEventAggregates, sweepEventRetention } from '../../src/domains/event-log/maintenance.js';
import { eventRowOf, insertEvents } from '../../src/storage/events.js';

const rows = Number(process.argv[2] ?? 1_000_000);
const server = process.env.MEASURE_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432';
const name = `measure_events_${process.pid}`;
const on = (database: string) => Object.assign(new URL(server), { pathname: `/${database}` }).toString();
const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: on('postgres') });
    await client.connect();
    await client.query(statement);
    await client.end();
};

const DAY = 86_400_000;
const RETENTION_DAYS = 90;
const deps = (handle: Awaited<ReturnType<typeof createDatabase>>) => ({
    db: handle.db, handle: { dialect: handle.dialect }, config: { eventLogRetentionDays: RETENTION_DAYS, eventLogAggregateRetentionDays: undefined },
});
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const wall = async (run: () => Promise<unknown>) => {
    const start = performance.now();
    await run();
    return performance.now() - start;
};
const events = (count: number, at: (i: number) => Date) => Array.from({ length: count }, (_, i) => eventRowOf('postgres', {
    name: 'tokenIssued', scope: 'auth', refType: 'session', refId: randomUUID(), actorType: 'client', actorId: randomUUID(), realmId: null,
    request: { ip: '127.0.0.1', method: 'POST', path: '/token' },
}, at(i)));

await admin(`CREATE DATABASE ${name}`);
const handle = await createDatabase({ type: 'postgres', url: on(name) });
try {
    await migrateToLatest(handle);
    const measure = async (label: string) => {
        const now = new Date();
        const inserts: number[] = [];
        const passes: number[] = [];
        const sweeps: number[] = [];
        for (let run = 0; run < 5; run++) {
            // 2,000 events in batches of 100, as the detached writer sends them
            inserts.push(await wall(async () => {
                for (let batch = 0; batch < 20; batch++) await insertEvents(handle.db, events(100, () => new Date()));
            }) / 2);
            for (let batch = 0; batch < 100; batch++) await insertEvents(handle.db, events(100, () => new Date(now.getTime() - 30_000)));
            passes.push(await wall(() => fillEventAggregates(deps(handle), new Date())));
            // a minute of events (1,000) that just passed the retention
            const expired = now.getTime() - RETENTION_DAYS * DAY - 60_000;
            await insertEvents(handle.db, events(1_000, (i) => new Date(expired + i * 60)));
            sweeps.push(await wall(() => sweepEventRetention(deps(handle), new Date())));
        }
        const { rows: [count] } = await sql<{ count: string }>`select count(*) as count from auth_events`.execute(handle.db);
        console.log(`${label.padEnd(34)} rows ${String(count!.count).padStart(10)} | insert ${median(inserts).toFixed(2)} ms per 1,000 events | aggregates pass (10,000 new) ${median(passes).toFixed(0)} ms | retention sweep (1,000 expired) ${median(sweeps).toFixed(1)} ms`);
    };
    await measure('empty table');
    // `rows` older events over the last 30 days, already counted (aggregated = 1), ids time-ordered as the writer makes them
    const start = Date.now() - 30 * DAY;
    await sql`insert into auth_events (id, name, scope, ref_type, ref_id, actor_type, actor_id, realm_id, request_ip, request_method, request_path, data, created_at, aggregated)
        select lpad(to_hex(g), 8, '0') || '-0000-7000-8000-000000000000', 'tokenIssued', 'auth', 'session', md5(g::text), 'client', md5((g * 7)::text), null,
               '127.0.0.1', 'POST', '/token', null, to_timestamp((${start} + g * (${30 * DAY}::float8 / ${rows})) / 1000), 1
        from generate_series(1, ${rows}) as g`.execute(handle.db);
    await sql`analyze auth_events`.execute(handle.db);
    await measure(`with ${rows.toLocaleString('en')} older events`);
    const plan = await sql<{ 'QUERY PLAN': string }>`explain delete from auth_events where created_at < now() - interval '90 days'`.execute(handle.db);
    console.log(`retention plan: ${plan.rows.map((row) => row['QUERY PLAN'].trim()).join(' / ')}`);
} finally {
    await handle.destroy();
    await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
}
