import { describe, expect, it } from 'vitest';
import type { Measured } from './scenarios.js';
import { targetSection } from './targets.js';

const rate = (rps: number): Measured => ({ rps, p50: 1, p99: 2, errors: 0 });

describe('the database, catalog and memory targets', () => {
    const rates: Record<string, number> = {
        fastifyGet: 40_000, oidcIntrospect: 5_000, oidcJwt: 3_000,
        'sqlite:introspect': 8_000, 'sqlite:cc': 3_000, 'sqlite:me': 11_000, 'sqlite:catalog': 7_000, 'sqlite:catalog304': 10_000,
        'sqlite:list': 2_000, 'sqlite:refresh': 1_400, 'sqlite:ccSmall': 3_000,
        'sqlite:redeem': 1_000, 'sqlite:userinfo': 5_000,
        'postgres:introspect': 3_000, 'postgres:cc': 2_000, 'postgres:me': 9_000, 'postgres:catalog': 3_000, 'postgres:catalog304': 20_000,
        'postgres:list': 2_500, 'postgres:refresh': 900, 'postgres:ccSmall': 2_000,
        'postgres:redeem': 600, 'postgres:userinfo': 4_000,
    };
    const section = targetSection(['sqlite', 'postgres'], (key) => rate(rates[key]!), [{ dialect: 'sqlite', largestMb: 150 }, { dialect: 'postgres', largestMb: 250 }]);
    const find = (scenario: string) => section.rows.find((row) => row.scenario === scenario)!;

    it('sets each figure against its reference of the same run', () => {
        expect(find('introspection, 50 grants (SQLite)')).toMatchObject({ ratio: 1.6, met: true });
        expect(find('introspection, 50 grants (PostgreSQL)')).toMatchObject({ ratio: 0.6, met: false, target: '≥ 0.75 ×' });
        expect(find('bearer GET /users/@me (SQLite)')).toMatchObject({ ratio: 0.275, met: false });
        expect(find('refresh rotation (PostgreSQL)')).toMatchObject({ ratio: 0.45, met: false });
        expect(find('GET /authorization, If-None-Match → 304 (PostgreSQL)')).toMatchObject({ ratio: 0.5, met: true });
    });

    it('bounds every protocol scenario on PostgreSQL by its SQLite figure', () => {
        expect(find('authorization_code redemption (PostgreSQL ÷ SQLite)')).toMatchObject({ ratio: 0.6, met: false });
        expect(find('GET /userinfo (PostgreSQL ÷ SQLite)')).toMatchObject({ ratio: 0.8, met: true });
        expect(section.rows.filter((row) => row.reference === 'the same on SQLite')).toHaveLength(8);
    });

    it('reads the recorded baselines for the catalog and the list, and the largest RSS', () => {
        expect(find('GET /authorization, 1,000 definitions (SQLite)').ratio).toBeCloseTo(7_000 / 1_335);
        expect(find('/users?page[limit]=50 with exact total (PostgreSQL)').met).toBe(true);
        expect(find('RSS after the load, largest Realmgate server (PostgreSQL)')).toMatchObject({ note: '250 MB', met: false });
    });

    it('marks a row whose reference was not measured (`--db postgres` alone: no SQLite figures) instead of failing', () => {
        const postgresOnly = Object.fromEntries(Object.entries(rates).filter(([key]) => !key.startsWith('sqlite:')));
        const alone = targetSection(['postgres'], (key) => (key in postgresOnly ? rate(postgresOnly[key]!) : undefined), [{ dialect: 'postgres', largestMb: 150 }]);
        const row = (scenario: string) => alone.rows.find((candidate) => candidate.scenario === scenario)!;
        expect(row('bearer GET /users/@me (PostgreSQL)')).toEqual({ scenario: 'bearer GET /users/@me (PostgreSQL)', reference: 'the same on SQLite', target: '≥ 0.8 ×', note: 'not measured' });
        expect(alone.rows.filter((candidate) => candidate.note === 'not measured')).toHaveLength(8);
        // the rows whose figures this run has are judged as ever
        expect(row('introspection, 50 grants (PostgreSQL)')).toMatchObject({ ratio: 0.6, met: false });
        expect(row('refresh rotation (PostgreSQL)')).toMatchObject({ ratio: 0.45, met: false });
        expect(row('RSS after the load, largest Realmgate server (PostgreSQL)')).toMatchObject({ met: true });
    });
});
