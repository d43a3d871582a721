import { describe, expect, it } from 'vitest';
import { parseDatabases } from './dialects.js';

describe('parseDatabases', () => {
    it('reads one database or a list, in order, each once', () => {
        expect(parseDatabases('sqlite')).toEqual(['sqlite']);
        expect(parseDatabases('sqlite,postgres')).toEqual(['sqlite', 'postgres']);
        expect(parseDatabases(' postgres ,MySQL,sqlite,mysql')).toEqual(['postgres', 'mysql', 'sqlite']);
    });

    it('refuses an unknown or empty list', () => {
        expect(() => parseDatabases('sqlite,oracle')).toThrow(/unknown database oracle/);
        expect(() => parseDatabases(',')).toThrow(/no database/);
    });
});
