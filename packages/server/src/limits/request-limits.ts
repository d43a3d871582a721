import { ErrorCode } from '@realmgate/core';
import { AppError } from '../errors/app-error.js';
import type { DeviceVerificationThrottle } from './device-verification.js';
import type { Chargeable, Decision, RateLimiter } from './limiter.js';
import type { LoginGate } from './login-gate.js';
import type { SecondFactorAttempts } from './second-factor-attempts.js';

/**
 * A request as the limits see it, without its transport: an object that stands for the request
 * for as long as it runs (the limits remember it by identity) and its source address.
 */
export interface LimitedRequest {
    readonly ip: string;
}

/** The rate-limit answer headers (draft-ietf-httpapi-ratelimit-headers, the form @fastify/rate-limit sends). */
export type RateLimitHeaders = Record<'ratelimit-limit' | 'ratelimit-remaining' | 'ratelimit-reset', number>;

/** What the limits remember of one request. */
interface RequestState {
    /** sends the rate-limit headers with the request's answer */
    headers: (values: RateLimitHeaders) => void;
    charged: boolean;
    failed: boolean;
    /** the login gate slot the request holds, released when it ends */
    gateKey?: string;
}

/**
 * The request limits of spec Limits, in two stages. Before authentication an address that
 * reached the failed-authentication limit is refused as a whole (`admit`, no I/O: see
 * RateLimiter.refusal). After authentication each request is charged once (`chargeRequest`): to
 * the identity that authenticated it, else to its address. Requests that end uncharged
 * (credentials a route never authenticated, input refused before authentication) are charged to
 * their address when they end (`finish`); counted failures are not.
 */
export interface RequestLimits {
    limiter: RateLimiter;
    gate: LoginGate;
    /** RFC 8628 §5.1: wrong user codes per address and per session, in the same counter store */
    deviceVerification: DeviceVerificationThrottle;
    /** wrong second factors per sign-in ticket and per user, never per address, in the same counter store */
    secondFactor: SecondFactorAttempts;
    /** stage one: starts tracking the request; throws 429 when its address is refused as a whole */
    admit(request: LimitedRequest, headers: (values: RateLimitHeaders) => void): void;
    /**
     * Stage two (spec Limits): charges the request once, to the identity that authenticated it
     * (null: its source address); answers 429 with `Retry-After` when the budget is spent.
     */
    chargeRequest(request: LimitedRequest, subject: Chargeable): Promise<void>;
    /** spec Authentication rule 16: holds a login-gate slot for `account` from the request's address, or throws 429 */
    enterLoginGate(request: LimitedRequest, account: string): void;
    /** a counted failed authentication (limits/failed-authentication.ts) ended the request */
    failed(request: LimitedRequest): Promise<void>;
    /** the request ended (answered or aborted): its gate slot is released, an uncharged request charged to its address */
    finish(request: LimitedRequest): Promise<void>;
    /** whether the counter store (Redis when REDIS_URL is set) answers: GET /health/ready */
    storeReachable(): Promise<boolean>;
    close(): Promise<void>;
}

const ADDRESS_REFUSED = 'Too many failed authentications from this address; it is refused until the minute ends.';

function refused(retryAfter: number, message: string): AppError {
    return new AppError(ErrorCode.TOO_MANY_REQUESTS, message, { retryAfter });
}

function apply(decision: Decision, state: RequestState | undefined): void {
    if (!decision.allowed) {
        throw refused(decision.retryAfter, decision.reason === 'address' ? ADDRESS_REFUSED : 'The request budget of this minute is spent.');
    }
    state?.headers({
        'ratelimit-limit': decision.limit,
        'ratelimit-remaining': decision.remaining,
        'ratelimit-reset': decision.resetSeconds,
    });
}

/** The login gate's key: one account (`basic:<name>`, `user:<name>`, `client:<id>`) from one address. */
export function loginGateKey(account: string, address: string): string {
    return `${account}\u0000${address}`;
}

export function createRequestLimits(
    limiter: RateLimiter, gate: LoginGate, deviceVerification: DeviceVerificationThrottle, secondFactor: SecondFactorAttempts, onFailure: () => void = () => undefined,
): RequestLimits {
    const states = new WeakMap<LimitedRequest, RequestState>();
    return {
        limiter,
        gate,
        deviceVerification,
        secondFactor,
        admit(request, headers) {
            const seconds = limiter.refusal(request.ip);
            // a refused request costs no counter operation at all
            states.set(request, { headers, charged: seconds !== null, failed: false });
            if (seconds !== null) throw refused(seconds, ADDRESS_REFUSED);
        },
        async chargeRequest(request, subject) {
            const state = states.get(request);
            if (state?.charged) return;
            if (state) state.charged = true;
            apply(await limiter.charge(subject, request.ip), state);
        },
        enterLoginGate(request, account) {
            const key = loginGateKey(account, request.ip);
            if (!gate.enter(key)) {
                throw new AppError(ErrorCode.LOGIN_ATTEMPT_THROTTLED, 'Too many concurrent login attempts for this account.', { retryAfter: 1 });
            }
            const state = states.get(request);
            if (state) state.gateKey = key;
        },
        async failed(request) {
            onFailure();
            const state = states.get(request);
            if (state) state.failed = true;
            if (state?.gateKey !== undefined) gate.failed(state.gateKey);
            await limiter.recordFailure(request.ip);
        },
        async finish(request) {
            const state = states.get(request);
            if (!state) return;
            if (state.gateKey !== undefined) {
                gate.leave(state.gateKey);
                delete state.gateKey;
            }
            if (!state.charged && !state.failed) {
                state.charged = true;
                await limiter.charge(null, request.ip);
            }
        },
        storeReachable: () => limiter.storeReachable(),
        close: () => limiter.close(),
    };
}
