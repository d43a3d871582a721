import { describe, expect, it } from 'vitest';
import { AccessErrorCode, createAuthorizationCheckEvaluator } from '../index.js';

describe('createAuthorizationCheckEvaluator', () => {
    const answer = [
        { name: 'user_read', realms: ['r-a', null] },
        { name: 'role_read', realms: ['r-a'] },
    ];

    it('consumer rule 13: gates on names alone, advisory only; an absent name is denied (batch-check rule 2)', async () => {
        const check = createAuthorizationCheckEvaluator(answer);
        expect(check.names).toEqual(['user_read', 'role_read']);
        expect(check.has('user_read')).toBe(true);
        expect(check.has('client_read')).toBe(false);
        expect(check.hasAll(['user_read', 'role_read'])).toBe(true);
        expect(check.hasAll(['user_read', 'client_read'])).toBe(false);
        expect(check.hasOneOf(['client_read', 'role_read'])).toBe(true);
        await expect(check.evaluate({ name: 'role_read' })).resolves.toBeUndefined();
        await expect(check.evaluate({ name: ['role_read', 'client_read'] })).rejects.toMatchObject({ code: 'permission_denied' });
        await expect(check.evaluateOneOf({ name: ['role_read', 'client_read'] })).resolves.toBeUndefined();
    });

    it('batch-check rule 10: a public client gates per requested realm; null stands for global rows', () => {
        const check = createAuthorizationCheckEvaluator(answer);
        expect(check.has('user_read', null)).toBe(true);
        expect(check.has('role_read', null)).toBe(false);
        expect(check.has('role_read', 'r-a')).toBe(true);
        expect(check.has('role_read', 'r-b')).toBe(false);
    });

    it('an empty answer (an identity-less caller on a default deployment) denies everything', () => {
        const check = createAuthorizationCheckEvaluator([]);
        expect(check.has('user_read')).toBe(false);
        // a name with no reached realm is treated as absent
        expect(createAuthorizationCheckEvaluator([{ name: 'x', realms: [] }]).has('x')).toBe(false);
    });

    it('refuses a malformed answer naming the offending field', () => {
        expect(() => createAuthorizationCheckEvaluator({})).toThrow(expect.objectContaining({ code: AccessErrorCode.INVALID_INPUT }));
        expect(() => createAuthorizationCheckEvaluator([{ name: 'x', realms: [1] }])).toThrow(/answer\[0\]\.realms/);
        expect(() => createAuthorizationCheckEvaluator([{ realms: [] }])).toThrow(/answer\[0\]\.name/);
        expect(() => createAuthorizationCheckEvaluator(answer).has('x', 5 as never)).toThrow(/realm/);
    });
});
