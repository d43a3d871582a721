import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { withStatementCache } from './sqlite-statement-cache.js';

/** A real in-memory SQLite whose prepare calls are counted, by text. */
function countingDatabase() {
    const database = new Database(':memory:');
    const prepared: string[] = [];
    const prepare = database.prepare.bind(database);
    database.prepare = ((source: string) => {
        prepared.push(source);
        return prepare(source);
    }) as typeof database.prepare;
    return { database, prepared };
}

describe('withStatementCache', () => {
    const opened: { close(): void }[] = [];
    afterEach(() => {
        for (const database of opened.splice(0)) database.close();
    });

    it('prepares a text once and runs the kept statement again', () => {
        const { database, prepared } = countingDatabase();
        const cached = withStatementCache(database);
        opened.push(cached);
        cached.prepare('create table t (id integer primary key, name text)').run([]);
        const insert = cached.prepare('insert into t (name) values (?)');
        insert.run(['a']);
        expect(cached.prepare('insert into t (name) values (?)')).toBe(insert);
        cached.prepare('insert into t (name) values (?)').run(['b']);
        expect(cached.prepare('select count(*) as n from t').all([])).toEqual([{ n: 2 }]);
        expect(prepared.filter((text) => text.startsWith('insert'))).toHaveLength(1);
    });

    it('keeps no statement that changes the schema: the migrations run each once', () => {
        const { database, prepared } = countingDatabase();
        const cached = withStatementCache(database);
        opened.push(cached);
        const create = 'create table if not exists t (id integer primary key)';
        cached.prepare(create).run([]);
        cached.prepare(create).run([]);
        cached.prepare('  ALTER TABLE t ADD COLUMN name text').run([]);
        expect(prepared.filter((text) => text === create)).toHaveLength(2);
    });

    it('drops the least recently used text when full', () => {
        const { database, prepared } = countingDatabase();
        const cached = withStatementCache(database, 2);
        opened.push(cached);
        cached.prepare('select 1');
        cached.prepare('select 2');
        // a hit makes `select 1` the most recent: `select 2` goes when `select 3` comes
        cached.prepare('select 1');
        cached.prepare('select 3');
        cached.prepare('select 1');
        cached.prepare('select 2');
        expect(prepared).toEqual(['select 1', 'select 2', 'select 3', 'select 2']);
    });
});
