import { hash, verify } from '@node-rs/bcrypt';
import { createRememberedVerifications } from './remembered.js';

const BCRYPT_HASH = /^\$2[abxy]\$\d{2}\$[./A-Za-z0-9]{53}$/;

/** Whether a stored value is a bcrypt hash at all (anything else never verifies). */
export function isBcryptHash(value: string): boolean {
    return BCRYPT_HASH.test(value);
}

/** A bcrypt hash of a random value: verified against when no account matches, so timing does not tell. */
export const DUMMY_BCRYPT_HASH = '$2b$10$CwTycUXWue0Thq9StjUM0uJ8DfHjG3kEJYb5UvZqzE1v4e6zmyZCG';

export interface PasswordHasher {
    hash(plaintext: string): Promise<string>;
    /** constant-time by construction (bcrypt recomputes and compares the whole digest) */
    verify(plaintext: string, stored: string): Promise<boolean>;
}

/**
 * bcrypt verification (~14/s per core at cost 10) would otherwise cap every Basic-authenticated
 * request and every client_credentials grant with a hashed secret, so a success is remembered
 * (see RememberedVerifications; a changed password or secret has a new hash with a new salt).
 * Deactivation is checked by the callers on every request regardless.
 */
export function createPasswordHasher(cost = 10): PasswordHasher {
    const remembered = createRememberedVerifications();
    return {
        hash: (plaintext) => hash(plaintext, { cost }),
        async verify(plaintext, stored) {
            if (!isBcryptHash(stored)) return false;
            if (remembered.has(stored, plaintext)) return true;
            let valid: boolean;
            try {
                valid = await verify(plaintext, stored);
            } catch {
                return false;
            }
            if (valid) remembered.add(stored, plaintext);
            return valid;
        },
    };
}
