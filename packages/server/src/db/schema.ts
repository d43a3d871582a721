import type { RealmScope } from '@realmgate/core';
import type { Generated } from 'kysely';

/**
 * Table types as Kysely sees them. Columns are snake_case; the repository layer converts to the
 * camelCase REST shape in one place (DESIGN.md §5). Ids are application-generated UUIDs.
 *
 * Cross-dialect value conventions (see db/values.ts):
 * - timestamps: `timestamptz` (PostgreSQL), `datetime(3)` (MySQL/MariaDB), ISO-8601 text (SQLite);
 *   always UTC, written and read as Date through toDbDate/fromDbDate;
 * - booleans: `boolean` (PostgreSQL), `tinyint(1)`/integer 0|1 elsewhere; read through fromDbBool;
 * - JSON values: text (serialized by the repository).
 */
export type DbDate = Date | string;
export type DbBool = boolean | number;

interface Timestamps {
    created_at: DbDate;
    updated_at: DbDate;
}

export interface RealmTable extends Timestamps {
    id: string;
    name: string;
    display_name: string | null;
    description: string | null;
    built_in: DbBool;
    /** API.md §7 realm settings (migration 0005) */
    registration_enabled: Generated<DbBool>;
    email_verification_required: Generated<DbBool>;
    mfa_enabled: Generated<DbBool>;
    mfa_required: Generated<DbBool>;
    /** API.md §8 (migration 0018): null, or 'fapi2' for the FAPI 2.0 Security Profile */
    security_profile: string | null;
    require_pushed_authorization_requests: Generated<DbBool>;
    dynamic_registration_enabled: Generated<DbBool>;
    /** API.md §8 (migration 0023): passkeys, and the offer to add one after a password sign-in; default true */
    passkeys_enabled: Generated<DbBool>;
    passkey_prompt: Generated<DbBool>;
}

export interface PathTable extends Timestamps {
    id: string;
    name: string;
    parent_id: string | null;
    realm_id: string;
}

export interface UserTable extends Timestamps {
    id: string;
    name: string;
    name_locked: DbBool;
    first_name: string | null;
    last_name: string | null;
    display_name: string | null;
    email: string | null;
    password: string | null;
    reset_hash: string | null;
    reset_at: DbDate | null;
    activate_hash: string | null;
    /** when the activation code in activate_hash was issued (migration 0006) */
    activate_at: DbDate | null;
    email_verified: DbBool;
    active: DbBool;
    status: string | null;
    status_message: string | null;
    path_id: string | null;
    realm_id: string;
}

export interface ClientTable extends Timestamps {
    id: string;
    name: string;
    display_name: string | null;
    description: string | null;
    active: DbBool;
    built_in: DbBool;
    /** plaintext, bcrypt hash, or `enc:` AES-256-GCM envelope; up to 512 characters */
    secret: string | null;
    secret_hashed: DbBool;
    secret_encrypted: DbBool;
    redirect_uri: string | null;
    post_logout_redirect_uri: string | null;
    /** JSON list of grant types, null = every grant but the device code */
    grant_types: string | null;
    base_url: string | null;
    backchannel_logout_uri: string | null;
    access_policy_id: string | null;
    path_id: string | null;
    realm_id: string;
    /** API.md §7: consent is not asked (migration 0003) */
    first_party: Generated<DbBool>;
    /** OIDC Registration §2 id_token_signed_response_alg; null = RS256 (migration 0009) */
    id_token_signed_response_alg: string | null;
    /** API.md §8 (migration 0018): OIDC Registration §2 token_endpoint_auth_method; null = derived from the secret */
    token_endpoint_auth_method: string | null;
    /** an inline JWK Set of public keys (JSON text) */
    jwks: string | null;
    jwks_uri: string | null;
    require_pushed_authorization_requests: Generated<DbBool>;
    require_signed_request_object: Generated<DbBool>;
    /** RFC 8707: the resource indicator naming this client as a resource server */
    audience: string | null;
}

/** realm_key / client_key are generated columns (COALESCE(x, '')) so NULLs are unique-checked too. */
export interface RoleTable extends Timestamps {
    id: string;
    name: string;
    display_name: string | null;
    description: string | null;
    built_in: DbBool;
    client_id: string | null;
    realm_id: string | null;
}

export interface PermissionTable extends Timestamps {
    id: string;
    name: string;
    display_name: string | null;
    description: string | null;
    built_in: DbBool;
    decision_strategy: string;
    client_id: string | null;
    realm_id: string | null;
}

