import { describe, expect, it } from 'vitest';
import { newUserCode, normalizeUserCode, USER_CODE_ALPHABET } from './codes.js';

describe('device flow codes (RFC 8628 §6.1)', () => {
    it('user codes: XXXX-XXXX from an alphabet without vowels or look-alikes', () => {
        expect(USER_CODE_ALPHABET).not.toMatch(/[AEIOUY01]/);
        const codes = Array.from({ length: 200 }, newUserCode);
        for (const code of codes) expect(code).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
        // drawn at random: 200 draws from 20^8 values do not repeat
        expect(new Set(codes).size).toBe(200);
    });

    it('normalises what a user types: case-insensitive, dash and spaces optional; anything else is no code', () => {
        expect(normalizeUserCode('bcdf-ghjk')).toBe('BCDFGHJK');
        expect(normalizeUserCode(' BCDF GHJK ')).toBe('BCDFGHJK');
        expect(normalizeUserCode('BCDFGHJK')).toBe('BCDFGHJK');
        for (const typed of ['BCDF-GHJ', 'BCDF-GHJKL', 'BCDF-GHJA', 'BCDF-GHJ1', '']) expect(normalizeUserCode(typed)).toBeNull();
    });
});
