import { describe, expect, it } from 'vitest';
import { compareWithSqlite, formatMarkdown, formatRatio, formatText, formatTrips, versusLabel, type Section } from './report.js';

const sections = (): Section[] => [
    { title: 'references', rows: [{ scenario: 'bare Fastify GET', rps: 30_000 }] },
    { key: 'realmgate', dialect: 'sqlite', title: 'realmgate (sqlite)', rows: [{ scenario: 'cc', rps: 2000, roundTrips: 3 }, { scenario: 'RSS', note: '180 MB' }] },
    { key: 'realmgate', dialect: 'postgres', title: 'realmgate (postgres)', rows: [{ scenario: 'cc', rps: 1500, roundTrips: 2.5 }, { scenario: 'RSS', note: '190 MB' }, { scenario: 'only here', rps: 10 }] },
    { key: 'realmgate', dialect: 'mysql', title: 'realmgate (mysql)', rows: [{ scenario: 'cc', rps: 1000 }] },
];

describe('compareWithSqlite', () => {
    it('divides each row by the same row on SQLite and names the dialects compared', () => {
        const all = sections();
        expect(compareWithSqlite(all)).toEqual(['postgres', 'mysql']);
        expect(all[2]!.rows[0]!.versusSqlite).toEqual({ postgres: 0.75 });
        expect(all[3]!.rows[0]!.versusSqlite).toEqual({ mysql: 0.5 });
        // no rate, or no SQLite twin: nothing
        expect(all[2]!.rows[1]!.versusSqlite).toBeUndefined();
        expect(all[2]!.rows[2]!.versusSqlite).toBeUndefined();
        expect(all[1]!.rows[0]!.versusSqlite).toBeUndefined();
    });

    it('compares nothing without a SQLite section', () => {
        const all = sections().filter((section) => section.dialect !== 'sqlite');
        expect(compareWithSqlite(all)).toEqual([]);
    });
});

describe('the report columns', () => {
    it('adds a column per database compared and the round trips only when filled', () => {
        const all = sections();
        compareWithSqlite(all);
        const header = formatMarkdown(all).split('\n')[2]!;
        expect(header).toBe('| scenario | req/s | p50 ms | p99 ms | errors | ratio | reference | PostgreSQL ÷ SQLite | MySQL ÷ SQLite | target | met | db trips/req | note |');
        expect(formatMarkdown(all)).toContain('| cc | 1,500 |  |  |  |  |  | 0.75 × |  |  |  | 2.50 |  |');
        const plain = formatText([{ title: 'one', rows: [{ scenario: 'x', rps: 1 }] }]).split('\n')[0]!;
        expect(plain).toBe('scenario  req/s  p50 ms  p99 ms  errors  ratio  reference  target  met  note');
        expect(versusLabel('mysql')).toBe('MySQL ÷ SQLite');
    });

    it('formats ratios and round trips', () => {
        expect(formatRatio(0.7345)).toBe('0.73 ×');
        expect(formatRatio(undefined)).toBe('');
        expect(formatRatio(Number.NaN)).toBe('');
        expect(formatTrips(1.015)).toBe('1.01');
        expect(formatTrips(0)).toBe('0.00');
        expect(formatTrips(12.34)).toBe('12.3');
        expect(formatTrips(Number.POSITIVE_INFINITY)).toBe('');
    });
});
