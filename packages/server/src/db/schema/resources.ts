import type { Generated } from 'kysely';
import type { AttributeColumns, DbBool, DbDate, GrantColumns, Timestamps } from './columns.js';

/*
 * The administered resources' tables: realms, folders, users, clients, roles, permissions,
 * policies, scopes, their junctions, grants and attributes.
 */

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
    /** RFC 9068 §2.2 (migration 0026): the `aud` of an access token whose request named no resource; null: the realm's issuer */
    default_audience: string | null;
    /** API.md §8 (migration 0025): the sign-in pages' logo (https URL or a path on this server) and primary colour (#rrggbb) */
    logo_url: string | null;
    primary_color: string | null;
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

export interface RolePermissionTable extends GrantColumns {
    role_id: string;
}

export interface UserPermissionTable extends GrantColumns {
    user_id: string;
}

export interface ClientPermissionTable extends GrantColumns {
    client_id: string;
}

export interface UserAttributeTable extends AttributeColumns {
    user_id: string;
}

export interface RoleAttributeTable extends Omit<AttributeColumns, 'realm_id'> {
    role_id: string;
    /** null for a global role's attributes */
    realm_id: string | null;
}
