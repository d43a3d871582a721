import { describe, expect, it } from 'vitest';
import {
    AccessErrorCode,
    PolicyData,
    combineOutcomes,
    createAuthorizationEvaluator,
    getNextPolicyChange,
    lowerRealmReach,
    matchCondition,
    realmScopeReaches,
} from './index.js';

const typed = expect.objectContaining({ code: expect.stringMatching(/^access_/) });

describe('every public function refuses bad input with a typed error naming the field', () => {
    it('matchCondition validates the condition once and names the bad node', () => {
        expect(() => matchCondition({ operator: 'gt', field: 'n', value: null } as never, {})).toThrow(/condition\.value/);
        expect(() => matchCondition({ operator: 'and', conditions: [{ operator: 'eq', field: '', value: 1 }] } as never, {}))
            .toThrow(/condition\.conditions\[0\]\.field/);
        expect(() => matchCondition(null as never, {})).toThrow(typed);
        const condition = { operator: 'in' as const, field: 'a', value: [1, null] };
        expect(matchCondition(condition, { a: 1 })).toBe(true);
        expect(matchCondition(condition, {})).toBe(true);
        expect(matchCondition(condition, { a: 2 })).toBe(false);
    });

    it('realm reach helpers refuse an unknown scope instead of falling through', () => {
        const identity = { id: 'u', type: 'user' as const, realmId: 'r', realmName: 'r', clientId: null };
        expect(() => realmScopeReaches('global' as never, 'r', identity)).toThrow(expect.objectContaining({ code: AccessErrorCode.INVALID_INPUT, path: ['scope'] }));
        expect(() => lowerRealmReach('own', '', identity)).toThrow(/column/);
        expect(() => realmScopeReaches('own', undefined as never, identity)).toThrow(/resource/);
    });

    it('combineOutcomes refuses an unknown strategy or outcome', () => {
        expect(() => combineOutcomes([1], 'majority' as never)).toThrow(/strategy/);
        expect(() => combineOutcomes([7 as never], 'unanimous')).toThrow(/outcomes/);
    });

    it('PolicyData.create validates and returns a plain record keyed by BuiltInPolicyType values', () => {
        expect(PolicyData.create({ realmMatch: null, attributes: { a: 1 } })).toEqual({ realmMatch: null, attributes: { a: 1 } });
        expect(PolicyData.keys).toContain('realmMatch');
        expect(() => PolicyData.create({ attributes: 'x' } as never)).toThrow(/data\.attributes/);
        expect(() => PolicyData.create({ date: 'yesterday' })).toThrow(/data\.date/);
    });

    it('createAuthorizationEvaluator and getNextPolicyChange refuse non-objects', () => {
        expect(() => createAuthorizationEvaluator(null as never)).toThrow(typed);
        expect(() => createAuthorizationEvaluator({ catalog: { policies: {}, permissions: [] }, identity: null, clock: 5 as never })).toThrow(/clock/);
        expect(() => getNextPolicyChange({ type: 'date' }, Date.now())).toThrow(typed);
    });

    it('evaluate refuses unknown context keys and malformed names as rejected promises, never a TypeError', async () => {
        const ev = createAuthorizationEvaluator({ catalog: { policies: {}, permissions: [] } });
        await expect(ev.evaluate(null as never)).rejects.toMatchObject({ code: AccessErrorCode.INVALID_INPUT });
        await expect(ev.evaluate({ name: 'x', realm: 'r' } as never)).rejects.toMatchObject({ path: ['realm'] });
        await expect(ev.evaluate({ name: 'x', realmId: 5 } as never)).rejects.toMatchObject({ path: ['realmId'] });
        expect(() => ev.allows({ name: [''] })).toThrow(/name/);
    });
});
