import { ErrorCode, isErrorCode } from '@realmgate/core';

/** One issue of a 400 answer (API.md §1): the member's path, a code and a message. */
export interface RealmgateErrorIssue {
    path: (string | number)[];
    code: string;
    message: string;
}

const MARK = Symbol.for('@realmgate/client/error');

/**
 * The one error the client throws for an answer that is not a success, and for a network failure
 * (statusCode 0, code internal_error). `code` is a value of the ErrorCode enumeration; `error` is
 * the RFC 6749 §5.2 code on the protocol routes; `retryAfter` is in seconds (a 429's Retry-After);
 * `cause` is what went wrong underneath (the fetch failure, the timeout, a failed refresh).
 */
export class RealmgateError extends Error {
    readonly [MARK] = true;
    readonly statusCode: number;
    readonly code: ErrorCode;
    readonly issues: RealmgateErrorIssue[];
    readonly retryAfter: number | undefined;
    readonly error: string | undefined;
    /** the answer's body as parsed, for members beyond the error body (an mfa_required answer's mfa_token) */
    readonly body: unknown;

    constructor(init: { statusCode: number; code: ErrorCode; message: string; issues?: RealmgateErrorIssue[]; retryAfter?: number; error?: string; body?: unknown; cause?: unknown }) {
        super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
        this.name = 'RealmgateError';
        this.statusCode = init.statusCode;
        this.code = init.code;
        this.issues = init.issues ?? [];
        this.retryAfter = init.retryAfter;
        this.error = init.error;
        this.body = init.body;
    }
}

/** True for an error of this client, whichever copy of the package threw it (no instanceof test). */
export function isRealmgateError(value: unknown): value is RealmgateError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[MARK] === true;
}

/** Status codes without a code in the body fall back to the API.md §1 "Status by code" table. */
function fallbackCode(status: number): ErrorCode {
    switch (status) {
        case 400: return ErrorCode.BAD_REQUEST;
        case 401: return ErrorCode.INVALID_TOKEN;
        case 403: return ErrorCode.PERMISSION_DENIED;
        case 404: return ErrorCode.ENTITY_NOT_FOUND;
        case 409: return ErrorCode.ENTITY_CONFLICT;
        case 429: return ErrorCode.TOO_MANY_REQUESTS;
        default: return ErrorCode.INTERNAL_ERROR;
    }
}

/** Seconds of a Retry-After header: delta-seconds or an HTTP date (RFC 9110 §10.2.3). */
function parseRetryAfter(header: string | null, now: number = Date.now()): number | undefined {
    if (!header) return undefined;
    if (/^\d+$/.test(header.trim())) return Number(header.trim());
    const date = Date.parse(header);
    return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - now) / 1000));
}

/** The error for a failed answer, from its body (API.md §1) and its Retry-After header. */
export function errorFromAnswer(status: number, body: unknown, retryAfterHeader: string | null): RealmgateError {
    const record = typeof body === 'object' && body !== null ? body as Record<string, unknown> : {};
    const retryAfter = typeof record.retryAfter === 'number' ? record.retryAfter : parseRetryAfter(retryAfterHeader);
    return new RealmgateError({
        statusCode: status,
        code: isErrorCode(record.code) ? record.code : fallbackCode(status),
        message: typeof record.message === 'string' ? record.message : `request failed with status ${status}`,
        issues: Array.isArray(record.issues) ? record.issues as RealmgateErrorIssue[] : [],
        ...(retryAfter === undefined ? {} : { retryAfter }),
        ...(typeof record.error === 'string' ? { error: record.error } : {}),
        body,
    });
}
