import { createHmac, randomBytes } from 'node:crypto';

/** Verified pairs remembered per process (32-byte digests): far more than the identities of a busy minute. */
const DEFAULT_CAPACITY = 10_000;

/**
 * Successful secret verifications remembered per process, so a repeated verification skips its
 * expensive part (bcrypt, key unwrapping and decryption). A pair is kept only as an HMAC digest
 * under a random per-process key — never the secret itself — over the stored form and the
 * presented value: a rotated secret or changed password has a new stored form, so its entries can
 * never match again. Callers remember successes only, so a wrong guess always pays the full cost.
 */
export interface RememberedVerifications {
    has(stored: string, presented: string): boolean;
    add(stored: string, presented: string): void;
}

export function createRememberedVerifications(capacity = DEFAULT_CAPACITY): RememberedVerifications {
    const key = randomBytes(32);
    const remembered = new Set<string>();
    const digestOf = (stored: string, presented: string) =>
        createHmac('sha256', key).update(stored).update('\u0000').update(presented).digest('base64');
    return {
        has: (stored, presented) => remembered.has(digestOf(stored, presented)),
        add(stored, presented) {
            // the oldest entry makes room: a bounded set, whatever the number of identities
            if (remembered.size >= capacity) remembered.delete(remembered.values().next().value!);
            remembered.add(digestOf(stored, presented));
        },
    };
}
