import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createConnection } from 'mysql2/promise';
import { freePort } from './network.js';

/*
 * A throw-away MariaDB primary and replica for the replication suite (db.replication; spec Versioning): two
 * `mariadbd` processes on loopback ports, each on a fresh data folder, the second replicating the
 * first (GTID). The binaries come with the MariaDB server the MySQL tests already need.
 */

const run = promisify(execFile);

export interface ReplicatedPair {
    primaryUrl: string;
    replicaUrl: string;
    /** stops applying the primary's changes on the replica (a replica lagging behind) */
    pause(): Promise<void>;
    resume(): Promise<void>;
    /** waits until the replica has applied everything the primary wrote so far */
    caughtUp(): Promise<void>;
    stop(): Promise<void>;
}

async function untilAccepting(url: string, server: ChildProcess, log: () => string): Promise<void> {
    for (;;) {
        if (server.exitCode !== null) throw new Error(`mariadbd exited: ${log()}`);
        try {
            const connection = await createConnection(url);
            await connection.end();
            return;
        } catch {
            await new Promise((wake) => setTimeout(wake, 100));
        }
    }
}

async function query(url: string, statement: string): Promise<unknown[]> {
    const connection = await createConnection(url);
    try {
        const [rows] = await connection.query(statement);
        return rows as unknown[];
    } finally {
        await connection.end();
    }
}

export async function startReplicatedPair(): Promise<ReplicatedPair> {
    const folder = await mkdtemp(join(tmpdir(), 'realmgate-replication-'));
    await run('mariadb-install-db', ['--no-defaults', `--datadir=${join(folder, 'primary')}`, '--auth-root-authentication-method=normal', '--skip-test-db']);
    await cp(join(folder, 'primary'), join(folder, 'replica'), { recursive: true });
    const servers: ChildProcess[] = [];
    const start = async (name: 'primary' | 'replica', serverId: number, extra: string[]): Promise<string> => {
        const port = await freePort();
        const output: string[] = [];
        const server = spawn('mariadbd', [
            '--no-defaults', ...(process.getuid?.() === 0 ? ['--user=root'] : []), `--datadir=${join(folder, name)}`, `--port=${port}`, '--bind-address=127.0.0.1',
            `--socket=${join(folder, `${name}.sock`)}`, `--pid-file=${join(folder, `${name}.pid`)}`, `--server-id=${serverId}`, '--skip-name-resolve', ...extra,
        ], { stdio: ['ignore', 'pipe', 'pipe'] });
        server.stdout!.on('data', (chunk: Buffer) => output.push(chunk.toString()));
        server.stderr!.on('data', (chunk: Buffer) => output.push(chunk.toString()));
        servers.push(server);
        const url = `mysql://root@127.0.0.1:${port}`;
        await untilAccepting(url, server, () => output.join(''));
        return url;
    };
    const stop = async () => {
        await Promise.all(servers.map((server) => new Promise<void>((done) => {
            if (server.exitCode !== null) return done();
            server.once('exit', () => done());
            server.kill('SIGTERM');
        })));
        await rm(folder, { recursive: true, force: true });
    };
    try {
        const primaryUrl = await start('primary', 1, [`--log-bin=${join(folder, 'primary-bin')}`, '--binlog-format=ROW']);
        const replicaUrl = await start('replica', 2, []);
        await query(primaryUrl, "CREATE USER 'replication'@'127.0.0.1' IDENTIFIED BY 'replication'");
        await query(primaryUrl, "GRANT REPLICATION SLAVE ON *.* TO 'replication'@'127.0.0.1'");
        const port = new URL(primaryUrl).port;
        await query(replicaUrl, `CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT=${port}, MASTER_USER='replication', MASTER_PASSWORD='replication', MASTER_USE_GTID=current_pos`);
        await query(replicaUrl, 'START SLAVE');
        return {
            primaryUrl,
            replicaUrl,
            pause: async () => { await query(replicaUrl, 'STOP SLAVE SQL_THREAD'); },
            resume: async () => { await query(replicaUrl, 'START SLAVE SQL_THREAD'); },
            async caughtUp() {
                const [position] = await query(primaryUrl, 'SELECT @@gtid_binlog_pos AS pos') as { pos: string }[];
                await query(replicaUrl, `SELECT MASTER_GTID_WAIT('${position!.pos}')`);
            },
            stop,
        };
    } catch (error) {
        await stop();
        throw error;
    }
}
