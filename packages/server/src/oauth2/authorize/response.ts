import type { ErrorCode } from '@realmgate/core';

/** Where and how an authorization response goes (RFC 6749 §4.1.2, OAuth 2.0 Form Post Response Mode). */
export interface ResponseTarget {
    redirectUri: string;
    responseMode: 'query' | 'form_post';
    state: string | undefined;
    /** RFC 9207 §2: every response, error or not, carries the issuer */
    issuer: string;
    realm: { id: string; name: string; displayName: string | null };
}

/** An authorization response ready to be delivered: the parameters for the redirect URI. */
export interface AuthorizationResponse {
    target: ResponseTarget;
    params: Readonly<Record<string, string>>;
}

function withState(target: ResponseTarget, params: Record<string, string>): AuthorizationResponse {
    return { target, params: { ...params, ...(target.state !== undefined ? { state: target.state } : {}), iss: target.issuer } };
}

/** RFC 6749 §4.1.2: the code, the state as received and (RFC 9207) the issuer. */
export function authorizationSuccess(target: ResponseTarget, code: string): AuthorizationResponse {
    return withState(target, { code });
}

/** RFC 6749 §4.1.2.1: `error`, `error_description`, the state and (RFC 9207) the issuer. */
export function authorizationError(target: ResponseTarget, error: ErrorCode, description: string): AuthorizationResponse {
    return withState(target, { error, error_description: description });
}

/**
 * The redirect URI with the response in its query (RFC 6749 §4.1.2): the registered URI's own
 * query is kept (§3.1.2), the parameters appended; the URI is not re-serialized, so it stays
 * character for character the one registered.
 */
export function responseUrl(response: AuthorizationResponse): string {
    const query = new URLSearchParams(response.params).toString();
    const uri = response.target.redirectUri;
    return `${uri}${uri.includes('?') ? '&' : '?'}${query}`;
}
