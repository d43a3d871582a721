import { isCanonicalUuid } from '@realmgate/core';
import { describe, expect, it } from 'vitest';
import { timeOrderedId } from './time-ordered-id.js';

describe('timeOrderedId (UUID version 7, RFC 9562 §5.7)', () => {
    it('is a canonical UUID with version 7 and the RFC 9562 variant', () => {
        for (let i = 0; i < 2000; i++) {
            const id = timeOrderedId();
            expect(isCanonicalUuid(id)).toBe(true);
            expect(id[14]).toBe('7');
            expect('89ab').toContain(id[19]);
        }
    });

    it('carries the Unix milliseconds in its first 48 bits', () => {
        const at = Date.UTC(2026, 10, 25, 3, 4, 5, 678);
        const id = timeOrderedId(at);
        expect(Number.parseInt(id.slice(0, 8) + id.slice(9, 13), 16)).toBe(at);
    });

    it('sorts by creation time as text, as the B-tree indexes order it', () => {
        const times = [0, 1, 255, 256, 2 ** 32 - 1, 2 ** 32, Date.UTC(2026, 0, 1), Date.UTC(2026, 0, 1) + 1, 2 ** 48 - 1];
        const ids = times.map((time) => timeOrderedId(time));
        expect([...ids].sort()).toEqual(ids);
    });

    it('draws 74 random bits: no repeats within one millisecond', () => {
        const at = Date.now();
        const ids = new Set(Array.from({ length: 20_000 }, () => timeOrderedId(at)));
        expect(ids.size).toBe(20_000);
    });
});
