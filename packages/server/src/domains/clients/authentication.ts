import { issue, validationFailed, type Issue } from '../../errors/app-error.js';
import type { OutboundPolicy } from '../../outbound/address-policy.js';
import { outboundIssues } from '../outbound-fields.js';
import { isResourceIndicator } from '../../tokens/resource-indicator.js';

/** A JWK Set a client registers is small; a larger one is a mistake or an attack on memory. */
const JWKS_MAX_LENGTH = 65_536;
const JWKS_MAX_KEYS = 32;

/** JWK members that carry private or symmetric key material (RFC 7518 §6.2.2, §6.3.2, §6.4; RFC 8037 §2): never registered. */
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];

/** The members each key type needs (RFC 7518 §6.2.1, §6.3.1; RFC 8037 §2) and the curves we verify with. */
const KEY_SHAPES: Readonly<Record<string, { members: readonly string[]; curves?: readonly string[] }>> = {
    RSA: { members: ['n', 'e'] },
    EC: { members: ['crv', 'x', 'y'], curves: ['P-256', 'P-384', 'P-521'] },
    OKP: { members: ['crv', 'x'], curves: ['Ed25519'] },
};

/** A JSON object's members, or null for anything else. */
function membersOf(value: unknown): Readonly<Record<string, unknown>> | null {
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? Object.fromEntries(Object.entries(value)) : null;
}

/** Why one JWK is refused, if it is. */
function keyProblem(key: unknown): string | null {
    const jwk = membersOf(key);
    if (jwk === null) return 'is not a JSON object';
    const shape = typeof jwk.kty === 'string' ? KEY_SHAPES[jwk.kty] : undefined;
    if (!shape) return `has kty ${JSON.stringify(jwk.kty)}; RSA, EC and OKP public keys are accepted`;
    const secret = PRIVATE_MEMBERS.find((member) => member in jwk);
    if (secret !== undefined) return `holds the private member "${secret}": register public keys only`;
    const missing = shape.members.find((member) => typeof jwk[member] !== 'string');
    if (missing !== undefined) return `lacks "${missing}"`;
    if (shape.curves && !shape.curves.includes(String(jwk.crv))) return `has crv ${JSON.stringify(jwk.crv)}; ${shape.curves.join(', ')} are accepted`;
    if (jwk.use !== undefined && jwk.use !== 'sig') return 'has a use other than "sig"';
    return null;
}

/** A JWK Set of public signing keys (RFC 7517 §5), as a client registers it inline (OIDC Registration §2 `jwks`). */
function jwksIssues(value: unknown): Issue[] {
    if (value === undefined || value === null) return [];
    const keys = membersOf(value)?.keys;
    if (!Array.isArray(keys)) return [issue(['jwks'], 'invalid_jwks', 'must be a JWK Set: an object with a "keys" array')];
    if (JSON.stringify(value).length > JWKS_MAX_LENGTH) return [issue(['jwks'], 'invalid_jwks', `must be at most ${JWKS_MAX_LENGTH} characters as JSON`)];
    if (keys.length === 0 || keys.length > JWKS_MAX_KEYS) return [issue(['jwks', 'keys'], 'invalid_jwks', `must hold 1 to ${JWKS_MAX_KEYS} keys`)];
    const issues = keys.flatMap((key, index) => {
        const problem = keyProblem(key);
        return problem === null ? [] : [issue(['jwks', 'keys', index], 'invalid_jwk', `the key ${problem}`)];
    });
    const kids = keys.map((key) => membersOf(key)?.kid).filter((kid) => kid !== undefined);
    if (new Set(kids).size !== kids.length) issues.push(issue(['jwks', 'keys'], 'invalid_jwks', 'the keys\' "kid" values must be unique'));
    return issues;
}

/** jwksUri: one absolute https URL (http only to a host the operator allows), not the server's own network. */
function jwksUriIssues(value: unknown, outbound: OutboundPolicy): Issue[] {
    if (typeof value !== 'string') return [];
    let url: URL | null = null;
    try {
        url = /\s|#|\*/.test(value) ? null : new URL(value);
    } catch {
        url = null;
    }
    if (url === null || (url.protocol !== 'https:' && url.protocol !== 'http:')) {
        return [issue(['jwksUri'], 'invalid_uri', 'must be one absolute http(s) URL without wildcard or fragment')];
    }
    return outboundIssues(outbound, 'jwksUri', value);
}

/** RFC 8707 §2: the audience a resource server answers to is a resource indicator. */
function audienceIssues(value: unknown): Issue[] {
    if (typeof value !== 'string' || isResourceIndicator(value)) return [];
    return [issue(['audience'], 'invalid_uri', 'must be an absolute URI without a fragment (RFC 8707 §2)')];
}

/** The members of a client body about its authentication, checked one by one (absent members are not checked). */
export function authenticationFieldIssues(input: Record<string, unknown>, outbound: OutboundPolicy): Issue[] {
    return [...jwksIssues(input.jwks), ...jwksUriIssues(input.jwksUri, outbound), ...audienceIssues(input.audience)];
}

/** A client's authentication as it will be stored: the body over the row. */
export interface ClientAuthenticationState {
    /** a TOKEN_ENDPOINT_AUTH_METHODS member, or null */
    method: unknown;
    hasSecret: boolean;
    secretHashed: boolean;
    hasJwks: boolean;
    hasJwksUri: boolean;
}

/**
 * The rules between the members (OIDC Registration §2, RFC 7591 §2): `jwks` and `jwksUri` not
 * both; `private_key_jwt` needs keys; `client_secret_jwt` an HMAC key, so a secret the server can
 * read (not a hash); the other secret methods a secret; `none` no secret.
 */
export function assertAuthenticationState(state: ClientAuthenticationState): void {
    const issues: Issue[] = [];
    if (state.hasJwks && state.hasJwksUri) issues.push(issue(['jwksUri'], 'conflict', 'jwks and jwksUri cannot both be set (RFC 7591 §2)'));
    switch (state.method) {
        case 'private_key_jwt':
            if (!state.hasJwks && !state.hasJwksUri) issues.push(issue(['jwks'], 'required', 'private_key_jwt needs the client\'s public keys in jwks or jwksUri'));
            break;
        case 'client_secret_jwt':
            if (!state.hasSecret) issues.push(issue(['secret'], 'required', 'client_secret_jwt needs a secret'));
            else if (state.secretHashed) issues.push(issue(['secretHashed'], 'conflict', 'client_secret_jwt signs with the secret, so it cannot be stored hashed'));
            break;
        case 'client_secret_basic':
        case 'client_secret_post':
            if (!state.hasSecret) issues.push(issue(['secret'], 'required', `${state.method} needs a secret`));
            break;
        case 'none':
            if (state.hasSecret) issues.push(issue(['secret'], 'conflict', 'a client with method none has no secret'));
            break;
        default:
    }
    if (issues.length > 0) throw validationFailed(issues);
}
