import { DecisionStrategy, RealmScope } from '@realmgate/core';
import fc from 'fast-check';

/*
 * The generated side of the equivalence proof (test/http/equivalence.test.ts): a "world" of
 * definitions, policy trees, roles, subjects and grants, described by indices into small pools so
 * that fast-check can shrink it, and lowered to database rows by equivalence-rows.ts. Nothing here
 * decides anything: verdicts come only from the server and from packages/access.
 */

const REALM_POOL = 3;
export const NAME_POOL = 4;

const scopes = fc.constantFrom(RealmScope.OWN, RealmScope.OWN_OR_NULL, RealmScope.ANY, RealmScope.NONE);
const strategies = fc.constantFrom(DecisionStrategy.UNANIMOUS, DecisionStrategy.AFFIRMATIVE, DecisionStrategy.CONSENSUS);
/** null: global; otherwise an index into the realm pool */
const realmRef = fc.option(fc.nat({ max: REALM_POOL - 1 }), { nil: null, freq: 3 });

/**
 * Date windows lie years away from the run and time windows hours away (or on days at least two
 * days off): the server has no injectable clock, so a window must not open or close while the run
 * lasts — the consumer's fixed clock and the server's Date.now then fall on the same side.
 */
export type DateWindow = 'open' | 'since' | 'future' | 'past';
export type TimeWindow = 'wholeDay' | 'aroundNow' | 'awayFromNow' | 'otherWeekday' | 'otherMonthDay' | 'otherYearDay';
export type AttributeQuery = 'publicName' | 'globalRow' | 'matchAll';

export type TreeSpec =
    | { kind: 'realmScope'; scope: RealmScope; invert: boolean }
    | { kind: 'realmAttribute'; nullMatchAll: boolean; invert: boolean }
    | { kind: 'attributes'; query: AttributeQuery; invert: boolean }
    | { kind: 'identity'; types: ('user' | 'client')[] | null; invert: boolean }
    | { kind: 'date'; window: DateWindow; invert: boolean }
    | { kind: 'time'; window: TimeWindow; invert: boolean }
    | { kind: 'binding'; invert: boolean }
    /** a policy type this server and library do not know: the tree cannot be projected */
    | { kind: 'unknown' }
    | { kind: 'composite'; strategy: DecisionStrategy; invert: boolean; children: TreeSpec[] };

const leaf: fc.Arbitrary<TreeSpec> = fc.oneof(
    fc.record({ kind: fc.constant('realmScope' as const), scope: scopes, invert: fc.boolean() }),
    fc.record({ kind: fc.constant('realmAttribute' as const), nullMatchAll: fc.boolean(), invert: fc.boolean() }),
    fc.record({ kind: fc.constant('attributes' as const), query: fc.constantFrom<AttributeQuery>('publicName', 'globalRow', 'matchAll'), invert: fc.boolean() }),
    fc.record({ kind: fc.constant('identity' as const), types: fc.constantFrom<('user' | 'client')[] | null>(null, ['user'], ['client']), invert: fc.boolean() }),
    fc.record({ kind: fc.constant('date' as const), window: fc.constantFrom<DateWindow>('open', 'since', 'future', 'past'), invert: fc.boolean() }),
    fc.record({
        kind: fc.constant('time' as const),
        window: fc.constantFrom<TimeWindow>('wholeDay', 'aroundNow', 'awayFromNow', 'otherWeekday', 'otherMonthDay', 'otherYearDay'),
        invert: fc.boolean(),
    }),
    fc.record({ kind: fc.constant('binding' as const), invert: fc.boolean() }),
    fc.constant({ kind: 'unknown' as const }),
);

const tree: fc.Arbitrary<TreeSpec> = fc.oneof(
    { weight: 5, arbitrary: leaf },
    {
        weight: 2,
        arbitrary: fc.record({
            kind: fc.constant('composite' as const),
            strategy: strategies,
            invert: fc.boolean(),
            children: fc.array(leaf, { minLength: 1, maxLength: 3 }),
        }),
    },
);

export interface PolicySpec {
    realm: number | null;
    tree: TreeSpec;
}

/** Who owns a client-owned row: one of the two app clients of its realm, or a client subject. */
export type OwnerSpec = null | { app: 'A' | 'B' } | { subject: number };

export interface DefinitionSpec {
    name: number;
    realm: number | null;
    owner: OwnerSpec;
    strategy: DecisionStrategy;
    /** bound to system.default, as every definition created through the API is */
    systemDefault: boolean;
    /** further definition-layer trees (indices into the policies; only global or same-realm ones bind) */
    extras: number[];
}

