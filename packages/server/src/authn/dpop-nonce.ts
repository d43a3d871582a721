import { createHash, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Server-provided DPoP nonces (RFC 9449 §8, §9): an HMAC of the current time window under a key
 * every replica derives from the same configuration, so any replica issues and accepts the same
 * nonce without shared state. A nonce names its window; the current and the previous window are
 * accepted, so a nonce handed out just before a rotation still works for one more window.
 */
export interface DpopNonces {
    /** the nonce of the current window: what a `DPoP-Nonce` header carries */
    current(): string;
    /** whether a proof's nonce is the current window's or the previous one's (compared in constant time) */
    accepts(nonce: string): boolean;
}

/** How long one nonce window lasts: a nonce lives between one and two of them. */
const DPOP_NONCE_WINDOW_SECONDS = 300;

/**
 * The nonce key: DPOP_NONCE_SECRET, else derived from SECRETS_ENCRYPTION_KEY (HKDF, RFC 5869, with
 * its own label, so the nonce key reveals nothing of the secret box's), else random — correct for
 * one process only, since another replica derives another key (docs/guide/modern-oauth.md, DPoP).
 */
export function dpopNonceKey(settings: { nonceSecret: string | undefined; secretsEncryptionKey: string | undefined }): Buffer {
    if (settings.nonceSecret) return createHash('sha256').update(settings.nonceSecret).digest();
    if (settings.secretsEncryptionKey) {
        return Buffer.from(hkdfSync('sha256', settings.secretsEncryptionKey, Buffer.alloc(0), 'realmgate dpop nonce', 32));
    }
    return randomBytes(32);
}

export function createDpopNonces(key: Buffer, clock: () => number = Date.now, windowSeconds = DPOP_NONCE_WINDOW_SECONDS): DpopNonces {
    const windowOf = () => Math.floor(clock() / 1000 / windowSeconds);
    // one HMAC per window, not per request
    let remembered: { window: number; nonce: Buffer } | null = null;
    const nonceOf = (window: number): Buffer => {
        if (remembered?.window === window) return remembered.nonce;
        const nonce = Buffer.from(createHmac('sha256', key).update(`dpop-nonce:${window}`).digest().toString('base64url'));
        if (window >= (remembered?.window ?? -Infinity)) remembered = { window, nonce };
        return nonce;
    };
    const matches = (presented: Buffer, window: number) => {
        const expected = nonceOf(window);
        return presented.length === expected.length && timingSafeEqual(presented, expected);
    };
    return {
        current: () => nonceOf(windowOf()).toString(),
        accepts(nonce) {
            const presented = Buffer.from(nonce);
            const window = windowOf();
            return matches(presented, window) || matches(presented, window - 1);
        },
    };
}
