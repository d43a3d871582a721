#!/usr/bin/env node
/**
 * A Realmgate cluster on one machine: three `realmgate start` processes on loopback ports, HAProxy
 * in front (haproxy.cfg beside this file: health checks on /health/ready, retries on connection
 * failure, layer-7 retries for GET and HEAD only), PostgreSQL, and a Redis of its own (or none: the
 * replicas' bus then runs over PostgreSQL LISTEN/NOTIFY).
 *
 *   node deploy/local-cluster/cluster.mjs [--no-redis] [--replicas N] [--database-url URL]
 *
 * Without --database-url it creates the database `cluster_<pid>` on the local PostgreSQL
 * (CLUSTER_POSTGRES_URL, default postgres://postgres@127.0.0.1:5432) and drops it when stopped.
 * Ctrl-C (or SIGTERM) stops everything in order: the replicas drain, HAProxy and Redis stop.
 *
 * The soak (bench/soak/) drives the same cluster through `startCluster`, and its faults through
 * the handles it returns: a replica's stop (SIGTERM), kill (SIGKILL) and start, Redis's restart,
 * and HAProxy's view of each replica (its stats socket).
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, openSync, closeSync, rmSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
export const ROOT = resolve(HERE, '../..');
const CLI = join(ROOT, 'packages/server/src/cli.ts');
export const ADMIN = { name: 'admin', password: 'cluster-admin-password' };

const sleep = (ms) => new Promise((wake) => setTimeout(wake, ms));

/** A port nothing listens on right now. */
export async function freePort() {
    const server = createServer();
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address();
    await new Promise((done) => server.close(done));
    return port;
}

/** Polls `check` every 50 ms until it holds; `what` names it when `timeoutMs` passes first. */
export async function until(check, what, timeoutMs = 120_000) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
        if (await check()) return;
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
        await sleep(50);
    }
}

async function answers(url) {
    try {
        const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
        await response.arrayBuffer();
        return response.status;
    } catch {
        return 0;
    }
}

/** One line to a Unix or TCP socket, the whole answer back (HAProxy's stats socket, Redis's PING). */
function ask(target, line) {
    return new Promise((resolveAnswer, reject) => {
        const socket = connect(target);
        let text = '';
        socket.setEncoding('utf8');
        socket.on('data', (chunk) => {
            text += chunk;
            if (target.port && text.includes('\r\n')) socket.end();
        });
        socket.on('end', () => resolveAnswer(text));
        socket.on('close', () => resolveAnswer(text));
        socket.on('error', reject);
        socket.write(`${line}\r\n`);
    });
}

function spawnLogged(command, args, env, logFile) {
    const fd = openSync(logFile, 'a');
    const child = spawn(command, args, { cwd: ROOT, env, stdio: ['ignore', fd, fd] });
    closeSync(fd);
    const exited = new Promise((done) => child.once('exit', (code, signal) => done(code ?? signal)));
    return { child, exited };
}

/** A redis-server of the cluster's own on a free port: the machine's shared Redis is never restarted. */
async function startRedis(workDir) {
    const port = await freePort();
    let running;
    const pong = async () => (await ask({ host: '127.0.0.1', port }, 'PING').catch(() => '')).startsWith('+PONG');
    const redis = {
        port,
        url: `redis://127.0.0.1:${port}`,
        async start() {
            running = spawnLogged('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', workDir],
                process.env, join(workDir, 'redis.log'));
            await until(pong, `redis-server on ${port}`);
        },
        async stop() {
            if (!running || running.child.exitCode !== null || running.child.signalCode !== null) return;
            running.child.kill('SIGTERM');
            await running.exited;
        },
        /** stopped (its keys gone: no persistence), then started again on the same port */
        async restart() {
            await redis.stop();
            await redis.start();
        },
    };
    await redis.start();
    return redis;
}

function createReplica(name, port, env, workDir) {
    let running;
    const url = `http://127.0.0.1:${port}`;
    const replica = {
        name,
        port,
        url,
        get pid() {
            return running?.child.pid;
        },
        get alive() {
            return running !== undefined && running.child.exitCode === null && running.child.signalCode === null;
        },
        /** spawned and answering /health/ready with 200 */
        async start() {
            running = spawnLogged(process.execPath, ['--conditions=source', '--import', 'tsx', CLI, 'start'],
                { ...env, PORT: String(port) }, join(workDir, `${name}.log`));
            const current = running;
            await until(async () => {
                if (current.child.exitCode !== null) throw new Error(`${name} exited during boot (${join(workDir, `${name}.log`)})`);
                return (await answers(`${url}/health/ready`)) === 200;
            }, `${name} ready`);
        },
        /** SIGTERM: the replica drains (SHUTDOWN_DRAIN_MS) and exits; resolves with its exit code */
        async stop() {
            if (!replica.alive) return undefined;
            running.child.kill('SIGTERM');
            return running.exited;
        },
        /** kill -9: nothing drains, nothing is flushed */
        async kill() {
            if (!replica.alive) return undefined;
            running.child.kill('SIGKILL');
            return running.exited;
        },
    };
    return replica;
}

/**
 * Starts the cluster on `databaseUrl` (an existing, empty or migrated PostgreSQL database).
 * `env` is added to every replica's environment (the soak lifts the rate limits this way).
 */
