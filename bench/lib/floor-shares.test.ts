import { describe, expect, it } from 'vitest';
import { FLOOR_KINDS, FLOORED, floorKey, floorSection, floorTargetSection, roundGroup, shareOf, shareTarget } from './floor-shares.js';
import type { Measured } from './scenarios.js';

const rate = (rps: number, errors = 0): Measured => ({ rps, p50: 1, p99: 2, errors });

describe('the share of the floor', () => {
    it('divides the Realmgate rate by the floor rate', () => {
        expect(shareOf(rate(3_000), rate(4_000))).toBe(0.75);
    });

    it('is unknown when either side was skipped or the floor answered nothing', () => {
        expect(shareOf({ ...rate(0), skipped: 'route answers 404' }, rate(4_000))).toBeNaN();
        expect(shareOf(rate(3_000), { ...rate(0), skipped: 'x' })).toBeNaN();
        expect(shareOf(rate(3_000), rate(0))).toBeNaN();
    });
});

describe('the share-of-floor targets', () => {
    it('asks 0.8 of the lookups and 0.6 of the exchanges on SQLite, 0.6 and 0.5 on PostgreSQL with or without Redis, nothing on MySQL', () => {
        expect(['cc', 'introspect', 'me', 'userinfo'].map((key) => shareTarget('sqlite', key))).toEqual([0.8, 0.8, 0.8, 0.8]);
        expect(['redeem', 'refresh'].map((key) => shareTarget('sqlite', key))).toEqual([0.6, 0.6]);
        for (const choice of ['postgres', 'postgres+redis'] as const) {
            expect(['cc', 'introspect', 'me', 'userinfo'].map((key) => shareTarget(choice, key))).toEqual([0.6, 0.6, 0.6, 0.6]);
            expect(['redeem', 'refresh'].map((key) => shareTarget(choice, key))).toEqual([0.5, 0.5]);
        }
        expect(shareTarget('mysql', 'cc')).toBeUndefined();
        expect(shareTarget('sqlite', 'catalog')).toBeUndefined();
    });

    it('gives every protocol scenario a floor, the bearer floor for both bearer reads', () => {
        expect(Object.fromEntries(FLOORED.map(({ key, floor }) => [key, floor]))).toEqual({
            cc: 'token', introspect: 'introspect', me: 'bearer', userinfo: 'bearer', redeem: 'redeem', refresh: 'refresh',
        });
        expect(new Set(FLOORED.map(({ floor }) => floor))).toEqual(new Set(FLOOR_KINDS));
    });

    const rates: Record<string, number> = {
        oidcJwt: 3_000,
        [floorKey('sqlite', 'token')]: 4_000, [floorKey('sqlite', 'introspect')]: 5_000, [floorKey('sqlite', 'bearer')]: 8_000,
        [floorKey('sqlite', 'redeem')]: 2_000, [floorKey('sqlite', 'refresh')]: 2_500,
        'sqlite:cc': 3_600, 'sqlite:introspect': 3_000, 'sqlite:me': 6_400, 'sqlite:userinfo': 6_000, 'sqlite:redeem': 1_200, 'sqlite:refresh': 1_000,
        [floorKey('postgres', 'token')]: 3_000, [floorKey('postgres', 'introspect')]: 4_000, [floorKey('postgres', 'bearer')]: 6_000,
        [floorKey('postgres', 'redeem')]: 1_500, [floorKey('postgres', 'refresh')]: 2_000,
        'postgres:cc': 1_800, 'postgres:introspect': 2_000, 'postgres:me': 3_000, 'postgres:userinfo': 3_600, 'postgres:redeem': 750, 'postgres:refresh': 900,
        'postgres+redis:cc': 2_400, 'postgres+redis:introspect': 3_000, 'postgres+redis:me': 4_800, 'postgres+redis:userinfo': 4_800,
        'postgres+redis:redeem': 900, 'postgres+redis:refresh': 1_000,
        [floorKey('mysql', 'token')]: 2_000, 'mysql:cc': 1_000,
    };
    const errors: Record<string, number> = { 'postgres:refresh': 3 };
    const measured = (key: string) => rate(rates[key]!, errors[key] ?? 0);
    const section = floorTargetSection(['sqlite', 'postgres', 'postgres+redis', 'mysql'], measured);
    const find = (scenario: string, reference: RegExp) => section.rows.find((row) => row.scenario === scenario && reference.test(row.reference ?? ''))!;

    it('sets each protocol scenario against its floor on the same engine', () => {
        expect(find('client_credentials, plain secret (SQLite)', /token floor/)).toMatchObject({ ratio: 0.9, target: '≥ 0.8 ×', met: true, reference: 'token floor (SQLite)' });
        expect(find('introspection, 50 grants (SQLite)', /floor/)).toMatchObject({ ratio: 0.6, met: false });
        expect(find('GET /userinfo (SQLite)', /floor/)).toMatchObject({ ratio: 0.75, reference: 'bearer floor (SQLite)', met: false });
        expect(find('authorization_code redemption (ES256 ID token) (SQLite)', /floor/)).toMatchObject({ ratio: 0.6, target: '≥ 0.6 ×', met: true });
        expect(find('bearer GET /users/@me (PostgreSQL)', /floor/)).toMatchObject({ ratio: 0.5, target: '≥ 0.6 ×', met: false });
        expect(find('authorization_code redemption (ES256 ID token) (PostgreSQL)', /floor/)).toMatchObject({ ratio: 0.5, target: '≥ 0.5 ×', met: true });
    });

    it('measures PostgreSQL with Redis against the PostgreSQL floors', () => {
        expect(find('client_credentials, plain secret (PostgreSQL + Redis)', /floor/)).toMatchObject({ ratio: 0.8, reference: 'token floor (PostgreSQL)', met: true });
        expect(find('bearer GET /users/@me (PostgreSQL + Redis)', /floor/)).toMatchObject({ ratio: 0.8, met: true });
    });

    it('does not call a target met when a load failed answers', () => {
        expect(find('refresh_token (rotation) (PostgreSQL)', /floor/)).toMatchObject({ ratio: 0.45, met: false });
        expect(find('refresh_token (rotation) (PostgreSQL)', /floor/).note).toMatch(/3 failed answers/);
        const clean = floorTargetSection(['postgres'], (key) => rate(key === 'postgres:refresh' ? 1_500 : rates[key]!, errors[key] ?? 0));
        expect(clean.rows.find((row) => row.scenario === 'refresh_token (rotation) (PostgreSQL)')).toMatchObject({ ratio: 0.75, met: false });
    });

    it('sets client_credentials against oidc-provider on SQLite and PostgreSQL, and nothing on MySQL', () => {
        expect(find('client_credentials, plain secret (SQLite)', /oidc-provider/)).toMatchObject({ ratio: 1.2, target: '≥ 1 ×', met: true });
        expect(find('client_credentials, plain secret (PostgreSQL)', /oidc-provider/)).toMatchObject({ ratio: 0.6, met: false });
        expect(find('client_credentials, plain secret (PostgreSQL + Redis)', /oidc-provider/)).toMatchObject({ ratio: 0.8, met: false });
        expect(section.rows.filter((row) => row.scenario.endsWith('(MySQL)'))).toEqual([]);
        // six shares and one oidc-provider row on each of the three
        expect(section.rows).toHaveLength(21);
        expect(section.title).not.toMatch(/issue/i);
    });
});