const owner: fc.Arbitrary<OwnerSpec> = fc.oneof(
    { weight: 4, arbitrary: fc.constant(null) },
    { weight: 2, arbitrary: fc.record({ app: fc.constantFrom<'A' | 'B'>('A', 'B') }) },
    { weight: 1, arbitrary: fc.record({ subject: fc.nat() }) },
);

export type TokenVia = 'none' | 'A' | 'B';

export interface SubjectSpec {
    kind: 'user' | 'client';
    realm: number;
    /** users: the clients their tokens are issued through ('none': a password grant without client) */
    via: TokenVia[];
}

/** target -1: the built-in global permission scope_read (compared on real reads too) */
export interface GrantSpec {
    holder: number;
    target: number;
    scope: RealmScope;
    junction: number | null;
}

export interface RoleSpec {
    realm: number | null;
    owner: OwnerSpec;
}

/** The realms a check asks about: a symbolic selector or an explicit list of pool entries. */
export type RealmAsk = { realm: number } | { realmName: number } | 'global' | 'master' | 'unknown';
export type RealmsSpec = 'own' | 'ownOrNull' | RealmAsk[];

export interface WorldSpec {
    policies: PolicySpec[];
    definitions: DefinitionSpec[];
    subjects: SubjectSpec[];
    roles: RoleSpec[];
    grants: GrantSpec[];
    roleGrants: GrantSpec[];
    assignments: { holder: number; role: number }[];
    /** one selector per subject view (indexed modulo) and the realm the per-definition checks ask about */
    asks: RealmsSpec[];
    probe: number;
}

const realmAsk: fc.Arbitrary<RealmAsk> = fc.oneof(
    { weight: 4, arbitrary: fc.record({ realm: fc.nat({ max: REALM_POOL - 1 }) }) },
    { weight: 1, arbitrary: fc.record({ realmName: fc.nat({ max: REALM_POOL - 1 }) }) },
    { weight: 2, arbitrary: fc.constant('global' as const) },
    { weight: 1, arbitrary: fc.constantFrom('master' as const, 'unknown' as const) },
);

const grantSpec = fc.record({
    holder: fc.nat(),
    target: fc.integer({ min: -1, max: 40 }),
    scope: scopes,
    junction: fc.option(fc.nat(), { nil: null, freq: 2 }),
});

export const worldArbitrary: fc.Arbitrary<WorldSpec> = fc.record({
    policies: fc.array(fc.record({ realm: realmRef, tree }), { minLength: 1, maxLength: 6 }),
    definitions: fc.array(fc.record({
        name: fc.nat({ max: NAME_POOL - 1 }),
        realm: realmRef,
        owner,
        strategy: strategies,
        systemDefault: fc.boolean(),
        extras: fc.array(fc.nat(), { maxLength: 2 }),
    }), { minLength: 1, maxLength: 8 }),
    subjects: fc.array(fc.oneof(
        { weight: 3, arbitrary: fc.record({
            kind: fc.constant('user' as const),
            realm: fc.nat({ max: REALM_POOL - 1 }),
            via: fc.subarray<TokenVia>(['none', 'A', 'B'], { minLength: 1 }),
        }) },
        { weight: 2, arbitrary: fc.record({ kind: fc.constant('client' as const), realm: fc.nat({ max: REALM_POOL - 1 }), via: fc.constant<TokenVia[]>(['none']) }) },
    ), { minLength: 1, maxLength: 3 }),
    roles: fc.array(fc.record({ realm: realmRef, owner }), { maxLength: 3 }),
    grants: fc.array(grantSpec, { maxLength: 10 }),
    roleGrants: fc.array(grantSpec, { maxLength: 6 }),
    assignments: fc.array(fc.record({ holder: fc.nat(), role: fc.nat() }), { maxLength: 4 }),
    asks: fc.array(fc.oneof(
        { weight: 4, arbitrary: fc.array(realmAsk, { minLength: 1, maxLength: 4 }) },
        { weight: 1, arbitrary: fc.constantFrom<RealmsSpec>('own', 'ownOrNull') },
    ), { minLength: 1, maxLength: 3 }),
    probe: fc.nat(),
});

/**
 * Run first whatever the seed: a world that surely takes the unprojectable paths (a definition bound
 * to a tree of an unknown type, a junction tree holding one) and the stale path (grants of new
 * definitions), with users through their own client, another client and none, and a client-owned role.
 */
