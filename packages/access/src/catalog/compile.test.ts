import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AccessErrorCode, createAuthorizationEvaluator, matchCondition, type PolicyNodeInput } from '../index.js';
import { REALM_A, REALM_B, catalog, definition, grant, user } from '../../test/fixtures.js';

describe('compile (consumer rule 11)', () => {
    const cat = catalog([
        definition('role_read'),
        definition('open_read', { policies: [] }),
        definition('names_write', { policies: ['p-names'] }),
    ], {
        'p-red': { type: 'attributes', query: { color: 'red' } },
        'p-names': { type: 'attributeNames', names: ['displayName'] },
    });

    it('consumer rule 11: allow when unrestricted, deny without grants, conditional over the realm column, post when unlowerable', () => {
        const none = createAuthorizationEvaluator({ catalog: cat, grants: [], identity: user() });
        expect(none.compile({ name: 'role_read' })).toEqual({ type: 'deny' });
        expect(none.compile({ name: 'open_read' })).toEqual({ type: 'allow' });
        expect(none.compile({ name: 'names_write' })).toEqual({ type: 'post' });

        const any = createAuthorizationEvaluator({ catalog: cat, grants: [grant('role_read', { realm_scope: 'any' })], identity: user() });
        expect(any.compile({ name: 'role_read' })).toEqual({ type: 'allow' });

        const own = createAuthorizationEvaluator({ catalog: cat, grants: [grant('role_read', { realm_scope: 'ownOrNull' })], identity: user(REALM_A) });
        expect(own.compile({ name: 'role_read' })).toEqual({
            type: 'conditional',
            condition: {
                operator: 'or',
                conditions: [
                    { operator: 'in', field: 'realmId', value: [REALM_A, 'name-a'] },
                    { operator: 'eq', field: 'realmId', value: null },
                ],
            },
        });
    });

    it('consumer rule 11: grant reach targets realmAttributeName when given, and junction policies then go to post', () => {
        const reachOnly = createAuthorizationEvaluator({ catalog: cat, grants: [grant('role_read')], identity: user(REALM_A) });
        expect(reachOnly.compile({ name: 'role_read', realmAttributeName: 'tenantId' })).toEqual({
            type: 'conditional',
            condition: { operator: 'in', field: 'tenantId', value: [REALM_A, 'name-a'] },
        });
        const junction = createAuthorizationEvaluator({ catalog: cat, grants: [grant('role_read', { policies: ['p-red'] })], identity: user(REALM_A) });
        expect(junction.compile({ name: 'role_read' })).toEqual({
            type: 'conditional',
            condition: {
                operator: 'and',
                conditions: [
                    { operator: 'in', field: 'realmId', value: [REALM_A, 'name-a'] },
                    { operator: 'eq', field: 'color', value: 'red' },
                ],
            },
        });
        expect(junction.compile({ name: 'role_read', realmAttributeName: 'tenantId' })).toEqual({ type: 'post' });
    });

    it('consumer rule 11: compile is called without realmMatch or attributes data', () => {
        const ev = createAuthorizationEvaluator({ catalog: cat, grants: [], identity: user() });
        expect(() => ev.compile({ name: 'role_read', data: { realmMatch: REALM_A } })).toThrow(expect.objectContaining({ code: AccessErrorCode.INVALID_INPUT }));
        expect(() => ev.compile({ name: 'role_read', data: { attributes: {} } })).toThrow(/compile takes no realmMatch/);
        expect(() => ev.compile({ name: ['role_read'] as never })).toThrow(/name/);
    });

    it('consumer rule 11: a pending policy that cannot be lowered yields post, never an unrestricted query', () => {
        const ev = createAuthorizationEvaluator({
            catalog: catalog([definition('x_read', { policies: ['p-loose'], decision_strategy: 'affirmative' })], {
                'p-loose': { type: 'realmMatch', attributeName: 'realm', attributeNameStrict: false },
            }),
            grants: [],
            identity: user(),
        });
        expect(ev.compile({ name: 'x_read' })).toEqual({ type: 'post' });
    });
});

/* ---------- property: compile agrees with evaluate on generated rows ---------- */

const realms = [REALM_A, REALM_B, null];
const rowArb = fc.record({
    realmId: fc.constantFrom(...realms),
    tenantId: fc.constantFrom(...realms),
    ownerRealm: fc.constantFrom(...realms),
    color: fc.constantFrom('red', 'blue', null),
    n: fc.constantFrom(1, 5, 9, null),
});

