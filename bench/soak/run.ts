/**
 * `npm run soak` (`-- --short` for CI, about two minutes): the local cluster (deploy/local-cluster)
 * on a PostgreSQL database of its own (`soak_<pid>`, dropped afterwards) and a Redis of its own,
 * a bounded mixed load through HAProxy (load.ts), and a fault script during it: a rolling restart
 * of every replica, a kill -9 of one restarted after 10 s, Redis restarted, every database
 * connection of one replica terminated, a signing key rotated and the old one deleted, a user
 * deactivated and a session revoked. The report (report.ts) ends with `invariants: all held` or
 * `invariants: N violated …`; the exit status is 1 when one is violated.
 *
 *   npm run soak [-- --short] [-- --no-redis] [-- --report FILE]
 */
import { writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import pg from 'pg';
// @ts-expect-error the cluster script is plain JavaScript (deploy/local-cluster/cluster.mjs), run as it stands
import { ADMIN, createClusterDatabase, startCluster, until } from '../../deploy/local-cluster/cluster.mjs';
import { judge } from './invariants.js';
import { basic, createLoad, Recorder, REDIRECT_URI, runWorkers, type LoadUser, type Session, type SoakFixtures } from './load.js';
import type { FaultWindow, Phase, Revocation, SoakLog } from './records.js';
import { renderReport } from './report.js';

interface Replica { name: string; url: string; pid?: number; start(): Promise<void>; stop(): Promise<number | string | undefined>; kill(): Promise<unknown> }
interface Cluster {
    url: string;
    workDir: string;
    replicas: Replica[];
    redis?: { restart(): Promise<void> };
    inRotation(name: string, up: boolean): Promise<void>;
    stop(options?: { keepLogs?: boolean }): Promise<void>;
}

const args = process.argv.slice(2);
const short = args.includes('--short');
const useRedis = !args.includes('--no-redis');
const reportFile = args.includes('--report') ? args[args.indexOf('--report') + 1] : undefined;
/** seconds of each steady phase: the short form is what CI runs */
const STEADY = short ? 8 : 60;
const AFTER_FAULT = short ? 3 : 20;
const WORKERS = 8;
const KILLED_FOR_MS = 10_000;

const sleep = (ms: number) => new Promise((wake) => setTimeout(wake, ms));
const say = (line: string) => process.stderr.write(`soak: ${line}\n`);

async function api<T>(baseUrl: string, method: string, path: string, authorization: string, body?: unknown): Promise<{ status: number; body: T }> {
    const response = await fetch(`${baseUrl}${path}`, {
        method, headers: { authorization, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : undefined) as T };
}

async function created(baseUrl: string, authorization: string, collection: string, payload: Record<string, unknown>): Promise<string> {
    const answer = await api<{ data: { id: string } }>(baseUrl, 'POST', `/${collection}`, authorization, payload);
    if (answer.status !== 201) throw new Error(`POST /${collection} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    return answer.body.data.id;
}

async function passwordToken(baseUrl: string, form: Record<string, string>): Promise<string> {
    const response = await fetch(`${baseUrl}/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form) });
    const text = await response.text();
    if (response.status !== 200) throw new Error(`password grant answered ${response.status}: ${text}`);
    return (JSON.parse(text) as { access_token: string }).access_token;
}

/** The soak realm, its clients and users, created through the API as an operator would. */
async function seed(baseUrl: string): Promise<SoakFixtures> {
    const adminBearer = `Bearer ${await passwordToken(baseUrl, { grant_type: 'password', username: ADMIN.name, password: ADMIN.password })}`;
    const realmName = 'soak';
    const realmId = await created(baseUrl, adminBearer, 'realms', { name: realmName });
    const serviceSecret = 'soak-service-secret-0123456789abcdef';
    const serviceId = await created(baseUrl, adminBearer, 'clients', { realmId, name: 'soak-service', secret: serviceSecret });
    const publicClientId = await created(baseUrl, adminBearer, 'clients', { realmId, name: 'soak-spa', redirectUri: REDIRECT_URI });
    const user = async (name: string): Promise<LoadUser> => {
        const password = `${name}-password-0123456789`;
        const id = await created(baseUrl, adminBearer, 'users', { realmId, name, password });
        const bearer = `Bearer ${await passwordToken(baseUrl, { grant_type: 'password', username: name, password, realm_name: realmName })}`;
        return { id, name, password, bearer };
    };
    const users = [await user('load-1'), await user('load-2'), await user('load-3'), await user('load-4')];
    return { realmId, realmName, service: { id: serviceId, authorization: basic(serviceId, serviceSecret) }, publicClientId, users, victim: await user('victim'), adminBearer };
}

