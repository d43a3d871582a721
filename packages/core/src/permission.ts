/**
 * Built-in permission names (API.md §5): one create/read/update/delete set per administered resource
 * of API.md §3, plus the special-purpose permissions. Provisioned globally and bound to system.default.
 */
export const PermissionName = {
    // realm
    REALM_CREATE: 'realm_create',
    REALM_READ: 'realm_read',
    REALM_UPDATE: 'realm_update',
    REALM_DELETE: 'realm_delete',
    // user
    USER_CREATE: 'user_create',
    USER_READ: 'user_read',
    USER_UPDATE: 'user_update',
    USER_DELETE: 'user_delete',
    // client
    CLIENT_CREATE: 'client_create',
    CLIENT_READ: 'client_read',
    CLIENT_UPDATE: 'client_update',
    CLIENT_DELETE: 'client_delete',
    // role
    ROLE_CREATE: 'role_create',
    ROLE_READ: 'role_read',
    ROLE_UPDATE: 'role_update',
    ROLE_DELETE: 'role_delete',
    // permission
    PERMISSION_CREATE: 'permission_create',
    PERMISSION_READ: 'permission_read',
    PERMISSION_UPDATE: 'permission_update',
    PERMISSION_DELETE: 'permission_delete',
    // policy
    POLICY_CREATE: 'policy_create',
    POLICY_READ: 'policy_read',
    POLICY_UPDATE: 'policy_update',
    POLICY_DELETE: 'policy_delete',
    // scope
    SCOPE_CREATE: 'scope_create',
    SCOPE_READ: 'scope_read',
    SCOPE_UPDATE: 'scope_update',
    SCOPE_DELETE: 'scope_delete',
    // user role
    USER_ROLE_CREATE: 'user_role_create',
    USER_ROLE_READ: 'user_role_read',
    USER_ROLE_UPDATE: 'user_role_update',
    USER_ROLE_DELETE: 'user_role_delete',
    // client role
    CLIENT_ROLE_CREATE: 'client_role_create',
    CLIENT_ROLE_READ: 'client_role_read',
    CLIENT_ROLE_UPDATE: 'client_role_update',
    CLIENT_ROLE_DELETE: 'client_role_delete',
    // role permission
    ROLE_PERMISSION_CREATE: 'role_permission_create',
    ROLE_PERMISSION_READ: 'role_permission_read',
    ROLE_PERMISSION_UPDATE: 'role_permission_update',
    ROLE_PERMISSION_DELETE: 'role_permission_delete',
    // user permission
    USER_PERMISSION_CREATE: 'user_permission_create',
    USER_PERMISSION_READ: 'user_permission_read',
    USER_PERMISSION_UPDATE: 'user_permission_update',
    USER_PERMISSION_DELETE: 'user_permission_delete',
    // client permission
    CLIENT_PERMISSION_CREATE: 'client_permission_create',
    CLIENT_PERMISSION_READ: 'client_permission_read',
    CLIENT_PERMISSION_UPDATE: 'client_permission_update',
    CLIENT_PERMISSION_DELETE: 'client_permission_delete',
    // permission policy
    PERMISSION_POLICY_CREATE: 'permission_policy_create',
    PERMISSION_POLICY_READ: 'permission_policy_read',
    PERMISSION_POLICY_UPDATE: 'permission_policy_update',
    PERMISSION_POLICY_DELETE: 'permission_policy_delete',
    // client scope
    CLIENT_SCOPE_CREATE: 'client_scope_create',
    CLIENT_SCOPE_READ: 'client_scope_read',
    CLIENT_SCOPE_UPDATE: 'client_scope_update',
    CLIENT_SCOPE_DELETE: 'client_scope_delete',
    // user attribute
    USER_ATTRIBUTE_CREATE: 'user_attribute_create',
    USER_ATTRIBUTE_READ: 'user_attribute_read',
    USER_ATTRIBUTE_UPDATE: 'user_attribute_update',
    USER_ATTRIBUTE_DELETE: 'user_attribute_delete',
    // role attribute
    ROLE_ATTRIBUTE_CREATE: 'role_attribute_create',
    ROLE_ATTRIBUTE_READ: 'role_attribute_read',
    ROLE_ATTRIBUTE_UPDATE: 'role_attribute_update',
    ROLE_ATTRIBUTE_DELETE: 'role_attribute_delete',
    // session
    SESSION_CREATE: 'session_create',
    SESSION_READ: 'session_read',
    SESSION_UPDATE: 'session_update',
    SESSION_DELETE: 'session_delete',
    // session token
    SESSION_TOKEN_CREATE: 'session_token_create',
    SESSION_TOKEN_READ: 'session_token_read',
    SESSION_TOKEN_UPDATE: 'session_token_update',
    SESSION_TOKEN_DELETE: 'session_token_delete',
    // key
    KEY_CREATE: 'key_create',
    KEY_READ: 'key_read',
    KEY_UPDATE: 'key_update',
    KEY_DELETE: 'key_delete',
    // identity provider
    IDENTITY_PROVIDER_CREATE: 'identity_provider_create',
    IDENTITY_PROVIDER_READ: 'identity_provider_read',
    IDENTITY_PROVIDER_UPDATE: 'identity_provider_update',
    IDENTITY_PROVIDER_DELETE: 'identity_provider_delete',
    // path
    PATH_CREATE: 'path_create',
    PATH_READ: 'path_read',
    PATH_UPDATE: 'path_update',
    PATH_DELETE: 'path_delete',
    // event
    EVENT_CREATE: 'event_create',
    EVENT_READ: 'event_read',
    EVENT_UPDATE: 'event_update',
    EVENT_DELETE: 'event_delete',
    // initial access token (RFC 7591 §1.2): realm administrators hand them to developers who register clients
    INITIAL_ACCESS_TOKEN_CREATE: 'initial_access_token_create',
    INITIAL_ACCESS_TOKEN_READ: 'initial_access_token_read',
    INITIAL_ACCESS_TOKEN_DELETE: 'initial_access_token_delete',
    // checks of another subject's permissions (spec: checks on other subjects, rule 3)
    PERMISSION_CHECK: 'permission_check',
    // a client or user managing its own record through @me
    CLIENT_SELF_MANAGE: 'client_self_manage',
    USER_SELF_MANAGE: 'user_self_manage',
    // RFC 8693: a client exchanging a token of its realm for another (delegation or impersonation)
    TOKEN_EXCHANGE: 'token_exchange',
} as const;

