import { describe, expect, it } from 'vitest';
import { createPasswordHasher, DUMMY_BCRYPT_HASH } from './passwords.js';
import { createRememberedVerifications, type RememberedVerifications } from './remembered.js';

describe('createPasswordHasher', () => {
    it('remembers only successful verifications, bound to the stored hash they were made against', async () => {
        const hasher = createPasswordHasher(4);
        const stored = await hasher.hash('first-secret');
        expect(await hasher.verify('first-secret', stored)).toBe(true);
        // a second verification of the same pair is answered from memory, with the same answer
        expect(await hasher.verify('first-secret', stored)).toBe(true);
        expect(await hasher.verify('wrong-secret', stored)).toBe(false);
        expect(await hasher.verify('wrong-secret', stored)).toBe(false);
        // rotation: the new hash has a new salt, so nothing remembered for the old one applies
        const rotated = await hasher.hash('second-secret');
        expect(await hasher.verify('first-secret', rotated)).toBe(false);
        expect(await hasher.verify('second-secret', rotated)).toBe(true);
        // the same secret hashed again (new salt) is verified anew and still matches
        expect(await hasher.verify('first-secret', await hasher.hash('first-secret'))).toBe(true);
    });

    it('refuses values that are not bcrypt hashes and the dummy hash', async () => {
        const hasher = createPasswordHasher(4);
        expect(await hasher.verify('anything', 'plain-text')).toBe(false);
        expect(await hasher.verify('anything', DUMMY_BCRYPT_HASH)).toBe(false);
    });
});

describe('createPasswordHasher without remembering', () => {
    it('neither answers from nor adds to the remembered verifications when told not to (an inactive account)', async () => {
        const real = createRememberedVerifications();
        const used: string[] = [];
        const remembered: RememberedVerifications = {
            has: (stored, presented) => (used.push('has'), real.has(stored, presented)),
            add: (stored, presented) => (used.push('add'), real.add(stored, presented)),
        };
        const hasher = createPasswordHasher(4, remembered);
        const stored = await hasher.hash('the-password');
        expect(await hasher.verify('the-password', stored)).toBe(true);
        expect(used).toEqual(['has', 'add']);
        used.length = 0;
        // the pair is remembered, yet a verification for an inactive account pays the full bcrypt cost
        expect(await hasher.verify('the-password', stored, { remember: false })).toBe(true);
        expect(await hasher.verify('wrong-password', stored, { remember: false })).toBe(false);
        expect(used).toEqual([]);
    });
});
