import { ERROR_CODE_STATUS, ErrorCode } from '@realmgate/core';

/** One validation finding (API.md §1 error body `issues`). */
export interface Issue {
    path: (string | number)[];
    code: string;
    message: string;
}

/**
 * The one error type routes and services throw. The error handler renders it as the API.md §1
 * body; `message` is client-safe (internal detail goes to the log, never the body).
 */
export class AppError extends Error {
    readonly statusCode: number;

    readonly code: ErrorCode;

    readonly issues?: Issue[];

    readonly retryAfter?: number;

    /** the `WWW-Authenticate` challenge of a 401 (RFC 7235 §4.1); Basic when not given */
    readonly challenge?: string;

    /**
     * Internal detail for the operator (DESIGN.md habit 4; fosite's debug apart from its hint): the
     * error handler logs it, the answer never carries it. It must hold no secret, hash or password.
     */
    readonly detail?: string;

    /** response headers the answer carries beside the body (RFC 9449 §8: a fresh `DPoP-Nonce`) */
    readonly headers?: Readonly<Record<string, string>>;

    constructor(code: ErrorCode, message: string, options: { issues?: Issue[]; retryAfter?: number; statusCode?: number; challenge?: string; detail?: string; headers?: Record<string, string> } = {}) {
        super(message);
        this.name = 'AppError';
        this.code = code;
        this.statusCode = options.statusCode ?? ERROR_CODE_STATUS[code];
        if (options.issues) this.issues = options.issues;
        if (options.retryAfter !== undefined) this.retryAfter = options.retryAfter;
        if (options.challenge !== undefined) this.challenge = options.challenge;
        if (options.detail !== undefined) this.detail = options.detail;
        if (options.headers !== undefined) this.headers = options.headers;
    }
}

export function badRequest(message: string, issues?: Issue[], detail?: string): AppError {
    return new AppError(ErrorCode.BAD_REQUEST, message, { ...(issues ? { issues } : {}), ...(detail !== undefined ? { detail } : {}) });
}

/** A 400 carrying one issue per finding; the message summarises the first. */
export function validationFailed(issues: Issue[]): AppError {
    const first = issues[0];
    const summary = first ? `${first.path.join('.') || '(body)'}: ${first.message}` : 'invalid input';
    return new AppError(ErrorCode.BAD_REQUEST, `Validation failed — ${summary}`, { issues });
}

export function issue(path: (string | number)[], code: string, message: string): Issue {
    return { path, code, message };
}

export const notFound = (what = 'entity'): AppError => new AppError(ErrorCode.ENTITY_NOT_FOUND, `The ${what} was not found.`);
export const forbidden = (message = 'You do not have the permission for this action.'): AppError =>
    new AppError(ErrorCode.PERMISSION_DENIED, message);
export const conflict = (message = 'An entity with these unique values already exists.', detail?: string): AppError =>
    new AppError(ErrorCode.ENTITY_CONFLICT, message, detail !== undefined ? { detail } : {});