export type PermissionName = typeof PermissionName[keyof typeof PermissionName];

export const PERMISSION_NAMES: readonly PermissionName[] = Object.freeze(Object.values(PermissionName));

export function isPermissionName(value: unknown): value is PermissionName {
    return typeof value === 'string' && (PERMISSION_NAMES as readonly string[]).includes(value);
}

/** Names of the built-in policies that bootstrap provisions (API.md §5). */
export const SystemPolicyName = {
    DEFAULT: 'system.default',
    USER_NAMES_SELF_MANAGE: 'system.user-names-self-manage',
    CLIENT_NAMES_SELF_MANAGE: 'system.client-names-self-manage',
} as const;

export type SystemPolicyName = typeof SystemPolicyName[keyof typeof SystemPolicyName];

/** Built-in roles (API.md §5). */
export const SystemRoleName = {
    ADMIN: 'admin',
    REALM_ADMIN: 'realm_admin',
} as const;

export type SystemRoleName = typeof SystemRoleName[keyof typeof SystemRoleName];

/**
 * The built-in role of every realm that its new users receive (API.md §8 `defaultRoleIds`; Keycloak's
 * `default-roles-<realm>`): it carries `user_self_manage` at reach `own`, so a new account manages
 * itself in the account console without an administrator's grant. Not a global role: each realm
 * has its own, which its administrators may change.
 */
export const DEFAULT_ROLES_ROLE_NAME = 'default-roles';
