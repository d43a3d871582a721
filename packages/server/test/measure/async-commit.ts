/*
 * What asynchronous commit saves a row a token answer writes on PostgreSQL, and which way of asking
 * for it costs least. Runs `lanes` concurrent writers of one-row INSERTs (a session row's size)
 * for `seconds` per mechanism into a scratch table of a throw-away database and prints inserts per
 * second and the median and 99th percentile latency:
 *
 * - sync: the default (`synchronous_commit = on`): each commit waits for the WAL flush;
 * - pool option: a pool whose connections start with `-c synchronous_commit=off` (no extra round trip);
 * - SET LOCAL: BEGIN; SET LOCAL synchronous_commit = off; INSERT; COMMIT (four round trips);
 * - set_config: the INSERT itself sets it for its own implicit transaction
 *   (`RETURNING set_config('synchronous_commit', 'off', true)`, one round trip).
 *
 *   TEST_POSTGRES_URL=postgres://postgres@127.0.0.1:5432/test \
 *     node --conditions=source --import tsx packages/server/test/measure/async-commit.ts [seconds] [lanes]
 *
 * On the 2-core development VM, PostgreSQL 15, a shared host at load average 4–10 (2026-11-27,
 * three runs of 3 s × 8 lanes; one of 1 lane): sync 2,800–4,800 inserts/s (p50 0.7–1.4 ms; 1 lane
 * 542/s); pool option 9,300–21,400 (p50 0.2–0.5 ms; 1 lane 5,825/s); SET LOCAL 4,200–6,200
 * (p50 0.7–0.9 ms; 1 lane 2,897/s); set_config 9,500–17,300 (p50 0.3 ms; 1 lane 4,458/s). The
 * pool option is chosen (db/postgres.ts): no extra round trip, and the setting belongs to
 * connections that carry nothing else, so it can never reach a transaction that must be durable.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { postgresAdmin, requireEnv, uniqueName, withDatabase } from '../databases.js';

const seconds = Number(process.argv[2] ?? 3);
const lanes = Number(process.argv[3] ?? 8);
const adminUrl = requireEnv('TEST_POSTGRES_URL');
const name = uniqueName();
await postgresAdmin(adminUrl, `CREATE DATABASE ${name}`);
const url = withDatabase(adminUrl, name);

const INSERT = 'INSERT INTO scratch (id, sub, user_agent, created_at) VALUES ($1, $2, $3, $4)';
const row = () => [randomUUID(), randomUUID(), 'Mozilla/5.0 (measure)', new Date()];

type Insert = (client: pg.PoolClient) => Promise<unknown>;
const mechanisms: { name: string; options?: string; insert: Insert }[] = [
    { name: 'sync (synchronous_commit on)', insert: (client) => client.query(INSERT, row()) },
    { name: 'pool option -c synchronous_commit=off', options: '-c synchronous_commit=off', insert: (client) => client.query(INSERT, row()) },
    {
        name: 'BEGIN; SET LOCAL; INSERT; COMMIT',
        insert: async (client) => {
            await client.query('BEGIN');
            await client.query('SET LOCAL synchronous_commit = off');
            await client.query(INSERT, row());
            await client.query('COMMIT');
        },
    },
    {
        name: 'INSERT … RETURNING set_config(…, true)',
        insert: (client) => client.query(`${INSERT} RETURNING set_config('synchronous_commit', 'off', true)`, row()),
    },
];

try {
    const setup = new pg.Client({ connectionString: url });
    await setup.connect();
    await setup.query('CREATE TABLE scratch (id uuid PRIMARY KEY, sub uuid NOT NULL, user_agent text, created_at timestamptz NOT NULL)');
    await setup.end();
    for (const mechanism of mechanisms) {
        const pool = new pg.Pool({ connectionString: url, max: lanes, ...(mechanism.options ? { options: mechanism.options } : {}) });
        const latencies: number[] = [];
        const until = performance.now() + seconds * 1000;
        await Promise.all(Array.from({ length: lanes }, async () => {
            const client = await pool.connect();
            try {
                while (performance.now() < until) {
                    const start = performance.now();
                    await mechanism.insert(client);
                    latencies.push(performance.now() - start);
                }
            } finally {
                client.release();
            }
        }));
        await pool.end();
        latencies.sort((a, b) => a - b);
        const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!.toFixed(2);
        console.log(`${mechanism.name.padEnd(42)} ${(latencies.length / seconds).toFixed(0).padStart(6)} inserts/s  p50 ${at(0.5)} ms  p99 ${at(0.99)} ms`);
    }
} finally {
    await postgresAdmin(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
}
