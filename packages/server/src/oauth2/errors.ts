import { ErrorCode } from '@realmgate/core';
import { AppError } from '../errors/app-error.js';

/**
 * An RFC 6749 §5.2 error. The status follows API.md §1 (invalid_client 401, the others 400); the
 * token route adds `error` and `error_description` to the body.
 */
export function oauthError(code: ErrorCode, description: string): AppError {
    return new AppError(code, description);
}

export const invalidRequest = (description: string): AppError => oauthError(ErrorCode.INVALID_REQUEST, description);
export const invalidClient = (description = 'Client authentication failed.'): AppError => oauthError(ErrorCode.INVALID_CLIENT, description);
export const invalidGrant = (description: string): AppError => oauthError(ErrorCode.INVALID_GRANT, description);

/** Protocol members an error carries beside `error` and `error_description` (the mfa_token). */
const protocolMembers = new WeakMap<object, Readonly<Record<string, string>>>();

/**
 * `mfa_required` (API.md §1 ErrorCode): the password was right and a second factor is
 * due. Answered 400 as every RFC 6749 §5.2 grant error; `mfa_token` (when given) is the ticket
 * the multi-factor grant redeems with the code.
 */
export function mfaRequired(description: string, mfaToken: string | null): AppError {
    const error = new AppError(ErrorCode.MFA_REQUIRED, description, { statusCode: 400 });
    if (mfaToken !== null) protocolMembers.set(error, { mfa_token: mfaToken });
    return error;
}

/** The extra protocol members of an error (none for most). */
export function protocolMembersOf(error: unknown): Readonly<Record<string, string>> {
    return (typeof error === 'object' && error !== null && protocolMembers.get(error)) || {};
}
