import { createHash } from 'node:crypto';
import type { CounterStore } from './counter-store.js';

/**
 * Mails of one kind to one address: one a minute, five an hour (OWASP Forgot Password Cheat
 * Sheet: protect the user's inbox from a flood of requests). A request anyone may send (a reset,
 * a registration) must not let a stranger fill someone's mailbox, nor make the relay the sender of
 * a flood. Each window starts at its first mail (the counter's lifetime), so a burst never
 * straddles two windows.
 */
const MAIL_WINDOWS: readonly { name: string; ms: number; max: number }[] = [
    { name: 'minute', ms: 60_000, max: 1 },
    { name: 'hour', ms: 3_600_000, max: 5 },
];

/** The kinds of mail an anonymous or self-service request triggers (mail/templates.ts). */
export type MailKind = 'reset' | 'activation';

export interface MailThrottle {
    /**
     * Counts one mail of this kind to this address; null when it may leave, else the seconds until
     * the window that refused it ends at the latest.
     */
    admit(kind: MailKind, address: string): Promise<number | null>;
}

/**
 * The mail throttle in the counter store of the request limits (Redis when REDIS_URL is set, in
 * process otherwise), so every replica counts the same mails. The key carries the address's
 * SHA-256, never the address: a shared Redis holds no personal data for it.
 */
export function createMailThrottle(store: CounterStore, prefix: string): MailThrottle {
    return {
        async admit(kind, address) {
            const digest = createHash('sha256').update(address.trim().toLowerCase()).digest('hex');
            for (const window of MAIL_WINDOWS) {
                const [count] = await store.incrementAndRead(`${prefix}mail:${kind}:${window.name}:${digest}`, null, window.ms);
                if (count > window.max) return Math.ceil(window.ms / 1000);
            }
            return null;
        },
    };
}
