import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import type { DialectName } from '../src/db/values.js';
import { ADMIN, basicHeader } from './app.js';
import { createTestDatabase, type TestDatabase } from './databases.js';
import { startServer, stopServer, type ServerProcess } from './server-process.js';

export interface Replicas {
    a: ServerProcess;
    b: ServerProcess;
    /** the database both replicas serve (a write behind their backs, pg_stat_activity) */
    database: TestDatabase;
    /** the bootstrap administrator's Basic header */
    admin: string;
    call(replica: ServerProcess, path: string, init?: RequestInit): Promise<Response>;
    /** a form POST (the token routes) */
    post(replica: ServerProcess, path: string, body: Record<string, string>, authorization?: string, headers?: Record<string, string>): Promise<Response>;
    /** a JSON request as the administrator, answered with `status` */
    json<T>(replica: ServerProcess, method: string, path: string, body: unknown, status: number): Promise<T>;
}

/**
 * Two server processes on one fresh database, booted together: the migration lock lets exactly one
 * migrate and bootstrap. Stopped and dropped after the suite. They share the Redis of
 * TEST_REDIS_URL when it is set, unless `redis` is false: then their bus is PostgreSQL's
 * LISTEN/NOTIFY on PostgreSQL, and none on MySQL. `env` adds variables both replicas start with
 * (one PUBLIC_URL for both, as behind a load balancer).
 */
export function useReplicas(dialect: DialectName, { redis = Boolean(process.env.TEST_REDIS_URL), env: extra = {} }: { redis?: boolean; env?: Record<string, string> } = {}): Replicas {
    let database: TestDatabase | undefined;
    let directory: string | undefined;
    const servers: ServerProcess[] = [];
    beforeAll(async () => {
        if (redis && !process.env.TEST_REDIS_URL) throw new Error('replicas on Redis need TEST_REDIS_URL');
        database = await createTestDatabase(dialect);
        directory = await mkdtemp(join(tmpdir(), 'realmgate-replicas-'));
        const env = {
            DB_TYPE: dialect, DB_URL: database.location, WRITABLE_DIRECTORY_PATH: directory,
            ...(redis ? { REDIS_URL: process.env.TEST_REDIS_URL! } : {}),
            ...extra,
        };
        servers.push(...await Promise.all([startServer(env), startServer(env)]));
    });
    afterAll(async () => {
        await Promise.all(servers.map(stopServer));
        await database?.drop();
        if (directory) await rm(directory, { recursive: true, force: true });
    });
    const admin = basicHeader(ADMIN.name, ADMIN.password);
    const call = (replica: ServerProcess, path: string, init: RequestInit = {}) => fetch(`${replica.url}${path}`, init);
    return {
        get a() { return servers[0]!; },
        get b() { return servers[1]!; },
        get database() { return database!; },
        admin,
        call,
        post: (replica, path, body, authorization, headers = {}) => call(replica, path, {
            method: 'POST',
            headers: { 'content-type': 'application/x-www-form-urlencoded', ...(authorization ? { authorization } : {}), ...headers },
            body: new URLSearchParams(body),
        }),
        async json<T>(replica: ServerProcess, method: string, path: string, body: unknown, status: number): Promise<T> {
            const response = await call(replica, path, {
                method, headers: { authorization: admin, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
                ...(body === undefined ? {} : { body: JSON.stringify(body) }),
            });
            const text = await response.text();
            if (response.status !== status) throw new Error(`${method} ${path}: expected ${status}, got ${response.status} ${text}`);
            return (text ? JSON.parse(text) : undefined) as T;
        },
    };
}
