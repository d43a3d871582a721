import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './network.js';

/*
 * A real PgBouncer in transaction pooling in front of the test PostgreSQL server: Debian's
 * pgbouncer 1.18 (`.ci/run` installs it; the Debian service is never started), run from a
 * generated pgbouncer.ini in a temporary directory on a free loopback port, stopped and removed
 * afterwards. 1.18 keeps no prepared statements in transaction mode (that came with 1.21's
 * max_prepared_statements), which is what DB_NAMED_STATEMENTS=false is for.
 */

const PGBOUNCER = process.env.PGBOUNCER_PATH ?? '/usr/sbin/pgbouncer';

/** Why the PgBouncer suite cannot run here, or undefined when it can. */
export function pgbouncerUnavailable(): string | undefined {
    if (!process.env.TEST_POSTGRES_URL) return 'TEST_POSTGRES_URL is unset';
    if (!existsSync(PGBOUNCER)) return `no pgbouncer at ${PGBOUNCER} (apt-get install -y pgbouncer, or set PGBOUNCER_PATH)`;
    return undefined;
}

export interface PgBouncer {
    /** `target`'s URL (a TEST_POSTGRES_URL database URL) with PgBouncer's address in place of the server's */
    urlOf(target: string): string;
    /** everything PgBouncer wrote (it logs to stderr) */
    output: string[];
    stop(): Promise<void>;
}

async function answers(port: number): Promise<boolean> {
    return new Promise((resolve) => {
        const socket = connect(port, '127.0.0.1', () => {
            socket.end();
            resolve(true);
        });
        socket.on('error', () => resolve(false));
    });
}

/**
 * Starts PgBouncer in pool_mode=transaction for every database of `serverUrl`'s server, with
 * `serverConnections` server connections per database and user: fewer than the clients' pool, so
 * consecutive transactions of one client land on different server connections.
 */
export async function startPgBouncer(serverUrl: string, serverConnections: number): Promise<PgBouncer> {
    const server = new URL(serverUrl);
    const user = decodeURIComponent(server.username) || 'postgres';
    const password = decodeURIComponent(server.password);
    const dir = await mkdtemp(join(tmpdir(), 'realmgate-pgbouncer-'));
    const port = await freePort();
    const quote = (value: string) => `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
    const target = [`host=${server.hostname}`, `port=${server.port || '5432'}`, `user=${user}`, ...(password ? [`password=${quote(password)}`] : [])].join(' ');
    await writeFile(join(dir, 'users.txt'), `"${user}" ""\n`);
    await writeFile(join(dir, 'pgbouncer.ini'), [
        '[databases]',
        `* = ${target}`,
        '[pgbouncer]',
        'listen_addr = 127.0.0.1',
        `listen_port = ${port}`,
        'unix_socket_dir =',
        // the clients are trusted (loopback, throw-away databases); PgBouncer logs in to the server as `user`
        'auth_type = trust',
        `auth_file = ${join(dir, 'users.txt')}`,
        'pool_mode = transaction',
        `default_pool_size = ${serverConnections}`,
        'max_client_conn = 200',
        '',
    ].join('\n'));
    // PgBouncer refuses to run as root: as root (CI containers) it switches to an unprivileged user,
    // which must be able to read the directory
    const asRoot = process.getuid?.() === 0;
    if (asRoot) await chmod(dir, 0o755);
    const child: ChildProcess = spawn(PGBOUNCER, [...(asRoot ? ['-u', 'nobody'] : []), join(dir, 'pgbouncer.ini')], { stdio: ['ignore', 'pipe', 'pipe'] });
    const output: string[] = [];
    child.stdout!.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    let up = false;
    for (let attempt = 0; attempt < 200 && !up && child.exitCode === null; attempt++) {
        up = await answers(port);
        if (!up) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    if (!up) {
        child.kill('SIGKILL');
        await exited;
        await rm(dir, { recursive: true, force: true });
        throw new Error(`pgbouncer did not start: ${output.join('')}`);
    }
    return {
        urlOf(targetUrl) {
            const url = new URL(targetUrl);
            url.hostname = '127.0.0.1';
            url.port = String(port);
            return url.toString();
        },
        output,
        async stop() {
            if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
            await exited;
            await rm(dir, { recursive: true, force: true });
        },
    };
}
