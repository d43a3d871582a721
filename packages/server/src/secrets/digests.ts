import { createHash, randomBytes } from 'node:crypto';

/**
 * SHA-256 hex: how a bearer secret the server hands out is stored — authorization and device codes
 * (spec Authentication 12), console-session cookie secrets, recovery codes. The value itself is
 * never written; a database read cannot replay it.
 */
export function sha256Hex(value: string): string {
    return createHash('sha256').update(value, 'utf8').digest('hex');
}

/** 32 random bytes, base64url (256 bits): codes, cookie secrets, CSRF tokens. */
export function randomToken(): string {
    return randomBytes(32).toString('base64url');
}
