import { describe, expect, it } from 'vitest';
import { createSystemDefaultPolicy, deniesWithoutGrant, policyNeedsIdentity } from '../index.js';

const window = { type: 'date', invert: false, start: '2020-01-01', end: '2020-12-31' };
const binding = { type: 'permissionBinding', invert: false };

describe('deniesWithoutGrant (batch-check rule 8)', () => {
    it('system.default denies every caller holding no grant, alone or beside a date window under unanimous', () => {
        expect(deniesWithoutGrant([createSystemDefaultPolicy()], 'unanimous')).toBe(true);
        expect(deniesWithoutGrant([createSystemDefaultPolicy(), window], 'unanimous')).toBe(true);
    });

    it('a window that can pass without a grant does not: affirmative layer, date alone, empty layer, inverted binding', () => {
        expect(deniesWithoutGrant([createSystemDefaultPolicy(), window], 'affirmative')).toBe(false);
        expect(deniesWithoutGrant([window], 'unanimous')).toBe(false);
        expect(deniesWithoutGrant([], 'unanimous')).toBe(false);
        expect(deniesWithoutGrant([{ type: 'permissionBinding', invert: true }], 'unanimous')).toBe(false);
    });

    it('reads composites with their own strategy and invert', () => {
        const either = { type: 'composite', invert: false, decisionStrategy: 'affirmative', children: [binding, window] };
        expect(deniesWithoutGrant([either], 'unanimous')).toBe(false);
        const both = { type: 'composite', invert: false, decisionStrategy: 'unanimous', children: [binding, window] };
        expect(deniesWithoutGrant([both], 'unanimous')).toBe(true);
        expect(deniesWithoutGrant([{ ...both, invert: true }], 'unanimous')).toBe(false);
        // an inverted composite over an always-failing child always passes: never "denies"
        expect(deniesWithoutGrant([{ type: 'composite', invert: true, decisionStrategy: 'unanimous', children: [binding] }], 'unanimous')).toBe(false);
    });

    it('refuses a malformed tree', () => {
        expect(() => deniesWithoutGrant([{ type: 'date', start: 'nope' }], 'unanimous')).toThrow();
    });
});

describe('policyNeedsIdentity', () => {
    it('finds identity, binding and realm-match nodes at any depth', () => {
        expect(policyNeedsIdentity(createSystemDefaultPolicy())).toBe(true);
        expect(policyNeedsIdentity({ type: 'realmMatch', scope: 'own' })).toBe(true);
        expect(policyNeedsIdentity(window)).toBe(false);
        expect(policyNeedsIdentity({ type: 'composite', children: [window, { type: 'attributes', query: {} }] })).toBe(false);
    });
});
