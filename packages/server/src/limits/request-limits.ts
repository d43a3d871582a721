import { ErrorCode } from '@realmgate/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors/app-error.js';
import { isFailedAuthentication } from './failed-authentication.js';
import type { Chargeable, Decision, RateLimiter } from './limiter.js';
import type { LoginGate } from './login-gate.js';

/** What the limits remember of one request. */
interface RequestState {
    reply: FastifyReply;
    charged: boolean;
    failed: boolean;
    /** the login gate slot the request holds, released when it ends */
    gateKey?: string;
}

export interface RequestLimits {
    limiter: RateLimiter;
    gate: LoginGate;
    /**
     * Stage two (spec Limits): charges the request once, to the identity that authenticated it
     * (null: its source address); answers 429 with `Retry-After` when the budget is spent.
     */
    chargeRequest(request: FastifyRequest, subject: Chargeable): Promise<void>;
    close(): Promise<void>;
}

const states = new WeakMap<FastifyRequest, RequestState>();

/**
 * Route config of a route that charges each request itself once it knows who is calling, even
 * without an Authorization header (the token routes: a client may authenticate in the body).
 */
export const CHARGED_BY_ROUTE = { limits: 'route' } as const;

function refused(retryAfter: number, message: string): AppError {
    return new AppError(ErrorCode.TOO_MANY_REQUESTS, message, { retryAfter });
}

function apply(decision: Decision, reply: FastifyReply | undefined): void {
    if (!decision.allowed) {
        throw refused(decision.retryAfter, decision.reason === 'address' ?
            'Too many failed authentications from this address; it is refused until the minute ends.' :
            'The request budget of this minute is spent.');
    }
    // draft-ietf-httpapi-ratelimit-headers (the form @fastify/rate-limit sends with its draft option)
    reply?.headers({
        'ratelimit-limit': decision.limit,
        'ratelimit-remaining': decision.remaining,
        'ratelimit-reset': decision.resetSeconds,
    });
}

export function createRequestLimits(limiter: RateLimiter, gate: LoginGate): RequestLimits {
    return {
        limiter,
        gate,
        async chargeRequest(request, subject) {
            const state = states.get(request);
            if (state?.charged) return;
            if (state) state.charged = true;
            apply(await limiter.charge(subject, request.ip), state?.reply);
        },
        close: () => limiter.close(),
    };
}

function decodeBasicName(header: string): string | null {
    const match = /^Basic\s+(\S+)\s*$/i.exec(header);
    if (!match) return null;
    const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    return colon > 0 ? decoded.slice(0, colon) : null;
}

/** The login gate's key: one account (as `loginAccountOf` names it) from one address. */
export function loginGateKey(account: string, address: string): string {
    return `${account}\u0000${address}`;
}

/** The account a request tries to log in as: a Basic name, a password-grant user, a body client. */
function loginAccountOf(request: FastifyRequest): string | null {
    const header = request.headers.authorization;
    if (header !== undefined) {
        const name = header.length < 1024 ? decodeBasicName(header) : null;
        return name === null ? null : `basic:${name}`;
    }
    const body = request.body;
    if (typeof body !== 'object' || body === null) return null;
    const params = body as Record<string, unknown>;
    if (params.grant_type === 'password' && typeof params.username === 'string') return `user:${params.username}`;
    if (typeof params.client_id === 'string' && typeof params.client_secret === 'string') return `client:${params.client_id}`;
    return null;
}

/**
 * The request limits of spec Limits, in two stages. Before authentication an address that
 * reached the failed-authentication limit is refused as a whole (no I/O: see
 * RateLimiter.refusal). After authentication each request is charged once: requests without
 * credentials here, to their address; authenticated ones by the authentication step (http/authentication-step.ts), to their identity; the
 * token routes charge the client that authenticated, else the address, before the grant runs.
 * Requests that end uncharged (credentials a route never authenticated, input refused before
 * authentication) are charged to their address when they end; counted failures are not.
 */
export function registerLimits(app: FastifyInstance, limits: RequestLimits): void {
    app.addHook('onRequest', async (request, reply) => {
        const state: RequestState = { reply, charged: false, failed: false };
        states.set(request, state);
        const seconds = limits.limiter.refusal(request.ip);
        // a refused request costs no counter operation at all
        state.charged = seconds !== null;
        if (seconds !== null) throw refused(seconds, 'Too many failed authentications from this address; it is refused until the minute ends.');
        // spec Limits caps bodies after decompression: no content coding is decoded, so none is accepted
        const encoding = request.headers['content-encoding'];
        if (encoding !== undefined && encoding.trim().toLowerCase() !== 'identity') {
            throw new AppError(ErrorCode.BAD_REQUEST, 'Content-Encoding is not supported; send the body uncompressed.', {
                statusCode: 415, issues: [{ path: ['headers', 'content-encoding'], code: 'unsupported_encoding', message: 'is not supported' }],
            });
        }
        if (request.headers.authorization === undefined && (request.routeOptions.config as { limits?: string }).limits !== CHARGED_BY_ROUTE.limits) {
            await limits.chargeRequest(request, null);
        }
    });
    // the gate holds its slot before the credential is verified: the HTTP authentication step runs
    // at preValidation after this hook, and the endpoints of the token routes in their handler
    app.addHook('preValidation', async (request) => {
        const account = loginAccountOf(request);
        if (account === null) return;
        const key = loginGateKey(account, request.ip);
        if (!limits.gate.enter(key)) {
            throw new AppError(ErrorCode.LOGIN_ATTEMPT_THROTTLED, 'Too many concurrent login attempts for this account.', { retryAfter: 1 });
        }
        states.get(request)!.gateKey = key;
    });
    app.addHook('onError', async (request, _reply, error) => {
        if (!isFailedAuthentication(error)) return;
        const state = states.get(request);
        if (state) state.failed = true;
        if (state?.gateKey !== undefined) limits.gate.failed(state.gateKey);
        await limits.limiter.recordFailure(request.ip);
    });
    const finish = async (request: FastifyRequest) => {
        const state = states.get(request);
        if (!state) return;
        if (state.gateKey !== undefined) {
            limits.gate.leave(state.gateKey);
            delete state.gateKey;
        }
        if (!state.charged && !state.failed) {
            state.charged = true;
            await limits.limiter.charge(null, request.ip);
        }
    };
    app.addHook('onResponse', finish);
    app.addHook('onRequestAbort', finish);
}
