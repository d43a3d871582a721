import { DEVICE_CODE_GRANT_TYPE, TOKEN_EXCHANGE_GRANT_TYPE } from '@realmgate/core';
import { issue, validationFailed, type Issue } from '../../errors/app-error.js';
import type { Tx } from '../resource/context.js';
import { isLoopbackHost, type OutboundPolicy } from '../../outbound/address-policy.js';
import { outboundIssues } from '../outbound-fields.js';
import { findPolicy } from '../../storage/policies.js';

/** The grants the token endpoint serves (API.md §4); the device code grant only when listed (spec rule 14). */
const GRANT_TYPES = ['authorization_code', 'client_credentials', 'password', 'refresh_token', DEVICE_CODE_GRANT_TYPE, TOKEN_EXCHANGE_GRANT_TYPE] as const;

/** RFC 8252 §7.1: a private-use URI scheme is a reverse domain name, so it holds a period (`com.example.app`). */
const PRIVATE_USE_SCHEME = /^[a-z][a-z0-9+-]*(\.[a-z0-9+-]+)+$/;

const SCHEME_RULE = 'https, http on a loopback host, or a private-use scheme holding a period (com.example.app:/cb)';

/**
 * Where a browser may be sent (and whose origin CORS trusts): https; plain http only to a loopback
 * host (RFC 8252 §7.3, §8.3); a native app's private-use scheme (RFC 8252 §7.1). Everything else —
 * `javascript:`, `data:`, `vbscript:`, `file:`, `blob:`, schemes without a period — is refused:
 * a redirect there would run script or read files in the browser (RFC 9700 §4.1, §4.11).
 */
function allowedTarget(url: URL): boolean {
    const scheme = url.protocol.slice(0, -1);
    if (scheme === 'https') return true;
    if (scheme === 'http') return isLoopbackHost(url.hostname);
    return PRIVATE_USE_SCHEME.test(scheme);
}

/**
 * Why a redirect URI is refused, if it is: it must be an exact absolute URI — parseable with a
 * scheme, no fragment (RFC 6749 §3.1.2) and no wildcard (redirect URIs are compared exactly, so a
 * `*` could only ever be a mistake) — of an allowed scheme.
 */
function redirectUriProblem(value: string): string | null {
    if (value.includes('*') || value.includes('#')) return 'is not an exact absolute URI (no wildcard, no fragment)';
    let url: URL;
    try {
        url = new URL(value);
    } catch {
        return 'is not an exact absolute URI (no wildcard, no fragment)';
    }
    return allowedTarget(url) ? null : `must use ${SCHEME_RULE}`;
}

function uriListIssues(name: string, value: unknown): Issue[] {
    if (typeof value !== 'string') return [];
    const uris = value.split(/\s+/).filter(Boolean);
    if (uris.length === 0) return [issue([name], 'invalid_uri', 'lists no URI (use null for none)')];
    return uris.flatMap((uri, index) => {
        const problem = redirectUriProblem(uri);
        return problem === null ? [] : [issue([name, index], 'invalid_uri', `"${uri}" ${problem}`)];
    });
}

/** baseUrl: one absolute URL under the same scheme rule (it is a link the consoles show and an origin CORS allows). */
function baseUrlIssues(value: unknown): Issue[] {
    if (typeof value !== 'string') return [];
    let url: URL | null = null;
    try {
        url = /\s/.test(value) ? null : new URL(value);
    } catch {
        url = null;
    }
    if (url === null) return [issue(['baseUrl'], 'invalid_uri', 'must be one absolute URL')];
    return allowedTarget(url) ? [] : [issue(['baseUrl'], 'invalid_uri', `must use ${SCHEME_RULE}`)];
}

/** Spec: one absolute http(s) URL; no wildcard, no list (OpenID Back-Channel Logout 1.0 §2.2). */
function backchannelIssues(value: unknown): Issue[] {
    if (typeof value !== 'string') return [];
    let ok = !/\s/.test(value) && !value.includes('*') && !value.includes('#');
    if (ok) {
        try {
            const url = new URL(value);
            ok = url.protocol === 'http:' || url.protocol === 'https:';
        } catch {
            ok = false;
        }
    }
    return ok ? [] : [issue(['backchannelLogoutUri'], 'invalid_uri', 'must be one absolute http(s) URL without wildcard or fragment')];
}

function grantTypeIssues(value: unknown): Issue[] {
    if (!Array.isArray(value)) return [];
    return value.flatMap((grant, index) => ((GRANT_TYPES as readonly string[]).includes(grant as string) ?
        [] :
        [issue(['grantTypes', index], 'invalid_grant_type', `must be one of ${GRANT_TYPES.join(', ')}`)]));
}

/** Field rules of a client body (members absent from the body are not checked: an update leaves them). */
export function assertClientFields(input: Record<string, unknown>, outbound: OutboundPolicy): void {
    const backchannel = backchannelIssues(input.backchannelLogoutUri);
    const issues = [
        ...uriListIssues('redirectUri', input.redirectUri),
        ...uriListIssues('postLogoutRedirectUri', input.postLogoutRedirectUri),
        ...baseUrlIssues(input.baseUrl),
        ...backchannel,
        // the server POSTs logout tokens there (Back-Channel Logout 1.0 §2.5): not to its own network
        ...(backchannel.length === 0 ? outboundIssues(outbound, 'backchannelLogoutUri', input.backchannelLogoutUri) : []),
        ...grantTypeIssues(input.grantTypes),
    ];
    if (issues.length > 0) throw validationFailed(issues);
}

/**
 * Spec: accessPolicyId must be global or of the client's own realm (400 otherwise); a policy of
 * another realm would deny every login to the client (spec Next release).
 */
export async function assertAccessPolicy(tx: Tx, policyId: unknown, realmId: unknown): Promise<void> {
    if (typeof policyId !== 'string') return;
    const policy = await findPolicy(tx, policyId.toLowerCase());
    if (!policy) throw validationFailed([issue(['accessPolicyId'], 'invalid_reference', 'names no policy')]);
    if (policy.realm_id !== null && policy.realm_id !== realmId) {
        throw validationFailed([issue(['accessPolicyId'], 'invalid_reference', 'must name a global policy or one of the client\'s realm')]);
    }
}
