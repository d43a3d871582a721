import { describe, expect, it } from 'vitest';
import { loadConfig } from '../config/load.js';
import { busCarrier } from './setup.js';

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
});