async function main(): Promise<number> {
    const started = Date.now();
    const database = await createClusterDatabase(`soak_${process.pid}`);
    let cluster: Cluster | undefined;
    const cleanUp = async () => {
        await cluster?.stop({ keepLogs: process.env.SOAK_KEEP_LOGS === '1' });
        await database.drop();
    };
    // Ctrl-C: the replicas, HAProxy and Redis stop and the database is dropped all the same
    process.once('SIGINT', () => {
        say('interrupted: stopping the cluster');
        void cleanUp().finally(() => process.exit(130));
    });
    try {
        say(`database soak_${process.pid}; starting the cluster (${useRedis ? 'Redis' : 'PostgreSQL bus'})`);
        cluster = await startCluster({
            databaseUrl: database.url, redis: useRedis, drainMs: 5_000, log: say,
            // the soak measures the cluster, not the per-address budgets: every request arrives from HAProxy's one address
            env: { MIDDLEWARE_RATE_LIMIT: 'false', TOKEN_ACCESS_MAX_AGE: '3600', TRUST_PROXY: 'false' },
        }) as Cluster;
        const running = cluster;
        const fixtures = await seed(running.url);
        const recorder = new Recorder();
        const load = createLoad(running.url, fixtures, recorder);
        const phases: Phase[] = [];
        const faults: FaultWindow[] = [];
        const revocations: Revocation[] = [];
        const stateText: string[] = [];

        let stop = false;
        // a fault of the load generator itself ends the load; it is thrown once the faults are over
        const workers = runWorkers(WORKERS, () => load.step(), () => stop).then(() => undefined, (error: unknown) => {
            stop = true;
            return error;
        });
        const phase = async (name: string, body: () => Promise<unknown>) => {
            const start = recorder.now();
            say(`phase ${name}`);
            await body();
            phases.push({ name, start, end: recorder.now() });
        };
        const fault = async (name: FaultWindow['name'], body: () => Promise<void>) => {
            const start = recorder.now();
            await body();
            faults.push({ name, start, end: recorder.now() });
        };
        const statsSocket = `${running.workDir}/haproxy.sock`;
        const haproxyCommand = async (line: string) => {
            const { connect } = await import('node:net');
            await new Promise<void>((resolve, reject) => {
                const socket = connect({ path: statsSocket });
                socket.on('error', reject);
                socket.on('close', () => resolve());
                socket.end(`${line}\n`);
                socket.resume();
            });
        };

        // compiled code and warm caches in every replica before anything is measured
        await phase('warm-up', () => sleep(STEADY * 1000));
        await phase('steady, 3 replicas', () => sleep(STEADY * 1000));
        await phase('steady, 1 replica', async () => {
            for (const replica of running.replicas.slice(1)) await haproxyCommand(`disable server replicas/${replica.name}`);
            for (const replica of running.replicas.slice(1)) await running.inRotation(replica.name, false);
            await sleep(STEADY * 1000);
            for (const replica of running.replicas.slice(1)) await haproxyCommand(`enable server replicas/${replica.name}`);
            for (const replica of running.replicas.slice(1)) await running.inRotation(replica.name, true);
        });
        await phase('rolling restart', () => fault('rolling-restart', async () => {
            for (const replica of running.replicas) {
                const code = await replica.stop();
                stateText.push(`${replica.name} stopped by SIGTERM with exit status ${code}`);
                await replica.start();
                await running.inRotation(replica.name, true);
            }
        }));
        // the next fault begins once the restart's last requests are answered
        await phase('steady after the rolling restart', () => sleep(AFTER_FAULT * 1000));
        await phase('kill -9', async () => {
            const victim = running.replicas[1]!;
            await fault('kill', async () => {
                await victim.kill();
                // the window closes when HAProxy took the dead replica out of rotation
                await running.inRotation(victim.name, false);
            });
            await sleep(KILLED_FOR_MS);
            await victim.start();
            await running.inRotation(victim.name, true);
        });
        if (running.redis) {
            const redis = running.redis;
            await phase('Redis restart', async () => {
                await fault('redis-restart', () => redis.restart());
                await sleep(AFTER_FAULT * 1000);
            });
        }
        await phase('database connections of r3 terminated', async () => {
            const victim = running.replicas[2]!;
            /*
             * The fault lasts until r3 has read the end of every terminated connection, not only
             * until pg_terminate_backend answered: that only signals the backends, which then send
             * their FATAL message and exit. A backend leaves pg_stat_activity after it sent the
             * message, so once none is listed every message is on its way to r3; r3's answer to a
             * request sent after that (liveness: no database, so it does not wait for the recovery)
             * comes from an event loop that has read them, and its pool has dropped those connections.
             */
            await fault('db-connections-terminated', async () => {
                const client = new pg.Client({ connectionString: database.url });
                await client.connect();
                try {
                    // its pools' connections carry the name its DB_URL gives; the PostgreSQL bus's listener
                    // (--no-redis) renames itself `realmgate_bus_<deployment>:<pid>` (bus/postgres-bus.ts)
                    const killed = await client.query<{ pid: number; terminated: boolean }>(
                        `SELECT pid, pg_terminate_backend(pid) AS terminated FROM pg_stat_activity
                         WHERE datname = current_database() AND (application_name = $1 OR application_name LIKE $2)`,
                        [`realmgate-${victim.name}`, `realmgate\\_bus\\_%:${victim.pid}`]);
                    const pids = killed.rows.filter((row) => row.terminated).map((row) => row.pid);
                    await until(async () => (await client.query('SELECT 1 FROM pg_stat_activity WHERE pid = ANY($1)', [pids])).rowCount === 0, 'the terminated backends to exit');
                    stateText.push(`terminated ${pids.length} database connections of ${victim.name}`);
                } finally {
                    await client.end();
                }
                await until(async () => (await fetch(`${victim.url}/health`).then(async (response) => (await response.arrayBuffer(), response.status), () => 0)) === 200, `${victim.name} to answer`);
            });
            await sleep(AFTER_FAULT * 1000);
        });
        await phase('key rotated, user deactivated, session revoked', async () => {
            await fault('revocations', async () => {
                const probeEverywhere = async (session: Session) => {
                    for (const replica of running.replicas) {
                        await load.bearerRead(session, replica.url, replica.name);
                        await load.introspect(session, replica.url, replica.name);
                    }
                };
                // a session of the victim, and one of a load user signed with the key about to go
                const victimSession = load.sessions.find((session) => session.userId === fixtures.victim.id && !session.dead);
                // rotation: a new signing key with a higher priority, then the old one deleted
                const keys = await api<{ data: { id: string }[] }>(running.url, 'GET', `/keys?filter[realmId]=${fixtures.realmId}`, fixtures.adminBearer);
                const oldKeyIds = keys.body.data.map((key) => key.id);
                await created(running.url, fixtures.adminBearer, 'keys', { realmId: fixtures.realmId, use: 'sig', algorithm: 'ES256', priority: 100 });
                const oldKeySession = load.sessions.find((session) => !session.dead && oldKeyIds.includes(session.kid));
                for (const id of oldKeyIds) {
                    const deleted = await api(running.url, 'DELETE', `/keys/${id}`, fixtures.adminBearer);
                    if (deleted.status !== 200 && deleted.status !== 204) throw new Error(`DELETE /keys/${id} answered ${deleted.status}: ${JSON.stringify(deleted.body)}`);
                    revocations.push({ kind: 'key-deleted', id, acknowledgedAt: recorder.now() });
                }
                if (oldKeySession) await probeEverywhere(oldKeySession);
                const deactivated = await api(running.url, 'POST', `/users/${fixtures.victim.id}`, fixtures.adminBearer, { active: false });
                if (deactivated.status !== 200) throw new Error(`POST /users/${fixtures.victim.id} answered ${deactivated.status}: ${JSON.stringify(deactivated.body)}`);
                revocations.push({ kind: 'user-deactivated', id: fixtures.victim.id, acknowledgedAt: recorder.now() });
                if (victimSession) await probeEverywhere(victimSession);
                // a session signed in after the rotation, revoked (RFC 7009) by its client
                const fresh = load.sessions.filter((session) => !session.dead && session.userId !== fixtures.victim.id && !oldKeyIds.includes(session.kid));
                const revoked = fresh[0];
                if (revoked) {
                    const answer = await fetch(`${running.url}/token/revoke`, {
                        method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
                        body: new URLSearchParams({ token: revoked.refresh, token_type_hint: 'refresh_token', client_id: fixtures.publicClientId }),
                    });
                    if (answer.status !== 200) throw new Error(`POST /token/revoke answered ${answer.status}: ${await answer.text()}`);
                    revocations.push({ kind: 'session-revoked', id: revoked.sessionId, acknowledgedAt: recorder.now() });
                    await probeEverywhere(revoked);
                }
                stateText.push(`revocations probed on every replica: ${revocations.map((revocation) => revocation.kind).join(', ')}`);
            });
            await sleep(AFTER_FAULT * 1000);
        });
        await phase('steady after the faults', () => sleep(STEADY * 1000));
        stop = true;
        const loadError = await workers;
        if (loadError) throw loadError;

        const found = new Set<string>();
        if (recorder.writes.length > 0) {
            const client = new pg.Client({ connectionString: database.url });
            await client.connect();
            const rows = await client.query<{ id: string }>('SELECT id FROM auth_roles WHERE id = ANY($1)', [recorder.writes.map((write) => write.id)]);
            await client.end();
            for (const row of rows.rows) found.add(row.id);
        }
        const log: SoakLog = { requests: recorder.requests, faults, revocations, writes: recorder.writes, found, phases };
        const verdicts = judge(log);
        const [, threeReplicas, oneReplica] = phases;
        const throughput = (p: Phase) => recorder.requests.filter((r) => !r.replica && r.sentAt >= p.start && r.sentAt < p.end).length / ((p.end - p.start) / 1000);
        const report = renderReport(log, verdicts, {
            title: `Soak report (${short ? 'short' : 'long'} form, ${new Date().toISOString().slice(0, 10)})`,
            lines: [
                `Command: \`npm run soak${short ? ' -- --short' : ''}${useRedis ? '' : ' -- --no-redis'}\`; ${WORKERS} concurrent clients through HAProxy to 3 replicas on PostgreSQL${useRedis ? ' with Redis' : ' (PostgreSQL bus)'}.`,
                `Machine: ${cpus().length} × ${cpus()[0]?.model ?? 'CPU'}, load average at the end ${loadavg().map((value) => value.toFixed(1)).join(' / ')} (the load generator, HAProxy, PostgreSQL and Redis share it).`,
                `Throughput 3 replicas ÷ 1 replica: ${(throughput(threeReplicas!) / throughput(oneReplica!)).toFixed(2)} (${throughput(threeReplicas!).toFixed(1)} ÷ ${throughput(oneReplica!).toFixed(1)} req/s).`,
                `Wall time ${((Date.now() - started) / 1000).toFixed(0)} s.`,
                ...stateText.map((line) => `- ${line}`),
            ],
        });
        process.stdout.write(`${report}\n`);
        if (reportFile) writeFileSync(reportFile, `${report}\n`);
        return verdicts.every((verdict) => verdict.violations.length === 0) ? 0 : 1;
    } finally {
        await cleanUp();
    }
}

main().then((code) => process.exit(code), (error: unknown) => {
    process.stderr.write(`soak: failed: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.stdout.write('invariants: 1 violated soak-completed\n');
    process.exit(1);
});
