/** Token kinds carried in the `kind` claim (spec "Other resource fields": token kind). */
export const TokenKind = {
    ACCESS_TOKEN: 'access_token',
    REFRESH_TOKEN: 'refresh_token',
    ID_TOKEN: 'id_token',
    MFA_TOKEN: 'mfa_token',
    LOGOUT_TOKEN: 'logout_token',
} as const;

export type TokenKind = typeof TokenKind[keyof typeof TokenKind];

export const TOKEN_KINDS: readonly TokenKind[] = Object.freeze(Object.values(TokenKind));

/** RFC 9068 §2.1: the `typ` header of a JWT access token (the media type application/at+jwt). */
export const ACCESS_TOKEN_JWT_TYPE = 'at+jwt';
/** the `typ` of every other token the server signs, and of access tokens signed before RFC 9068 */
const GENERIC_JWT_TYPE = 'JWT';

/**
 * Whether a token's `typ` header fits its `kind` claim (RFC 9068 §2.1, §4): `at+jwt` (or its full
 * media type, RFC 7515 §4.1.9) marks an access token and nothing else, so a refresh or ID token can
 * never pass as an access token, nor an access token as them. An access token typed `JWT` was
 * signed before access tokens were typed; it is accepted until it expires (TOKEN_ACCESS_MAX_AGE).
 * The server and the adapter apply this one rule.
 */
export function tokenTypeFitsKind(typ: unknown, kind: unknown): boolean {
    const accessTyped = typeof typ === 'string' && (typ.toLowerCase() === ACCESS_TOKEN_JWT_TYPE || typ.toLowerCase() === `application/${ACCESS_TOKEN_JWT_TYPE}`);
    if (kind === TokenKind.ACCESS_TOKEN) return accessTyped || typ === GENERIC_JWT_TYPE;
    return !accessTyped;
}

/**
 * Scope names provisioned globally (API.md §3), ensured at every boot so an existing deployment
 * gains a new one on its next start. `global` unlocks identity policy data (spec consumer rule 12);
 * `profile` and `offline_access` are OpenID Connect Core §5.4 and §11.
 */
export const ScopeName = {
    GLOBAL: 'global',
    OPENID: 'openid',
    EMAIL: 'email',
    ROLES: 'roles',
    IDENTITY: 'identity',
    PROFILE: 'profile',
    OFFLINE_ACCESS: 'offline_access',
} as const;

export type ScopeName = typeof ScopeName[keyof typeof ScopeName];

/**
 * RFC 8628 §3.4: the device-code grant, the one grant a client must list by name (spec
 * Authentication 14: `grantTypes` null allows every grant but this one).
 */
export const DEVICE_CODE_GRANT_TYPE = 'urn:ietf:params:oauth:grant-type:device_code';

/** RFC 8693 §2.1: the token-exchange grant. */
export const TOKEN_EXCHANGE_GRANT_TYPE = 'urn:ietf:params:oauth:grant-type:token-exchange';

/**
 * How a client authenticates at the token endpoint (OIDC Registration §2 `token_endpoint_auth_method`,
 * OIDC Core §9; RFC 7523 §2.2 for the JWT methods). A client's null method is derived from its
 * secret: `client_secret_basic` (or `_post`) with one, `none` without.
 */
export const TOKEN_ENDPOINT_AUTH_METHODS = ['client_secret_basic', 'client_secret_post', 'client_secret_jwt', 'private_key_jwt', 'none'] as const;

export type TokenEndpointAuthMethod = (typeof TOKEN_ENDPOINT_AUTH_METHODS)[number];

/** A realm's security profile (API.md §8): null, or the FAPI 2.0 Security Profile. */
export const SECURITY_PROFILES = ['fapi2'] as const;

export type SecurityProfile = (typeof SECURITY_PROFILES)[number];
