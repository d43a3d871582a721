/*
 * What DB_ASYNCHRONOUS_COMMIT does to token answers on PostgreSQL: two server processes on one
 * throw-away database, one with it on (the default) and one with it off, loaded in turn with
 * autocannon (10 connections, `seconds` per round, `rounds` rounds alternating the two, so a drift
 * of a shared host's load touches both alike) on POST /token client_credentials — a session row and
 * three event rows per answer. (A refresh rotation spends a token and stays synchronous either way.)
 * Prints req/s and latency per round, and the ratio of the two rates.
 *
 * Measured on the 2-core development VM under a load average of 10 (2026-11-27, 4 rounds of 5 s):
 * 1,041–1,105 req/s on against 701–795 off after the first round, p50 6–7 ms against 9–12 ms;
 * 1.31 × over all four rounds.
 *
 *   TEST_POSTGRES_URL=postgres://postgres@127.0.0.1:5432/test \
 *     node --conditions=source --import tsx packages/server/test/measure/token-commit.ts [seconds] [rounds]
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import autocannon from 'autocannon';
import { ADMIN, basicHeader } from '../app.js';
import { createTestDatabase } from '../databases.js';
import { startServer, stopServer, type ServerProcess } from '../server-process.js';

const seconds = Number(process.argv[2] ?? 5);
const rounds = Number(process.argv[3] ?? 3);
const database = await createTestDatabase('postgres');
const directory = await mkdtemp(join(tmpdir(), 'realmgate-token-commit-'));
const servers: Record<'on' | 'off', ServerProcess | undefined> = { on: undefined, off: undefined };
try {
    const env = (asynchronous: boolean) => ({
        DB_TYPE: 'postgres', DB_URL: database.location, WRITABLE_DIRECTORY_PATH: directory,
        DB_ASYNCHRONOUS_COMMIT: String(asynchronous), WORKER_ENABLED: 'false', LOG_LEVEL: 'error',
    });
    servers.on = await startServer(env(true));
    servers.off = await startServer(env(false));
    const created = await fetch(`${servers.on.url}/clients`, {
        method: 'POST', headers: { authorization: basicHeader(ADMIN.name, ADMIN.password), 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'measure', secret: 'measure-secret' }),
    });
    const clientId = (await created.json() as { data: { id: string } }).data.id;
    const request = {
        method: 'POST' as const, path: '/token', body: 'grant_type=client_credentials',
        headers: { authorization: basicHeader(clientId, 'measure-secret'), 'content-type': 'application/x-www-form-urlencoded' },
    };
    const load = async (server: ServerProcess, duration: number) => {
        const result = await autocannon({ url: server.url, connections: 10, pipelining: 1, duration, requests: [request] });
        await sleep(300);
        if (result.non2xx > 0 || result.errors > 0) throw new Error(`${result.non2xx} non-2xx answers, ${result.errors} errors`);
        return { rate: result.requests.total / result.duration, p50: result.latency.p50, p99: result.latency.p99 };
    };
    for (const side of ['on', 'off'] as const) await load(servers[side]!, 2); // warm-up: JIT, pools, remembered secrets
    const totals = { on: 0, off: 0 };
    for (let round = 0; round < rounds; round++) {
        for (const side of (round % 2 === 0 ? ['on', 'off'] : ['off', 'on']) as ('on' | 'off')[]) {
            const figure = await load(servers[side]!, seconds);
            totals[side] += figure.rate;
            console.log(`round ${round} asynchronous commit ${side.padEnd(3)}: ${figure.rate.toFixed(0)} req/s, p50 ${figure.p50} ms, p99 ${figure.p99} ms`);
        }
    }
    console.log(`client_credentials, asynchronous ÷ synchronous commit: ${(totals.on / totals.off).toFixed(2)} ×`);
} finally {
    await Promise.all(Object.values(servers).map((server) => stopServer(server)));
    await database.drop();
    await rm(directory, { recursive: true, force: true });
}