const leafArb: fc.Arbitrary<PolicyNodeInput> = fc.oneof(
    fc.record({ type: fc.constant('attributes'), invert: fc.boolean(), query: fc.constantFrom(
        { color: 'red' }, { n: { $gt: 3 } }, { $or: [{ color: 'blue' }, { n: { $lte: 1 } }] }, { color: { $in: ['red', null] } },
        { $not: { n: { $gte: 5 } } }, { color: { $exists: true } },
    ) }),
    fc.record({ type: fc.constant('realmMatch'), invert: fc.boolean(), attributeName: fc.constant('ownerRealm'), attributeNullMatchAll: fc.boolean() }),
    fc.record({ type: fc.constant('realmMatch'), invert: fc.boolean(), scope: fc.constantFrom('own', 'ownOrNull', 'any', 'none') }),
    fc.record({ type: fc.constant('identity'), invert: fc.boolean(), types: fc.constantFrom(['user'], ['client'], ['user', 'client']) }),
    fc.record({ type: fc.constant('date'), invert: fc.boolean(), start: fc.constantFrom('2020-01-01', '2030-01-01') }),
    fc.record({ type: fc.constant('time'), invert: fc.boolean(), start: fc.constantFrom('08:00', '13:00'), end: fc.constant('17:00') }),
);

const strategyArb = fc.constantFrom('unanimous', 'affirmative', 'consensus') as fc.Arbitrary<'unanimous' | 'affirmative' | 'consensus'>;

const treeArb: fc.Arbitrary<PolicyNodeInput> = fc.oneof(
    { weight: 2, arbitrary: leafArb },
    {
        weight: 1,
        arbitrary: fc.record({
            type: fc.constant('composite'),
            invert: fc.boolean(),
            decisionStrategy: strategyArb,
            children: fc.array(leafArb, { maxLength: 3 }),
        }),
    },
);

const caseArb = fc.record({
    actorRealm: fc.constantFrom(REALM_A, REALM_B, null),
    actorType: fc.constantFrom('user', 'client') as fc.Arbitrary<'user' | 'client'>,
    strategy: strategyArb,
    withDefault: fc.boolean(),
    extra: fc.array(treeArb, { maxLength: 2 }),
    junction: fc.array(leafArb, { maxLength: 2 }),
    grants: fc.array(fc.record({
        scope: fc.constantFrom('own', 'ownOrNull', 'any', 'none') as fc.Arbitrary<'own' | 'ownOrNull' | 'any' | 'none'>,
        junctionIndexes: fc.subarray([0, 1]),
    }), { maxLength: 3 }),
    realmAttributeName: fc.constantFrom(undefined, 'tenantId'),
    rows: fc.array(rowArb, { minLength: 1, maxLength: 8 }),
});

describe('compile agrees with evaluate', () => {
    it('for generated definitions, grants and rows (allow/deny/conditional match evaluate row by row)', () => {
        const clock = () => Date.parse('2026-06-15T10:30:00Z');
        fc.assert(fc.property(caseArb, (input) => {
            const policies: Record<string, PolicyNodeInput> = {};
            const ids: string[] = input.withDefault ? ['system.default'] : [];
            input.extra.forEach((tree, index) => {
                policies[`p-extra-${index}`] = tree;
                ids.push(`p-extra-${index}`);
            });
            input.junction.forEach((tree, index) => {
                policies[`p-junction-${index}`] = tree;
            });
            const cat = catalog([definition('perm', { policies: ids, decision_strategy: input.strategy })], policies);
            const identity = input.actorType === 'user' ?
                user(input.actorRealm) :
                { ...user(input.actorRealm), type: 'client' as const, clientId: 'u-1' };
            const ev = createAuthorizationEvaluator({
                catalog: cat,
                identity,
                clock,
                grants: input.grants.map((g) => grant('perm', {
                    realm_scope: g.scope,
                    policies: g.junctionIndexes.filter((i) => i < input.junction.length).map((i) => `p-junction-${i}`),
                })),
            });
            const verdict = ev.compile({ name: 'perm', ...(input.realmAttributeName ? { realmAttributeName: input.realmAttributeName } : {}) });
            const column = input.realmAttributeName ?? 'realmId';
            for (const row of input.rows) {
                const allowed = ev.allows({ name: 'perm', data: { realmMatch: row[column as keyof typeof row] as string | null, attributes: row } });
                if (verdict.type === 'allow') expect(allowed).toBe(true);
                else if (verdict.type === 'deny') expect(allowed).toBe(false);
                else if (verdict.type === 'conditional') expect(matchCondition(verdict.condition, row)).toBe(allowed);
            }
        }), { numRuns: 2000 });
    });
});