describe('the floors section', () => {
    const measured = (key: string): Measured => (key.includes('redeem') ? { ...rate(0), skipped: 'POST /authorize answered 404: skipped' } : rate(key.startsWith('floor:') ? 4_000 : 2_000));

    it('lists each floor followed by the scenarios measured against it, then the memory rows', () => {
        const section = floorSection('sqlite', measured, { floors: true, memory: [{ scenario: 'RSS after the load: token floor', note: '60 MB' }] });
        expect(section).toMatchObject({ key: 'floors', dialect: 'sqlite' });
        expect(section.rows.map((row) => row.scenario)).toEqual([
            'token floor: Basic checked, form, 1 INSERT, 1 ES256 signature',
            'client_credentials, plain secret',
            'introspect floor: Basic checked, form, 1 ES256 verification, 1 SELECT by key',
            'introspection, 50 grants',
            'bearer floor: 1 ES256 verification, 1 SELECT by key',
            'bearer GET /users/@me',
            'GET /userinfo',
            'redeem floor: form, 1 UPDATE spending a code, 1 INSERT, 3 ES256 signatures',
            'authorization_code redemption (ES256 ID token)',
            'refresh floor: form, 1 UPDATE rotating a refresh row, 2 ES256 signatures',
            'refresh_token (rotation)',
            'RSS after the load: token floor',
        ]);
        expect(section.rows[1]).toMatchObject({ rps: 2_000, ratio: 0.5, reference: 'token floor, 4,000/s' });
        expect(section.rows[0]!.ratio).toBeUndefined();
        expect(section.rows[8]).toMatchObject({ note: 'POST /authorize answered 404: skipped' });
    });

    it('names the engine of the floors for PostgreSQL with Redis, whose floors the PostgreSQL section lists', () => {
        const section = floorSection('postgres+redis', measured, { floors: false, memory: [] });
        expect(section.key).toBeUndefined();
        expect(section.rows.map((row) => row.scenario)).not.toContainEqual(expect.stringMatching(/floor:/));
        expect(section.rows[0]).toMatchObject({ scenario: 'client_credentials, plain secret', reference: 'token floor (PostgreSQL), 4,000/s' });
    });
});

describe('the groups of the rounds', () => {
    it('puts a scenario with its twins on every database and each floor with the first scenario measured against it', () => {
        expect(roundGroup('sqlite:cc')).toBe('cc');
        expect(roundGroup('postgres+redis:cc')).toBe('cc');
        expect(roundGroup('postgres:cc@large')).toBe('cc@large');
        expect(roundGroup(floorKey('postgres', 'token'))).toBe('cc');
        expect(roundGroup(floorKey('sqlite', 'bearer'))).toBe('me');
        expect(roundGroup(floorKey('mysql', 'redeem'))).toBe('redeem');
    });
});