export interface PolicyTable extends Timestamps {
    id: string;
    type: string;
    name: string;
    display_name: string | null;
    description: string | null;
    invert: DbBool;
    /** JSON of the type's configuration keys (validator output minus type/invert/children) */
    config: string;
    parent_id: string | null;
    realm_id: string | null;
    built_in: DbBool;
}

export interface PermissionPolicyTable extends Timestamps {
    id: string;
    permission_id: string;
    policy_id: string;
}

export interface ScopeTable extends Timestamps {
    id: string;
    name: string;
    display_name: string | null;
    description: string | null;
    built_in: DbBool;
    realm_id: string | null;
}

export interface ClientScopeTable extends Timestamps {
    id: string;
    client_id: string;
    scope_id: string;
    default: DbBool;
}

export interface UserRoleTable extends Timestamps {
    id: string;
    user_id: string;
    role_id: string;
}

/** A role every new user of the realm receives (migration 0024; API.md §8 `defaultRoleIds`). */
export interface RealmDefaultRoleTable extends Timestamps {
    id: string;
    realm_id: string;
    role_id: string;
}

export interface ClientRoleTable extends Timestamps {
    id: string;
    client_id: string;
    role_id: string;
}

interface GrantColumns extends Timestamps {
    id: string;
    permission_id: string;
    realm_scope: RealmScope;
    policy_id: string | null;
}

export interface RolePermissionTable extends GrantColumns {
    role_id: string;
}

export interface UserPermissionTable extends GrantColumns {
    user_id: string;
}

export interface ClientPermissionTable extends GrantColumns {
    client_id: string;
}

export interface AttributeColumns extends Timestamps {
    id: string;
    name: string;
    /** JSON-serialized; a string stays a string (spec beta.68 item 3) */
    value: string | null;
    realm_id: string;
}

export interface UserAttributeTable extends AttributeColumns {
    user_id: string;
}

export interface RoleAttributeTable extends Omit<AttributeColumns, 'realm_id'> {
    role_id: string;
    /** null for a global role's attributes */
    realm_id: string | null;
}

export interface KeyTable extends Timestamps {
    id: string;
    type: string;
    use: string;
    algorithm: string;
    status: string;
    priority: number;
    public_key: string | null;
    /** encrypted or wrapped private material; never returned */
    private_key: string | null;
    realm_id: string;
}

/** The public half of a deleted signing key (migration 0002): its tokens are inactive, not forged. */
export interface KeyTombstoneTable {
    id: string;
    algorithm: string;
    public_key: string;
    realm_id: string;
    deleted_at: DbDate;
}

export interface SessionTable extends Timestamps {
    id: string;
    sub: string;
    sub_kind: string;
    user_id: string | null;
    client_id: string | null;
    realm_id: string;
    ip_address: string | null;
    user_agent: string | null;
    seen_at: DbDate | null;
    expires_at: DbDate;
    revoked_at: DbDate | null;
    /** the browser session this application session was signed in through (migration 0003) */
    parent_id: string | null;
    /** SHA-256 hex of the console session cookie's secret; null for sessions without a cookie */
    cookie_digest: string | null;
    /** a browser session's authentication strength (tokens/claims.ts ACR, migration 0017); null: unknown */
    acr: string | null;
}

/** An authorization code (spec Authentication 12), stored only as its SHA-256 digest (migration 0003). */
export interface AuthorizationCodeTable {
    id: string;
    code_digest: string;
    realm_id: string;
    client_id: string;
    user_id: string;
    /** the session the user signed in with: a code dies with it */
    session_id: string;
    redirect_uri: string;
    scope: string;
    nonce: string | null;
    code_challenge: string | null;
    code_challenge_method: string | null;
    auth_time: DbDate;
    expires_at: DbDate;
    used_at: DbDate | null;
    /** the session the first redemption created; revoked when the code is presented again */
    issued_session_id: string | null;
    /** the `acr` its ID token states: null unless the request sent `acr_values` (migration 0017) */
    acr: string | null;
    /** the resource indicator the authorization request named (RFC 8707 §2; migration 0022), null when none */
    resource: string | null;
    created_at: DbDate;
}

/** A device authorization request (RFC 8628, migration 0004): both codes stored only as SHA-256 digests. */
export interface DeviceCodeTable {
    id: string;
    device_code_digest: string;
    /** of the normalised user code (upper case, no dash) */
    user_code_digest: string;
    realm_id: string;
    client_id: string;
    scope: string;
    status: 'pending' | 'approved' | 'denied';
    /** who decided, and the session they decided in (null for Basic) */
    user_id: string | null;
    session_id: string | null;
    /** seconds between polls (RFC 8628 §3.5: grows by 5 at each slow_down) */
    poll_interval: number;
    polled_at: DbDate | null;
    expires_at: DbDate;
    consumed_at: DbDate | null;
    created_at: DbDate;
}