export const EXAMPLE_WORLD: WorldSpec = {
    policies: [
        { realm: null, tree: { kind: 'unknown' } },
        { realm: null, tree: { kind: 'composite', strategy: 'unanimous', invert: false, children: [{ kind: 'identity', types: null, invert: false }, { kind: 'unknown' }] } },
        { realm: 0, tree: { kind: 'date', window: 'open', invert: false } },
    ],
    definitions: [
        { name: 0, realm: null, owner: null, strategy: 'unanimous', systemDefault: true, extras: [0] },
        { name: 1, realm: 0, owner: null, strategy: 'unanimous', systemDefault: true, extras: [2] },
        { name: 2, realm: null, owner: { app: 'A' }, strategy: 'affirmative', systemDefault: true, extras: [] },
        { name: 0, realm: 1, owner: null, strategy: 'unanimous', systemDefault: false, extras: [] },
    ],
    subjects: [{ kind: 'user', realm: 0, via: ['none', 'A', 'B'] }, { kind: 'client', realm: 1, via: ['none'] }],
    roles: [{ realm: null, owner: { app: 'B' } }],
    grants: [
        { holder: 0, target: 0, scope: RealmScope.ANY, junction: null },
        { holder: 0, target: 1, scope: RealmScope.OWN, junction: 1 },
        { holder: 0, target: 2, scope: RealmScope.OWN, junction: null },
        { holder: 0, target: -1, scope: RealmScope.OWN, junction: 2 },
        { holder: 1, target: -1, scope: RealmScope.ANY, junction: null },
    ],
    roleGrants: [{ holder: 0, target: 1, scope: RealmScope.OWN_OR_NULL, junction: 2 }, { holder: 0, target: -1, scope: RealmScope.OWN_OR_NULL, junction: null }],
    assignments: [{ holder: 0, role: 0 }],
    asks: [[{ realm: 0 }, 'global', { realm: 1 }, { realmName: 0 }], 'ownOrNull'],
    probe: 0,
};

/** The canonical-free configuration of a node (type, invert and children are columns or rows of their own). */
export function nodeConfig(spec: Exclude<TreeSpec, { kind: 'composite' }>, now: number): { type: string; config: Record<string, unknown> } {
    switch (spec.kind) {
        case 'realmScope': return { type: 'realmMatch', config: { scope: spec.scope } };
        case 'realmAttribute': return { type: 'realmMatch', config: { attributeName: ['realmId'], attributeNullMatchAll: spec.nullMatchAll } };
        case 'attributes': return { type: 'attributes', config: { query: ATTRIBUTE_QUERIES[spec.query] } };
        case 'identity': return { type: 'identity', config: spec.types ? { types: spec.types } : {} };
        case 'date': return { type: 'date', config: dateWindow(spec.window, now) };
        case 'time': return { type: 'time', config: timeWindow(spec.window, now) };
        case 'binding': return { type: 'permissionBinding', config: {} };
        case 'unknown': return { type: 'futureType', config: { level: 2 } };
    }
}

/** The scopes read over HTTP are named pub-… or priv-… (see the scope pool in the test). */
const ATTRIBUTE_QUERIES: Record<AttributeQuery, Record<string, unknown>> = {
    publicName: { name: { $startsWith: 'pub-' } },
    globalRow: { realmId: null },
    matchAll: {},
};

const YEAR_MS = 365 * 86_400_000;
const HOUR_MS = 3_600_000;
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

function dateWindow(window: DateWindow, now: number): Record<string, string> {
    switch (window) {
        case 'open': return { start: day(now - 10 * YEAR_MS), end: day(now + 10 * YEAR_MS) };
        case 'since': return { start: day(now - 5 * YEAR_MS) };
        case 'future': return { start: day(now + 5 * YEAR_MS), end: day(now + 10 * YEAR_MS) };
        case 'past': return { end: day(now - 5 * YEAR_MS) };
    }
}

const timeOfDay = (ms: number) => new Date(ms).toISOString().slice(11, 19);

function timeWindow(window: TimeWindow, now: number): Record<string, unknown> {
    const today = new Date(now);
    switch (window) {
        case 'wholeDay': return { interval: 'daily', start: '00:00:00', end: '23:59:59' };
        // three hours either side of the run (wrapping over midnight when it falls there)
        case 'aroundNow': return { interval: 'daily', start: timeOfDay(now - 3 * HOUR_MS), end: timeOfDay(now + 3 * HOUR_MS) };
        case 'awayFromNow': return { interval: 'daily', start: timeOfDay(now + 3 * HOUR_MS), end: timeOfDay(now + 6 * HOUR_MS) };
        // days at least two days from today, so neither side of a midnight during the run matches
        case 'otherWeekday': return { interval: 'weekly', dayOfWeek: (today.getUTCDay() + 3) % 7 };
        case 'otherMonthDay': return { interval: 'monthly', dayOfMonth: today.getUTCDate() <= 15 ? 25 : 5 };
        case 'otherYearDay': {
            const january1 = Date.UTC(today.getUTCFullYear(), 0, 1);
            const dayOfYear = Math.floor((now - january1) / 86_400_000) + 1;
            return { interval: 'yearly', dayOfYear: ((dayOfYear + 180) % 365) + 1 };
        }
    }
}

