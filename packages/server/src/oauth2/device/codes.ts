import { randomInt } from 'node:crypto';

/**
 * The two codes of a device authorization (RFC 8628 §3.2). The device code is a 256-bit bearer
 * secret (spec Authentication 12). The user code is typed by a person: 8 characters from an
 * alphabet without vowels (no words are spelt) nor look-alikes (0/O, 1/I/L), shown XXXX-XXXX —
 * RFC 8628 §6.1's recommendation; 20^8 ≈ 2^34.6 values, so guessing is throttled (§5.1).
 */
export const USER_CODE_ALPHABET = 'BCDFGHJKLMNPQRSTVWXZ';
const USER_CODE_LENGTH = 8;

/** A fresh user code in its displayed form, XXXX-XXXX. */
export function newUserCode(): string {
    let code = '';
    for (let index = 0; index < USER_CODE_LENGTH; index++) code += USER_CODE_ALPHABET[randomInt(USER_CODE_ALPHABET.length)];
    return `${code.slice(0, 4)}-${code.slice(4)}`;
}

/**
 * What a user typed, as stored: case-insensitive, the dash (and spaces) optional (RFC 8628 §6.1:
 * "ignore any characters like punctuation"); null when it cannot be a user code at all.
 */
export function normalizeUserCode(typed: string): string | null {
    const code = typed.toUpperCase().replace(/[\s-]/g, '');
    if (code.length !== USER_CODE_LENGTH) return null;
    for (const char of code) if (!USER_CODE_ALPHABET.includes(char)) return null;
    return code;
}
