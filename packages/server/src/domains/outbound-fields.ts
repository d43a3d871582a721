import { issue, type Issue } from '../errors/app-error.js';
import { refusalOfUrl, type OutboundPolicy } from '../outbound/address-policy.js';

/**
 * A URL field the server will connect to (a back-channel logout URI, an identity provider's
 * endpoints, an LDAP URL): refused when it names a loopback, private, link-local or other
 * special-purpose host that OUTBOUND_ALLOWED_HOSTS does not allow (server-side request forgery; the
 * connection judges the resolved addresses again, outbound/guarded-lookup.ts).
 */
export function outboundIssues(policy: OutboundPolicy, field: string, value: unknown): Issue[] {
    if (typeof value !== 'string') return [];
    const reason = refusalOfUrl(policy, value);
    return reason === null ? [] : [issue([field], 'outbound_refused', `must not name ${reason}; an operator may allow it with OUTBOUND_ALLOWED_HOSTS`)];
}
