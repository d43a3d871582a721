/**
 * The share of the floor: a Realmgate protocol scenario's req/s ÷ the req/s of its floor
 * (bench/references/floor.mjs: the work that answer cannot skip, on the same engine and driver),
 * both from the same run. A share near 1 says the server adds little beyond that work; the
 * targets bound it per database. Pure: figures in, report rows out.
 */
import { CHOICE_NAMES, engineOf, type BenchChoice } from './dialects.js';
import type { BenchDialect } from './database.js';
import type { Row, Section } from './report.js';
import type { Measured } from './scenarios.js';

export type FloorKind = 'token' | 'introspect' | 'bearer' | 'redeem' | 'refresh';

/** What each floor does per request, as its row names it. */
export const FLOOR_WORK: Readonly<Record<FloorKind, string>> = {
    token: 'Basic checked, form, 1 INSERT, 1 ES256 signature',
    introspect: 'Basic checked, form, 1 ES256 verification, 1 SELECT by key',
    bearer: '1 ES256 verification, 1 SELECT by key',
    redeem: 'form, 1 UPDATE spending a code, 1 INSERT, 3 ES256 signatures',
    refresh: 'form, 1 UPDATE rotating a refresh row, 2 ES256 signatures',
};

export const FLOOR_KINDS = Object.keys(FLOOR_WORK) as FloorKind[];

/** Each protocol scenario (its key in the rounds, without the database) and the floor it is measured against. */
export const FLOORED: readonly { key: string; title: string; floor: FloorKind }[] = [
    { key: 'cc', title: 'client_credentials, plain secret', floor: 'token' },
    { key: 'introspect', title: 'introspection, 50 grants', floor: 'introspect' },
    { key: 'me', title: 'bearer GET /users/@me', floor: 'bearer' },
    { key: 'userinfo', title: 'GET /userinfo', floor: 'bearer' },
    { key: 'redeem', title: 'authorization_code redemption (ES256 ID token)', floor: 'redeem' },
    { key: 'refresh', title: 'refresh_token (rotation)', floor: 'refresh' },
];

/**
 * The least share of its floor each protocol scenario should reach. Lookups and single writes
 * (client_credentials, introspection, the bearer reads) leave less room for the server's own
 * work than the code and refresh exchanges, which check more before they write; a network round
 * trip per statement (PostgreSQL) weighs on the server's extra statements. MySQL has no targets.
 */
const SHARE_TARGETS: Partial<Record<BenchChoice, Readonly<Record<string, number>>>> = {
    'sqlite': { cc: 0.8, introspect: 0.8, me: 0.8, userinfo: 0.8, redeem: 0.6, refresh: 0.6 },
    'postgres': { cc: 0.6, introspect: 0.6, me: 0.6, userinfo: 0.6, redeem: 0.5, refresh: 0.5 },
    'postgres+redis': { cc: 0.6, introspect: 0.6, me: 0.6, userinfo: 0.6, redeem: 0.5, refresh: 0.5 },
};

/** client_credentials against oidc-provider's, on these databases */
const OIDC_CC_TARGET = 1;
const OIDC_CC_CHOICES: readonly BenchChoice[] = ['sqlite', 'postgres', 'postgres+redis'];

export function shareTarget(choice: BenchChoice, key: string): number | undefined {
    return SHARE_TARGETS[choice]?.[key];
}

/** The key of a floor's scenario in the rounds: one floor per kind and engine. */
export function floorKey(engine: BenchDialect, kind: FloorKind): string {
    return `floor:${engine}:${kind}`;
}

/**
 * The group a scenario's key belongs to in the rounds: the same work on every database, and the
 * floor beside the first scenario measured against it (bench/lib/scenarios.ts interleave).
 */
export function roundGroup(key: string): string {
    const [head, ...rest] = key.split(':');
    if (head === 'floor') return FLOORED.find((entry) => entry.floor === rest[1])?.key ?? key;
    return rest.join(':');
}

/** Realmgate req/s ÷ floor req/s; NaN when either was skipped or the floor answered nothing. */
export function shareOf(realmgate: Measured, floor: Measured): number {
    if (realmgate.skipped || floor.skipped || !(floor.rps > 0)) return Number.NaN;
    return realmgate.rps / floor.rps;
}

