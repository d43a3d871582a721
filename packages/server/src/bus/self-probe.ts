import { randomUUID } from 'node:crypto';

/** How one probe ended: heard back in time, or not — `sent` false when sending it failed, true when nothing came back. */
export type ProbeOutcome = { heard: true } | { heard: false; sent: boolean; error: Error };

/**
 * A bus's proof that it hears: a probe carrying a fresh nonce goes out the way the other replicas'
 * messages come in, and only that nonce heard back within `timeoutMs` counts. A listener that
 * LISTENed but hears nothing (behind a pooler in transaction mode, PostgreSQL's NOTIFY reaches the
 * server connection, not the client that asked) or whose network went silent (no reset, so the
 * socket looks open) fails it, where the state of its connection would not tell.
 */
export interface SelfProbe {
    /** sends a probe; settles once it is heard, or as not heard after `timeoutMs`. A probe in progress ends as not heard. Never rejects. */
    run(): Promise<ProbeOutcome>;
    /** the listener heard a probe of this process: ends the probe waiting for this nonce, if any */
    heard(nonce: string): void;
    /** ends the probe in progress as not heard (the bus closes) */
    cancel(): void;
}

export function createSelfProbe(send: (nonce: string) => Promise<unknown>, timeoutMs: number): SelfProbe {
    let waiting: { nonce: string; settle: (outcome: ProbeOutcome) => void } | undefined;
    const end = (why: string) => waiting?.settle({ heard: false, sent: true, error: new Error(why) });
    return {
        run() {
            end('a newer probe replaced it');
            const nonce = randomUUID();
            return new Promise<ProbeOutcome>((resolve) => {
                const settle = (outcome: ProbeOutcome): void => {
                    clearTimeout(timer);
                    if (waiting?.nonce === nonce) waiting = undefined;
                    resolve(outcome);
                };
                const timer = setTimeout(() => settle({ heard: false, sent: true, error: new Error(`its probe was not heard back within ${timeoutMs} ms`) }), timeoutMs);
                waiting = { nonce, settle };
                send(nonce).catch((error: unknown) => settle({ heard: false, sent: false, error: error instanceof Error ? error : new Error(String(error)) }));
            });
        },
        heard(nonce) {
            if (waiting?.nonce === nonce) waiting.settle({ heard: true });
        },
        cancel: () => end('the bus closed'),
    };
}
