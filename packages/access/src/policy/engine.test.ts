import { describe, expect, it } from 'vitest';
import { AccessErrorCode, defaultPolicyEngine, isPolicyValidationError } from '../index.js';

const identity = { id: 'u-1', type: 'user' as const, realmId: 'r-1', realmName: 'one', clientId: null };

describe('policy engine', () => {
    it('answers pass, fail and pending; pre-evaluation lets pending pass', () => {
        const policy = { type: 'attributes', query: { name: 'x' } };
        expect(defaultPolicyEngine.evaluate(policy, { attributes: { name: 'x' } })).toBe('pass');
        expect(defaultPolicyEngine.evaluate(policy, { attributes: { name: 'y' } })).toBe('fail');
        expect(defaultPolicyEngine.evaluate(policy, {})).toBe('pending');
        expect(defaultPolicyEngine.evaluate(policy, {}, { pre: true })).toBe('pass');
    });

    it('an unknown type fails; a known type with a bad configuration throws a typed error naming the field', () => {
        expect(defaultPolicyEngine.evaluate({ type: 'geoFence' })).toBe('fail');
        expect(() => defaultPolicyEngine.evaluate({ type: 'composite', decisionStrategy: 'majority' }))
            .toThrow(expect.objectContaining({ code: AccessErrorCode.INVALID_POLICY, message: expect.stringContaining('decisionStrategy') }));
        let error: unknown;
        try {
            defaultPolicyEngine.validate({ type: 'composite', children: [{ type: 'identity', types: ['robot'] }] });
        } catch (caught) {
            error = caught;
        }
        expect(isPolicyValidationError(error)).toBe(true);
        expect((error as Error).message).toContain('children[0].types');
    });

    it('validators return the canonical configuration without entity columns', () => {
        const row = { id: 'p-1', name: 'only-users', realmId: 'r-1', createdAt: 'x', type: 'identity', types: ['user', 'user'], invert: null };
        expect(defaultPolicyEngine.validate(row)).toEqual({ type: 'identity', invert: false, types: ['user'] });
        expect(defaultPolicyEngine.validate({ type: 'composite' })).toEqual({ type: 'composite', invert: false, decisionStrategy: 'unanimous', children: [] });
        expect(defaultPolicyEngine.validate({ type: 'realmMatch', attributeName: 'tenant' })).toEqual({
            type: 'realmMatch', invert: false, attributeName: ['tenant'], attributeNameStrict: true, attributeNullMatchAll: false,
        });
        expect(defaultPolicyEngine.validate({ type: 'permissionBinding', grants: 'ignored' })).toEqual({ type: 'permissionBinding', invert: false });
    });

    it('refuses malformed input with typed errors, never a bare TypeError', () => {
        for (const bad of [null, 'composite', [], { type: 5 }, { type: 'composite', children: 'x' }, { type: 'identity', invert: 'yes' }]) {
            expect(() => defaultPolicyEngine.validate(bad)).toThrow(expect.objectContaining({ code: expect.stringMatching(/^access_/) }));
        }
        expect(() => defaultPolicyEngine.evaluate({ type: 'identity' }, { realmMatch: 5 } as never)).toThrow(/data\.realmMatch/);
        expect(() => defaultPolicyEngine.evaluate({ type: 'identity' }, {}, { identity: { id: 'x' } as never })).toThrow(/options\.identity\.type/);
        expect(() => defaultPolicyEngine.nextChange({ type: 'identity' }, Number.NaN)).toThrow(/now/);
    });

    it('refuses a tree deeper than the limit', () => {
        let tree: Record<string, unknown> = { type: 'identity' };
        for (let i = 0; i < 40; i++) tree = { type: 'composite', children: [tree] };
        expect(() => defaultPolicyEngine.validate(tree)).toThrow(/deeper than/);
    });

    it('identity is settled: no identity fails whatever invert says', () => {
        expect(defaultPolicyEngine.evaluate({ type: 'identity' }, {}, { identity })).toBe('pass');
        expect(defaultPolicyEngine.evaluate({ type: 'identity', types: ['client'] }, {}, { identity })).toBe('fail');
        expect(defaultPolicyEngine.evaluate({ type: 'identity', types: ['client'], invert: true }, {}, { identity })).toBe('pass');
        expect(defaultPolicyEngine.evaluate({ type: 'identity' }, {})).toBe('fail');
        expect(defaultPolicyEngine.evaluate({ type: 'identity', invert: true }, {})).toBe('fail');
    });

    it('composite: empty passes, invert of a pending composite stays pending, consensus ties fail', () => {
        expect(defaultPolicyEngine.evaluate({ type: 'composite', children: [] })).toBe('pass');
        expect(defaultPolicyEngine.evaluate({ type: 'composite', invert: true, children: [] })).toBe('fail');
        const pendingChild = { type: 'attributes', query: { a: 1 } };
        expect(defaultPolicyEngine.evaluate({ type: 'composite', invert: true, children: [pendingChild] }, {}, { identity })).toBe('pending');
        const tie = { type: 'composite', decisionStrategy: 'consensus', children: [{ type: 'identity' }, { type: 'identity', invert: true }] };
        expect(defaultPolicyEngine.evaluate(tie, {}, { identity })).toBe('fail');
        const majority = { ...tie, children: [...tie.children, { type: 'identity', types: ['user'] }] };
        expect(defaultPolicyEngine.evaluate(majority, {}, { identity })).toBe('pass');
    });

    it('permissionBinding outside a definition holds no grant and fails, inverted or not', () => {
        expect(defaultPolicyEngine.evaluate({ type: 'permissionBinding' }, {}, { identity })).toBe('fail');
        expect(defaultPolicyEngine.evaluate({ type: 'permissionBinding', invert: true }, {}, { identity })).toBe('fail');
    });
});