/** Scopes a user granted a client (migration 0003), space-delimited. */
export interface UserConsentTable extends Timestamps {
    id: string;
    user_id: string;
    client_id: string;
    scopes: string;
    realm_id: string;
}

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

export interface SessionTokenTable {
    id: string;
    kind: string;
    session_id: string;
    expires_at: DbDate;
    created_at: DbDate;
}

export interface EventTable {
    id: string;
    name: string;
    scope: string;
    ref_type: string;
    ref_id: string | null;
    actor_type: string | null;
    actor_id: string | null;
    realm_id: string | null;
    request_ip: string | null;
    request_method: string | null;
    request_path: string | null;
    /** JSON; never a withheld column */
    data: string | null;
    created_at: DbDate;
    /** migration 0012: 1 once the worker's pass has added the event to its day's aggregate */
    aggregated: Generated<number>;
}

export interface EventAggregateTable {
    id: string;
    day: string;
    realm_id: string | null;
    scope: string;
    name: string;
    ref_type: string;
    count: number;
}

/** A sweep's lease (migration 0008): the worker process holding it runs the sweep until expires_at. */
export interface WorkerLeaseTable {
    name: string;
    holder: string;
    expires_at: DbDate;
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

/** A single-use identifier seen (client assertion jti, DPoP proof jti), kept until it expires (migration 0018). */
export interface ReplayGuardTable {
    /** SHA-256 hex of the identifier's kind, realm, issuer and value */
    id: string;
    expires_at: DbDate;
}

/** An initial access token of dynamic registration (migration 0021, RFC 7591 §1.2): its digest, uses and expiry. */
export interface InitialAccessTokenTable extends Timestamps {
    id: string;
    realm_id: string;
    /** SHA-256 hex of the token; the token itself is answered once at creation */
    token_digest: string;
    uses_allowed: number;
    uses_remaining: number;
    expires_at: DbDate;
}

/** A dynamically registered client's registration access token (migration 0021, RFC 7592 §1.1), as its digest. */
export interface ClientRegistrationTable extends Timestamps {
    client_id: string;
    realm_id: string;
    token_digest: string;
}

/** RFC 9126: a pushed authorization request until it is redeemed or expires (migration 0020). */
export interface PushedRequestTable {
    /** SHA-256 hex of the request_uri */
    id: string;
    realm_id: string;
    client_id: string;
    /** JSON: the validated authorization parameters and whether a signed request object carried them */
    parameters: string;
    expires_at: DbDate;
}

export interface Database {
    auth_realms: RealmTable;
    auth_paths: PathTable;
    auth_users: UserTable;
    auth_clients: ClientTable;
    auth_roles: RoleTable;
    auth_permissions: PermissionTable;
    auth_policies: PolicyTable;
    auth_permission_policies: PermissionPolicyTable;
    auth_scopes: ScopeTable;
    auth_client_scopes: ClientScopeTable;
    auth_user_roles: UserRoleTable;
    auth_client_roles: ClientRoleTable;
    auth_role_permissions: RolePermissionTable;
    auth_user_permissions: UserPermissionTable;
    auth_client_permissions: ClientPermissionTable;
    auth_user_attributes: UserAttributeTable;
    auth_role_attributes: RoleAttributeTable;
    auth_keys: KeyTable;
    auth_key_tombstones: KeyTombstoneTable;
    auth_sessions: SessionTable;
    auth_session_tokens: SessionTokenTable;
    auth_authorization_codes: AuthorizationCodeTable;
    auth_user_consents: UserConsentTable;
    auth_device_codes: DeviceCodeTable;
    auth_user_authenticators: UserAuthenticatorTable;
    auth_user_recovery_codes: UserRecoveryCodeTable;
    auth_mfa_tickets: MfaTicketTable;
    auth_events: EventTable;
    auth_event_aggregates: EventAggregateTable;
    auth_worker_leases: WorkerLeaseTable;
    auth_identity_providers: IdentityProviderTable;
    auth_identity_provider_attribute_mappings: IdentityProviderAttributeMappingTable;
    auth_identity_provider_role_mappings: IdentityProviderRoleMappingTable;
    auth_user_identities: UserIdentityTable;
    auth_federated_logins: FederatedLoginTable;
    auth_replay_guards: ReplayGuardTable;
    auth_initial_access_tokens: InitialAccessTokenTable;
    auth_client_registrations: ClientRegistrationTable;
    auth_pushed_requests: PushedRequestTable;
    auth_realm_default_roles: RealmDefaultRoleTable;
    auth_webauthn_challenges: WebauthnChallengeTable;
}

export type TableName = keyof Database;
