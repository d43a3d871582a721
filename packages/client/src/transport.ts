import { ErrorCode } from '@realmgate/core';
import { errorFromAnswer, RealmgateError } from './errors.js';

/*
 * One call on the wire: a per-attempt timeout combined with the caller's signal, and the retry
 * policy — a 429 after its Retry-After (RFC 6585 §4) whatever the method; a network failure or a
 * 5xx only for an idempotent method (RFC 9110 §9.2.2: repeating it has the effect of sending it
 * once), after the answer's Retry-After (RFC 9110 §10.2.3) or an exponential backoff with jitter.
 */

export interface RetryPolicy {
    /** attempts after the first; default 2 */
    retries?: number;
    /** a Retry-After longer than this (seconds) is not waited for: the error is thrown; default 60 */
    maxDelaySeconds?: number;
    /** the first backoff (milliseconds) of a network failure or 5xx without Retry-After; doubled per attempt; default 250 */
    baseDelayMilliseconds?: number;
    /** the wait, replaceable for tests and custom schedulers; `signal` is the caller's, whose abort ends it */
    sleep?: (milliseconds: number, signal?: AbortSignal) => Promise<void>;
    /** the jitter's random source in [0, 1); default Math.random */
    random?: () => number;
}

/** RFC 9110 §9.2.2: the methods whose repetition is harmless. */
const IDEMPOTENT = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']);

/** What one attempt sends; built again per attempt (a token source may have renewed in between). */
export interface Outgoing {
    headers: Record<string, string>;
    body?: string | URLSearchParams;
}

export interface CallSettings {
    method: string;
    url: string;
    /** the caller's signal: its abort ends the call, never retried */
    signal?: AbortSignal | undefined;
    /** milliseconds each attempt may take */
    timeout?: number | undefined;
}

const wait = (milliseconds: number, signal?: AbortSignal) => new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
        reject(signal.reason);
        return;
    }
    const timer = setTimeout(() => {
        signal?.removeEventListener('abort', abort);
        resolve();
    }, milliseconds);
    const abort = () => {
        clearTimeout(timer);
        reject(signal?.reason);
    };
    signal?.addEventListener('abort', abort, { once: true });
});

async function readBody(response: Response): Promise<unknown> {
    const text = await response.text();
    if (text === '') return null;
    return (response.headers.get('content-type') ?? '').includes('json') ? JSON.parse(text) : text;
}

/** The signal of one attempt: the caller's, and the timeout's (AbortSignal.timeout). */
function attemptSignal(settings: CallSettings): AbortSignal | undefined {
    const signals = [settings.signal, settings.timeout === undefined ? undefined : AbortSignal.timeout(settings.timeout)].filter((signal) => signal !== undefined);
    if (signals.length <= 1) return signals[0];
    return AbortSignal.any(signals);
}

function networkError(settings: CallSettings, cause: unknown): RealmgateError {
    const timedOut = cause instanceof Error && cause.name === 'TimeoutError' && settings.signal?.aborted !== true;
    const message = timedOut ? `request to ${settings.url} timed out after ${settings.timeout} ms` :
        `request to ${settings.url} failed: ${cause instanceof Error ? cause.message : String(cause)}`;
    return new RealmgateError({ statusCode: 0, code: ErrorCode.INTERNAL_ERROR, message, cause });
}

export type Sender = (settings: CallSettings, prepare: () => Promise<Outgoing>) => Promise<unknown>;

/** A sender with a fetch and a retry policy (false: one attempt, 429 included). */
export function createSender(doFetch: typeof fetch, policy: RetryPolicy | false | undefined): Sender {
    const retries = policy === false ? 0 : policy?.retries ?? 2;
    const maxDelay = (policy === false ? 0 : policy?.maxDelaySeconds ?? 60) * 1000;
    const baseDelay = (policy === false ? 0 : policy?.baseDelayMilliseconds) ?? 250;
    const random = (policy === false ? undefined : policy?.random) ?? Math.random;
    const sleep = (policy === false ? undefined : policy?.sleep) ?? wait;

    /** Exponential backoff with "equal jitter": half the step fixed, half random, so retrying clients spread out. */
    const backoff = (attempt: number) => {
        const step = Math.min(maxDelay, baseDelay * 2 ** attempt);
        return Math.round(step / 2 + random() * (step / 2));
    };

    return async (settings, prepare) => {
        const idempotent = IDEMPOTENT.has(settings.method);
        for (let attempt = 0; ; attempt += 1) {
            const outgoing = await prepare();
            const signal = attemptSignal(settings);
            let failure: RealmgateError;
            let delay: number | undefined;
            try {
                const response = await doFetch(settings.url, {
                    method: settings.method, headers: outgoing.headers,
                    ...(outgoing.body === undefined ? {} : { body: outgoing.body }), ...(signal ? { signal } : {}),
                });
                const parsed = await readBody(response);
                if (response.ok) return parsed;
                failure = errorFromAnswer(response.status, parsed, response.headers.get('retry-after'));
                const after = failure.retryAfter === undefined ? undefined : failure.retryAfter * 1000;
                if (response.status === 429) delay = after ?? 1000;
                else if (response.status >= 500 && idempotent) delay = after ?? backoff(attempt);
            } catch (cause) {
                // the caller's abort ends the call; a timeout or a network failure is a failed attempt
                if (settings.signal?.aborted) throw networkError(settings, cause);
                failure = networkError(settings, cause);
                if (idempotent) delay = backoff(attempt);
            }
            if (delay === undefined || attempt >= retries || delay > maxDelay) throw failure;
            await sleep(delay, settings.signal);
        }
    };
}
