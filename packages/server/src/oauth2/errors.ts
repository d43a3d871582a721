import { ErrorCode } from '@realmgate/core';
import { HttpError } from '../http/errors.js';

/**
 * An RFC 6749 §5.2 error. The status follows API.md §1 (invalid_client 401, the others 400); the
 * token route adds `error` and `error_description` to the body.
 */
export function oauthError(code: ErrorCode, description: string): HttpError {
    return new HttpError(code, description);
}

export const invalidRequest = (description: string): HttpError => oauthError(ErrorCode.INVALID_REQUEST, description);
export const invalidClient = (description = 'Client authentication failed.'): HttpError => oauthError(ErrorCode.INVALID_CLIENT, description);
export const invalidGrant = (description: string): HttpError => oauthError(ErrorCode.INVALID_GRANT, description);
