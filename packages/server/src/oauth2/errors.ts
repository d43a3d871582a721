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
