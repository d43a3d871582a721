import { createHmac, randomBytes } from 'node:crypto';
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

/** Verified pairs remembered per process (32-byte digests): far more than the identities of a busy minute. */
const REMEMBERED_VERIFICATIONS = 10_000;

/**
 * bcrypt verification (~14/s per core at cost 10) would otherwise cap every Basic-authenticated
 * request and every client_credentials grant with a hashed secret. A successful verification is
 * remembered only as an HMAC digest under a random per-process key — never the secret itself —
 * over the stored hash and the presented value: a rotated secret or changed password has a new
 * hash (new salt), so its entries can never match again. Deactivation is checked by the callers
 * on every request regardless. Failures are never remembered, so a wrong guess always pays bcrypt.
 */
export function createPasswordHasher(cost = 10): PasswordHasher {
    const key = randomBytes(32);
    const remembered = new Map<string, true>();
    const digestOf = (plaintext: string, stored: string) =>
        createHmac('sha256', key).update(stored).update('\u0000').update(plaintext).digest('base64');
    return {
        hash: (plaintext) => hash(plaintext, { cost }),
        async verify(plaintext, stored) {
            if (!isBcryptHash(stored)) return false;
            const digest = digestOf(plaintext, stored);
            if (remembered.has(digest)) return true;
            let valid: boolean;
            try {
                valid = await verify(plaintext, stored);
            } catch {
                return false;
            }
            if (valid) {
                if (remembered.size >= REMEMBERED_VERIFICATIONS) remembered.delete(remembered.keys().next().value!);
                remembered.set(digest, true);
            }
            return valid;
        },
    };
}