export async function startCluster({ databaseUrl, replicas: count = 3, redis: useRedis = true, drainMs = 5_000, env = {}, log = () => {} }) {
    const workDir = mkdtempSync(join(tmpdir(), 'realmgate-cluster-'));
    const frontPort = await freePort();
    const publicUrl = `http://127.0.0.1:${frontPort}`;
    const redis = useRedis ? await startRedis(workDir) : undefined;
    if (redis) log(`redis-server on ${redis.url}`);
    const shared = {
        ...process.env,
        NODE_ENV: 'production',
        HOST: '127.0.0.1',
        // one issuer for every replica: each accepts what another issued
        PUBLIC_URL: publicUrl,
        DB_TYPE: 'postgres',
        DB_POOL_SIZE: '6',
        SECRETS_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
        DPOP_NONCE_SECRET: randomBytes(32).toString('hex'),
        USER_ADMIN_NAME: ADMIN.name,
        USER_ADMIN_PASSWORD: ADMIN.password,
        SHUTDOWN_DRAIN_MS: String(drainMs),
        LOG_LEVEL: 'warn',
        ...(redis ? { REDIS_URL: redis.url } : {}),
        ...env,
    };
    if (!redis) delete shared.REDIS_URL;
    const replicas = [];
    for (let index = 1; index <= count; index++) {
        const name = `r${index}`;
        const url = new URL(databaseUrl);
        // pg_stat_activity names each replica's connections (the soak terminates one replica's)
        url.searchParams.set('application_name', `realmgate-${name}`);
        replicas.push(createReplica(name, await freePort(), { ...shared, DB_URL: url.toString() }, workDir));
    }
    // the first migrates the database alone; the others boot on it together; a failed boot
    // stops what did start, so no process outlives the attempt
    try {
        await replicas[0].start();
        await Promise.all(replicas.slice(1).map((replica) => replica.start()));
    } catch (error) {
        await Promise.all(replicas.map((replica) => replica.kill()));
        await redis?.stop();
        throw error;
    }
    log(`replicas ${replicas.map((replica) => `${replica.name} ${replica.url}`).join(', ')}`);

    const statsSocket = join(workDir, 'haproxy.sock');
    const haproxyEnv = { ...process.env, FRONT_PORT: String(frontPort), STATS_SOCKET: statsSocket };
    replicas.forEach((replica, index) => {
        haproxyEnv[`REPLICA_${index + 1}_PORT`] = String(replica.port);
    });
    const haproxy = spawnLogged('haproxy', ['-db', '-f', join(HERE, 'haproxy.cfg')], haproxyEnv, join(workDir, 'haproxy.log'));
    /** HAProxy's operational state of each server: true when it is in rotation */
    const rotation = async () => {
        const text = await ask({ path: statsSocket }, 'show servers state replicas').catch(() => '');
        const states = new Map();
        for (const line of text.split('\n')) {
            const fields = line.trim().split(/\s+/);
            // "be_id be_name srv_id srv_name srv_addr srv_op_state …": 2 is running
            if (fields.length > 5 && fields[1] === 'replicas') states.set(fields[3], fields[5] === '2');
        }
        return states;
    };
    const inRotation = (name, wanted) => until(async () => (await rotation()).get(name) === wanted, `HAProxy to see ${name} ${wanted ? 'up' : 'down'}`);
    for (const replica of replicas) await inRotation(replica.name, true);
    log(`haproxy on ${publicUrl}`);

    return {
        url: publicUrl,
        workDir,
        replicas,
        redis,
        rotation,
        inRotation,
        async stop({ keepLogs = false } = {}) {
            await Promise.all(replicas.map((replica) => replica.stop()));
            if (haproxy.child.exitCode === null) {
                haproxy.child.kill('SIGTERM');
                await haproxy.exited;
            }
            await redis?.stop();
            if (!keepLogs) rmSync(workDir, { recursive: true, force: true });
        },
    };
}

/** A fresh database on the local PostgreSQL, and its drop. */
export async function createClusterDatabase(name, serverUrl = process.env.CLUSTER_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432') {
    const { default: pg } = await import('pg');
    const on = (database) => {
        const url = new URL(serverUrl);
        url.pathname = `/${database}`;
        return url.toString();
    };
    const admin = async (statement) => {
        const client = new pg.Client({ connectionString: on('postgres') });
        await client.connect();
        try {
            await client.query(statement);
        } finally {
            await client.end();
        }
    };
    await admin(`CREATE DATABASE ${name}`);
    return { url: on(name), drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

async function main() {
    const args = process.argv.slice(2);
    const option = (flag) => {
        const at = args.indexOf(flag);
        return at >= 0 ? args[at + 1] : undefined;
    };
    const given = option('--database-url');
    const database = given ? { url: given, drop: async () => {} } : await createClusterDatabase(`cluster_${process.pid}`);
    const log = (line) => process.stdout.write(`cluster: ${line}\n`);
    let cluster;
    const stop = async () => {
        log('stopping: replicas drain, then HAProxy and Redis stop');
        await cluster?.stop();
        await database.drop();
        log('stopped');
        process.exit(0);
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    try {
        cluster = await startCluster({
            databaseUrl: database.url,
            replicas: Number(option('--replicas') ?? 3),
            redis: !args.includes('--no-redis'),
            log,
        });
    } catch (error) {
        log(`failed: ${error.message}`);
        await database.drop();
        process.exit(1);
    }
    log(`ready: ${cluster.url} (administrator ${ADMIN.name} / ${ADMIN.password}); logs in ${cluster.workDir}; Ctrl-C stops`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
