import { describe, expect, it } from 'vitest';
import { loadConfig } from '../config/load.js';
import { busCarrier, busConnection } from './setup.js';

describe('the bus a deployment gets', () => {
    it('is Redis with REDIS_URL, PostgreSQL\'s LISTEN/NOTIFY on PostgreSQL without it, the process alone otherwise', () => {
        const on = (env: Record<string, string>) => busCarrier(loadConfig({ WRITABLE_DIRECTORY_PATH: '/tmp/realmgate-bus-setup', ...env }));
        const postgres = { DB_TYPE: 'postgres', DB_URL: 'postgres://realmgate@db.example/realmgate' };
        const mysql = { DB_TYPE: 'mysql', DB_URL: 'mysql://realmgate@db.example/realmgate' };
        expect(on({ ...postgres, REDIS_URL: 'redis://cache.example:6379' })).toBe('redis');
        expect(on({ ...mysql, REDIS_URL: 'redis://cache.example:6379' })).toBe('redis');
        expect(on(postgres)).toBe('postgres');
        // the DB_ parts instead of DB_URL: the same database
        expect(on({ DB_TYPE: 'postgres', DB_HOST: 'db.example', DB_DATABASE: 'realmgate' })).toBe('postgres');
        expect(on(mysql)).toBe('process');
        expect(on({ DB_TYPE: 'sqlite' })).toBe('process');
    });

    it('connects PostgreSQL\'s bus through DB_BUS_URL when set (a pooler in front of DB_URL), else where the pool does', () => {
        const postgres = { WRITABLE_DIRECTORY_PATH: '/tmp/realmgate-bus-setup', DB_TYPE: 'postgres', DB_URL: 'postgres://realmgate@pgbouncer:6432/realmgate' };
        const pool = { type: 'postgres' as const, url: postgres.DB_URL };
        expect(busConnection(loadConfig(postgres), pool)).toEqual({ connectionString: 'postgres://realmgate@pgbouncer:6432/realmgate' });
        expect(busConnection(loadConfig({ ...postgres, DB_BUS_URL: 'postgres://realmgate@db:5432/realmgate' }), pool))
            .toEqual({ connectionString: 'postgres://realmgate@db:5432/realmgate' });
        // the DB_ parts, as the pool has them
        const parts = { type: 'postgres' as const, host: 'db', port: 5433, username: 'realmgate', password: 'pw', database: 'realmgate' };
        expect(busConnection(loadConfig({ WRITABLE_DIRECTORY_PATH: '/tmp/realmgate-bus-setup', DB_TYPE: 'postgres', DB_HOST: 'db' }), parts))
            .toEqual({ host: 'db', port: 5433, user: 'realmgate', password: 'pw', database: 'realmgate' });
    });
});
