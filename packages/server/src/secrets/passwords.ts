import { hash, verify } from '@node-rs/bcrypt';
import { createRememberedVerifications, type RememberedVerifications } from './remembered.js';

const BCRYPT_HASH = /^\$2[abxy]\$\d{2}\$[./A-Za-z0-9]{53}$/;

/** Whether a stored value is a bcrypt hash at all (anything else never verifies). */
export function isBcryptHash(value: string): boolean {
    return BCRYPT_HASH.test(value);
}

/** A bcrypt hash of a random value: verified against when no account matches, so timing does not tell. */
export const DUMMY_BCRYPT_HASH = '$2b$10$CwTycUXWue0Thq9StjUM0uJ8DfHjG3kEJYb5UvZqzE1v4e6zmyZCG';

export interface PasswordHasher {
    hash(plaintext: string): Promise<string>;
    /**
     * constant-time by construction (bcrypt recomputes and compares the whole digest); with
     * `remember: false` the remembered successes are neither read nor added to
     */
    verify(plaintext: string, stored: string, options?: VerifyOptions): Promise<boolean>;
}

export interface VerifyOptions {
    /**
     * false for an inactive account: a success remembered while it was active would answer its
     * right password in microseconds and a wrong one in a bcrypt's time, telling them apart
     * (OWASP ASVS V2.2.1 alike: a refusal must not reveal whether the password was right)
     */
    remember?: boolean;
}

/**
 * bcrypt verification (~14/s per core at cost 10) would otherwise cap every Basic-authenticated
 * request and every client_credentials grant with a hashed secret, so a success is remembered
 * (see RememberedVerifications; a changed password or secret has a new hash with a new salt).
 * Deactivation is checked by the callers on every request regardless, and an inactive account's
 * password is verified without memory (VerifyOptions).
 */
export function createPasswordHasher(cost = 10, remembered: RememberedVerifications = createRememberedVerifications()): PasswordHasher {
    return {
        hash: (plaintext) => hash(plaintext, { cost }),
        async verify(plaintext, stored, options) {
            if (!isBcryptHash(stored)) return false;
            const remember = options?.remember !== false;
            if (remember && remembered.has(stored, plaintext)) return true;
            let valid: boolean;
            try {
                valid = await verify(plaintext, stored);
            } catch {
                return false;
            }
            if (valid && remember) remembered.add(stored, plaintext);
            return valid;
        },
    };
}
