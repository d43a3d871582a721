import type { DbBool, DbDate, Timestamps } from './columns.js';

/*
 * Second factors (TOTP, WebAuthn, recovery codes, mfa tickets) and upstream identity providers
 * with their mappings, links and pending round trips.
 */

/** A TOTP authenticator (RFC 6238; migration 0005); the seed sealed under the realm's encryption key. */
export interface UserAuthenticatorTable extends Timestamps {
    id: string;
    user_id: string;
    realm_id: string;
    type: string;
    name: string;
    secret: string;
    confirmed: DbBool;
    /** the last accepted time step: a code of it or an earlier step is a replay */
    last_step: number | string | null;
    /** a `webauthn` authenticator's credential (migration 0023): null for `totp` */
    credential_id: string | null;
    /** SHA-256 hex of the credential id: the unique, indexed key a sign-in looks it up by */
    credential_digest: string | null;
    /** the COSE public key, base64url */
    public_key: string | null;
    /** WebAuthn §6.1.1 signature counter last seen */
    sign_count: number | string | null;
    /** comma-separated AuthenticatorTransport values the authenticator reported */
    transports: string | null;
    aaguid: string | null;
    last_used_at: DbDate | null;
}

/** A WebAuthn ceremony's challenge (migration 0023), keyed by its SHA-256 digest, spent by one DELETE. */
export interface WebauthnChallengeTable {
    id: string;
    purpose: string;
    realm_id: string;
    user_id: string | null;
    expires_at: DbDate;
}

/** A recovery code (migration 0005), stored as its SHA-256 digest, single use. */
export interface UserRecoveryCodeTable {
    id: string;
    user_id: string;
    realm_id: string;
    code_digest: string;
    used_at: DbDate | null;
    created_at: DbDate;
}

/** An issued mfa_token by jti (migration 0005): deleted by its one redemption. */
export interface MfaTicketTable {
    id: string;
    user_id: string;
    realm_id: string;
    expires_at: DbDate;
    created_at: DbDate;
}

/** An upstream identity provider (migration 0010): OIDC, OAuth 2.0 or LDAP. */
export interface IdentityProviderTable extends Timestamps {
    id: string;
    name: string;
    display_name: string | null;
    protocol: string;
    enabled: DbBool;
    realm_id: string;
    issuer: string | null;
    client_id: string | null;
    /** `enc:` AES-256-GCM envelope under the realm's encryption key (a plaintext only from before encryption) */
    client_secret: string | null;
    scope: string | null;
    authorization_url: string | null;
    token_url: string | null;
    userinfo_url: string | null;
    link_verified_email: DbBool;
    /** RFC 6749 §2.3 at the upstream's token endpoint; null = from its discovery (migration 0015) */
    token_endpoint_auth_method: string | null;
    url: string | null;
    bind_dn: string | null;
    /** sealed like client_secret */
    bind_password: string | null;
    base_dn: string | null;
    user_filter: string | null;
    group_filter: string | null;
    group_base_dn: string | null;
    username_attribute: string | null;
    email_attribute: string | null;
    group_name_attribute: string | null;
    start_tls: DbBool;
    tls_reject_unauthorized: DbBool;
    timeout: number | null;
}

/** Upstream claim or LDAP attribute → user field, user attribute or folder (migration 0010). */
export interface IdentityProviderAttributeMappingTable extends Timestamps {
    id: string;
    provider_id: string;
    realm_id: string;
    source: string;
    target: string;
    target_name: string | null;
}

/** Upstream group or claim value → role (migration 0010). */
export interface IdentityProviderRoleMappingTable extends Timestamps {
    id: string;
    provider_id: string;
    realm_id: string;
    claim: string | null;
    value: string;
    role_id: string;
}

/** The link of an upstream subject to a user (migration 0010). */
export interface UserIdentityTable extends Timestamps {
    id: string;
    provider_id: string;
    user_id: string;
    realm_id: string;
    subject: string;
}

/** A pending upstream round trip by the digest of its state (migration 0010): deleted by its one use. */
export interface FederatedLoginTable {
    id: string;
    provider_id: string;
    realm_id: string;
    nonce: string;
    code_verifier: string;
    /** JSON: where the sign-in goes on (the authorization request, or the /device page) */
    resume: string;
    expires_at: DbDate;
    created_at: DbDate;
}
