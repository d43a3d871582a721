import { randomUUID } from 'node:crypto';

/** how long a write waits for the other replicas to acknowledge that they emptied their caches */
export const SETTLE_TIMEOUT_MS = 2_000;

/** One settled publish: its id travels with the message, each other replica acknowledges it. */
export interface Settlement {
    id: string;
    /** resolves once every expected replica acknowledged, or after SETTLE_TIMEOUT_MS (reported) */
    settled: Promise<void>;
    /** how many other replicas received the message: known once the publish answered */
    expect(receivers: number): void;
    /** stops waiting (the publish failed, or the caller is done) */
    end(): void;
}

/** What a receiver answers on the acknowledgement channel once its listeners had a settled message. */
interface Acknowledgement {
    settle: string;
}

/** The text a receiver publishes on the acknowledgement channel for the settled message `id`. */
export function acknowledgementOf(id: string): string {
    return JSON.stringify({ settle: id } satisfies Acknowledgement);
}

export interface Settlements {
    open(): Settlement;
    /** a text heard on the acknowledgement channel (anything but an acknowledgement is ignored) */
    heard(text: string): void;
    /** every open settlement ends (the bus closes) */
    endAll(): void;
}

/**
 * The acknowledged publish both shared buses offer (bus.ts `publishSettled`): a write answers only
 * once every replica that received its message says its caches are empty, or after a bounded wait —
 * a replica that died must not hold every write for good.
 */
export function createSettlements(report: (error: unknown, context: string) => void): Settlements {
    const open = new Map<string, { heard: number; expected: number | null; done: () => void }>();
    return {
        open() {
            const id = randomUUID();
            let timer: NodeJS.Timeout | undefined;
            let finish!: () => void;
            const settled = new Promise<void>((resolve) => {
                finish = () => {
                    clearTimeout(timer);
                    open.delete(id);
                    resolve();
                };
                timer = setTimeout(() => {
                    report(new Error(`a replica did not acknowledge within ${SETTLE_TIMEOUT_MS} ms`), 'bus settle timed out');
                    finish();
                }, SETTLE_TIMEOUT_MS);
            });
            const waiting = { heard: 0, expected: null as number | null, done: finish };
            open.set(id, waiting);
            return {
                id,
                settled,
                expect(receivers) {
                    waiting.expected = receivers;
                    if (waiting.heard >= receivers) finish();
                },
                end: finish,
            };
        },
        heard(text) {
            let ack: Partial<Acknowledgement> | null;
            try {
                ack = JSON.parse(text) as Partial<Acknowledgement> | null;
            } catch {
                return;
            }
            const waiting = typeof ack?.settle === 'string' ? open.get(ack.settle) : undefined;
            if (!waiting) return;
            waiting.heard++;
            if (waiting.expected !== null && waiting.heard >= waiting.expected) waiting.done();
        },
        endAll() {
            for (const waiting of [...open.values()]) waiting.done();
        },
    };
}
