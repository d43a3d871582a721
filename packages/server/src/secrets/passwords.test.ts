import { describe, expect, it } from 'vitest';
import { createPasswordHasher, DUMMY_BCRYPT_HASH } from './passwords.js';

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