const rate = (rps: number) => `${Math.round(rps).toLocaleString('en-US')}/s`;

/** A target is met by a share measured without errors on either side: a failed answer is cheap. */
function judged(share: number, atLeast: number, realmgate: Measured, floor: Measured): Pick<Row, 'target' | 'met' | 'note'> {
    const errors = realmgate.errors + floor.errors;
    return {
        target: `≥ ${atLeast} ×`,
        met: Number.isFinite(share) && share >= atLeast && errors === 0,
        ...(errors > 0 ? { note: `${errors} failed answers in the loads (Realmgate ${realmgate.errors}, floor ${floor.errors})` } : {}),
    };
}

type Figures = (key: string) => Measured;

/**
 * The targets of the share of the floor, first in the report: every protocol scenario on
 * SQLite, PostgreSQL and PostgreSQL with Redis against its floor, and client_credentials against
 * oidc-provider's (ES256 JWT).
 */
export function floorTargetSection(choices: readonly BenchChoice[], measured: Figures): Section {
    const rows: Row[] = [];
    for (const choice of choices) {
        const name = CHOICE_NAMES[choice];
        const engine = engineOf(choice);
        for (const { key, title, floor } of FLOORED) {
            const atLeast = shareTarget(choice, key);
            if (atLeast === undefined) continue;
            const own = measured(`${choice}:${key}`);
            const base = measured(floorKey(engine, floor));
            const share = shareOf(own, base);
            rows.push({ scenario: `${title} (${name})`, ratio: share, reference: `${floor} floor (${CHOICE_NAMES[engine]})`, ...judged(share, atLeast, own, base) });
        }
        if (OIDC_CC_CHOICES.includes(choice)) {
            const own = measured(`${choice}:cc`);
            const oidc = measured('oidcJwt');
            const ratio = shareOf(own, oidc);
            rows.push({ scenario: `client_credentials, plain secret (${name})`, ratio, reference: 'oidc-provider client_credentials (ES256 JWT)', ...judged(ratio, OIDC_CC_TARGET, own, oidc) });
        }
    }
    return { title: 'share-of-floor targets (Realmgate req/s ÷ the floor\'s on the same database and driver, every figure from this run)', rows };
}

/** A measured figure as a row: rate, latency, errors and round trips. */
function figures(scenario: string, result: Measured): Row {
    if (result.skipped) return { scenario, note: result.skipped };
    return {
        scenario, rps: result.rps, p50: result.p50, p99: result.p99, errors: result.errors,
        ...(result.roundTrips !== undefined ? { roundTrips: result.roundTrips } : {}),
        ...(result.firstFailure ? { note: `first failure: ${result.firstFailure.replace(/\s+/g, ' ').slice(0, 120)}` } : {}),
    };
}

/**
 * One database's floors and its protocol scenarios with their share, each floor followed by the
 * scenarios measured against it. `floors` false (PostgreSQL with Redis): the scenarios only,
 * against the engine's floors listed in that engine's section. `memory` adds rows after them.
 */
export function floorSection(choice: BenchChoice, measured: Figures, options: { floors: boolean; memory: Row[] }): Section {
    const engine = engineOf(choice);
    const rows: Row[] = [];
    for (const kind of FLOOR_KINDS) {
        const floor = measured(floorKey(engine, kind));
        if (options.floors) rows.push(figures(`${kind} floor: ${FLOOR_WORK[kind]}`, floor));
        for (const { key, title } of FLOORED.filter((entry) => entry.floor === kind)) {
            const own = measured(`${choice}:${key}`);
            rows.push({ ...figures(title, own), ratio: shareOf(own, floor), reference: `${kind} floor${options.floors ? '' : ` (${CHOICE_NAMES[engine]})`}, ${rate(floor.rps)}` });
        }
    }
    rows.push(...options.memory);
    const name = CHOICE_NAMES[choice];
    return {
        ...(options.floors ? { key: 'floors', dialect: engine } : {}),
        title: options.floors
            ? `floors and the share of the floor (${name}; ratio: Realmgate req/s ÷ the floor's, the same run, database and driver)`
            : `share of the floor (${name}: one Realmgate server with REDIS_URL, the protocol scenarios only; ratio over the ${CHOICE_NAMES[engine]} floors)`,
        rows,
    };
}
