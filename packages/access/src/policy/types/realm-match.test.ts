import { describe, expect, it } from 'vitest';
import { defaultPolicyEngine } from '../registry.js';

const actor = { id: 'u-1', type: 'user' as const, realmId: 'r-a', realmName: 'alpha', clientId: null };
const evaluate = (policy: Record<string, unknown>, data: Record<string, unknown>, identity: typeof actor | null = actor) =>
    defaultPolicyEngine.evaluate({ type: 'realmMatch', ...policy }, data, { identity });

describe('realmMatch policy', () => {
    it('attribute mode compares the named attribute with the caller realm id or name', () => {
        expect(evaluate({}, { attributes: { realmId: 'r-a' } })).toBe('pass');
        expect(evaluate({}, { attributes: { realmId: 'alpha' } })).toBe('pass');
        expect(evaluate({}, { attributes: { realmId: 'r-b' } })).toBe('fail');
        expect(evaluate({ invert: true }, { attributes: { realmId: 'r-b' } })).toBe('pass');
        expect(evaluate({ attributeName: 'owner.realm' }, { attributes: { owner: { realm: 'r-a' } } })).toBe('pass');
    });

    it('null matches every caller only with attributeNullMatchAll', () => {
        expect(evaluate({}, { attributes: { realmId: null } })).toBe('fail');
        expect(evaluate({ attributeNullMatchAll: true }, { attributes: { realmId: null } })).toBe('pass');
    });

    it('a resource without the named attribute neutral-passes without invert; missing attributes are pending', () => {
        expect(evaluate({}, { attributes: { other: 1 } })).toBe('pass');
        expect(evaluate({ invert: true }, { attributes: { other: 1 } })).toBe('pass');
        expect(evaluate({}, {})).toBe('pending');
    });

    it('non-strict names also check attributes whose names contain the configured one', () => {
        expect(evaluate({ attributeName: 'realmId', attributeNameStrict: false }, { attributes: { realmId: 'r-a', parent_realmId: 'r-b' } })).toBe('fail');
        expect(evaluate({ attributeName: 'realmId', attributeNameStrict: true }, { attributes: { realmId: 'r-a', parent_realmId: 'r-b' } })).toBe('pass');
    });

    it('scope mode applies a realm reach to data.realmMatch and neutral-passes without it (REALM_MATCH three-way rule)', () => {
        expect(evaluate({ scope: 'own' }, { realmMatch: 'r-a' })).toBe('pass');
        expect(evaluate({ scope: 'own' }, { realmMatch: null })).toBe('fail');
        expect(evaluate({ scope: 'ownOrNull' }, { realmMatch: null })).toBe('pass');
        expect(evaluate({ scope: 'own' }, {})).toBe('pass');
        expect(evaluate({ scope: 'own', invert: true }, {})).toBe('pass');
        expect(evaluate({ scope: 'own', invert: true }, { realmMatch: 'r-b' })).toBe('pass');
    });

    it('needs an identity: without one it fails, inverted or not', () => {
        expect(evaluate({}, { attributes: { realmId: 'r-a' } }, null)).toBe('fail');
        expect(evaluate({ invert: true, scope: 'any' }, { realmMatch: 'r-a' }, null)).toBe('fail');
    });

    it('refuses malformed configuration naming the key', () => {
        expect(() => evaluate({ scope: 'global' }, {})).toThrow(/scope/);
        expect(() => evaluate({ attributeName: [] }, {})).toThrow(/attributeName/);
        expect(() => evaluate({ attributeNullMatchAll: 'yes' }, {})).toThrow(/attributeNullMatchAll/);
    });
});
