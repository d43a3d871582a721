/**
 * Stable error codes of every error body (API.md §1). Clients switch over them, so a value is
 * never renamed; the device-flow codes are part of the enumeration (spec Errors). docs/reference/errors.md
 * says when each is answered and which RFC `error` it carries on the protocol routes; a code added
 * here needs its row there (error-catalogue.test.ts).
 */
export const ErrorCode = {
    BAD_REQUEST: 'bad_request',
    PAYLOAD_TOO_LARGE: 'payload_too_large',
    UNSUPPORTED_MEDIA_TYPE: 'unsupported_media_type',
    INTERNAL_ERROR: 'internal_error',
    INVALID_CREDENTIALS: 'invalid_credentials',
    ENTITY_INACTIVE: 'entity_inactive',
    ENTITY_NOT_FOUND: 'entity_not_found',
    ENTITY_CONFLICT: 'entity_conflict',
    PERMISSION_DENIED: 'permission_denied',
    INVALID_TOKEN: 'invalid_token',
    INACTIVE_TOKEN: 'inactive_token',
    EXPIRED_TOKEN: 'expired_token',
    INVALID_CLIENT: 'invalid_client',
    UNAUTHORIZED_CLIENT: 'unauthorized_client',
    INVALID_GRANT: 'invalid_grant',
    INVALID_REQUEST: 'invalid_request',
    INVALID_SCOPE: 'invalid_scope',
    INVALID_TARGET: 'invalid_target',
    UNSUPPORTED_GRANT_TYPE: 'unsupported_grant_type',
    UNSUPPORTED_RESPONSE_TYPE: 'unsupported_response_type',
    REDIRECT_URI_MISMATCH: 'redirect_uri_mismatch',
    LOGIN_REQUIRED: 'login_required',
    ACCESS_DENIED: 'access_denied',
    CONSENT_REQUIRED: 'consent_required',
    INTERACTION_REQUIRED: 'interaction_required',
    REQUEST_NOT_SUPPORTED: 'request_not_supported',
    REQUEST_URI_NOT_SUPPORTED: 'request_uri_not_supported',
    INVALID_REQUEST_URI: 'invalid_request_uri',
    INVALID_REQUEST_OBJECT: 'invalid_request_object',
    MFA_REQUIRED: 'mfa_required',
    TOO_MANY_REQUESTS: 'too_many_requests',
    LOGIN_ATTEMPT_THROTTLED: 'login_attempt_throttled',
    AUTHORIZATION_PENDING: 'authorization_pending',
    SLOW_DOWN: 'slow_down',
    DEVICE_CODE_EXPIRED: 'device_code_expired',
    DEVICE_VERIFICATION_THROTTLED: 'device_verification_throttled',
    TEMPORARILY_UNAVAILABLE: 'temporarily_unavailable',
    MAIL_UNAVAILABLE: 'mail_unavailable',
    INVALID_REDIRECT_URI: 'invalid_redirect_uri',
    INVALID_CLIENT_METADATA: 'invalid_client_metadata',
    INVALID_DPOP_PROOF: 'invalid_dpop_proof',
    USE_DPOP_NONCE: 'use_dpop_nonce',
} as const;

export type ErrorCode = typeof ErrorCode[keyof typeof ErrorCode];

export const ERROR_CODES: readonly ErrorCode[] = Object.freeze(Object.values(ErrorCode));

/** HTTP status for each code (API.md §1 "Status by code"). */
export const ERROR_CODE_STATUS: Readonly<Record<ErrorCode, number>> = Object.freeze({
    bad_request: 400,
    payload_too_large: 413,
    unsupported_media_type: 415,
    internal_error: 500,
    invalid_credentials: 401,
    entity_inactive: 401,
    entity_not_found: 404,
    entity_conflict: 409,
    permission_denied: 403,
    invalid_token: 401,
    inactive_token: 401,
    expired_token: 401,
    invalid_client: 401,
    unauthorized_client: 400,
    invalid_grant: 400,
    invalid_request: 400,
    invalid_scope: 400,
    invalid_target: 400,
    unsupported_grant_type: 400,
    unsupported_response_type: 400,
    redirect_uri_mismatch: 400,
    login_required: 400,
    access_denied: 403,
    consent_required: 400,
    interaction_required: 400,
    request_not_supported: 400,
    request_uri_not_supported: 400,
    invalid_request_uri: 400,
    invalid_request_object: 400,
    mfa_required: 401,
    too_many_requests: 429,
    login_attempt_throttled: 429,
    authorization_pending: 400,
    slow_down: 400,
    device_code_expired: 400,
    device_verification_throttled: 429,
    temporarily_unavailable: 503,
    mail_unavailable: 503,
    // RFC 7591 §3.2.2: a registration request whose metadata the server refuses
    invalid_redirect_uri: 400,
    invalid_client_metadata: 400,
    invalid_dpop_proof: 400,
    use_dpop_nonce: 400,
});

export function isErrorCode(value: unknown): value is ErrorCode {
    return typeof value === 'string' && Object.prototype.hasOwnProperty.call(ERROR_CODE_STATUS, value);
}
