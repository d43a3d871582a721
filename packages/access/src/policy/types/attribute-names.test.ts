import { describe, expect, it } from 'vitest';
import { AccessErrorCode } from '../../errors.js';
import type { PolicyData } from '../data.js';
import { createPolicyEngine, PolicyEvaluationContext } from '../engine.js';
import { attributeNamesPolicyType } from './attribute-names.js';
import { attributesPolicyType } from './attributes.js';

const engine = createPolicyEngine([attributesPolicyType, attributeNamesPolicyType]);

function run(names: string[], data: PolicyData, invert = false): string {
    return engine.evaluate({ type: 'attributeNames', invert, names }, data);
}

function refusalMessage(input: unknown): { code: unknown; message: string } {
    try {
        engine.validate(input);
    } catch (error) {
        return error as { code: unknown; message: string };
    }
    throw new Error('expected the policy to be refused');
}

describe('attributeNames policy', () => {
    it('allows only listed names without invert', () => {
        expect(run(['name', 'email'], { attributes: { name: 'a', email: 'b' } })).toBe('pass');
        expect(run(['name', 'email'], { attributes: { name: 'a' } })).toBe('pass');
        expect(run(['name'], { attributes: { name: 'a', admin: true } })).toBe('fail');
        expect(run([], { attributes: { name: 'a' } })).toBe('fail');
    });

    it('denies listed names per key with invert', () => {
        expect(run(['admin'], { attributes: { name: 'a' } }, true)).toBe('pass');
        expect(run(['admin'], { attributes: { name: 'a', admin: true } }, true)).toBe('fail');
        // a negation of the whole allow-list verdict would pass here: one name is unlisted
        expect(run(['admin', 'role'], { attributes: { admin: true, name: 'a' } }, true)).toBe('fail');
        expect(run([], { attributes: { name: 'a' } }, true)).toBe('pass');
    });

    it('passes an empty write in both modes', () => {
        expect(run(['name'], { attributes: {} })).toBe('pass');
        expect(run(['name'], { attributes: {} }, true)).toBe('pass');
        expect(run([], { attributeNames: [] })).toBe('pass');
    });

    it('allow-list: a listed prefix covers a dotted name, never the other way round', () => {
        const data = { attributes: { profile: { city: 'Berlin', address: { zip: '1' } } } };
        expect(run(['profile'], data)).toBe('pass');
        expect(run(['profile.city'], data)).toBe('fail');
        expect(run(['profile.city', 'profile.address'], data)).toBe('pass');
        expect(run(['profile.address'], data, true)).toBe('fail');
        expect(run(['profile.ci'], { attributeNames: ['profile.city'] })).toBe('fail');
        expect(run(['profile.city'], { attributeNames: ['profile'] })).toBe('fail');
    });

    it('deny-list: writing a parent of a denied name is refused too (it would overwrite the denied child)', () => {
        expect(run(['profile.city'], { attributeNames: ['profile'] }, true)).toBe('fail');
        expect(run(['profile.city'], { attributes: { profile: null } }, true)).toBe('fail');
        expect(run(['profile.city'], { attributeNames: ['profile.street'] }, true)).toBe('pass');
        expect(run(['profile.city'], { attributeNames: ['prof'] }, true)).toBe('pass');
    });

    it('prefers explicit attributeNames over the keys of attributes', () => {
        const data = { attributes: { name: 'a', admin: true }, attributeNames: ['name'] };
        expect(run(['name'], data)).toBe('pass');
        expect(run(['admin'], data, true)).toBe('pass');
    });

    it('is pending without names or attributes, inverted or not, and lowers accordingly', () => {
        expect(run(['name'], {})).toBe('pending');
        expect(run(['name'], {}, true)).toBe('pending');
        const compiled = engine.compile({ type: 'attributeNames', names: ['name'] });
        const lower = (data: PolicyData) => compiled.lower(new PolicyEvaluationContext(null, data, null, () => 0));
        expect(lower({})).toBeNull();
        expect(lower({ attributes: { name: 'a' } })).toBe(true);
        expect(lower({ attributeNames: ['admin'] })).toBe(false);
    });

    it('validates names and drops entity columns', () => {
        expect(engine.validate({ type: 'attributeNames', id: 'x', realmId: null, names: ['a', 'b', 'a'] }))
            .toEqual({ type: 'attributeNames', invert: false, names: ['a', 'b'] });
        expect(engine.validate({ type: 'attributeNames', invert: true, names: [] }))
            .toEqual({ type: 'attributeNames', invert: true, names: [] });
        for (const names of [undefined, null, [''], [1], { a: 1 }]) {
            const error = refusalMessage({ type: 'attributeNames', names });
            expect(error.code).toBe(AccessErrorCode.INVALID_POLICY);
            expect(error.message).toMatch(/^names: /);
        }
    });
});
