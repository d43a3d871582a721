import { hash, verify } from '@node-rs/bcrypt';

const BCRYPT_HASH = /^\$2[abxy]\$\d{2}\$[./A-Za-z0-9]{53}$/;

/** A value that already is a bcrypt hash is kept verbatim where the spec says so (client secrets, provisioning). */
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

export function createPasswordHasher(cost = 10): PasswordHasher {
    return {
        hash: (plaintext) => hash(plaintext, { cost }),
        async verify(plaintext, stored) {
            if (!isBcryptHash(stored)) return false;
            try {
                return await verify(plaintext, stored);
            } catch {
                return false;
            }
        },
    };
}
