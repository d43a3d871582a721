import { describe, expect, it } from 'vitest';
import { engineOf, isFullChoice, parseDatabases } from './dialects.js';

describe('parseDatabases', () => {
    it('reads one database or a list, in order, each once', () => {
        expect(parseDatabases('sqlite')).toEqual(['sqlite']);
        expect(parseDatabases('sqlite,postgres')).toEqual(['sqlite', 'postgres']);
        expect(parseDatabases(' postgres ,MySQL,sqlite,mysql')).toEqual(['postgres', 'mysql', 'sqlite']);
        expect(parseDatabases('sqlite,postgres,postgres+redis')).toEqual(['sqlite', 'postgres', 'postgres+redis']);
    });

    it('refuses an unknown or empty list', () => {
        expect(() => parseDatabases('sqlite,oracle')).toThrow(/unknown database oracle/);
        expect(() => parseDatabases(',')).toThrow(/no database/);
    });

    it('runs PostgreSQL with Redis only beside a full pass', () => {
        expect(() => parseDatabases('postgres+redis')).toThrow(/beside a full pass/);
        expect(parseDatabases('postgres+redis,sqlite')).toEqual(['postgres+redis', 'sqlite']);
        // the protocol suite loads nothing but the protocol scenarios: it stands alone
        expect(parseDatabases('postgres+redis', true)).toEqual(['postgres+redis']);
    });
});

describe('the engine of a choice', () => {
    it('is PostgreSQL for PostgreSQL with Redis, which runs no pass of its own', () => {
        expect(engineOf('postgres+redis')).toBe('postgres');
        expect(engineOf('mysql')).toBe('mysql');
        expect(isFullChoice('postgres+redis')).toBe(false);
        expect(isFullChoice('sqlite')).toBe(true);
    });
});
