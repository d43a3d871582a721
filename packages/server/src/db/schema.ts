import type {
    ClientPermissionTable,
    ClientRoleTable,
    ClientScopeTable,
    ClientTable,
    PathTable,
    PermissionPolicyTable,
    PermissionTable,
    PolicyTable,
    RealmDefaultRoleTable,
    RealmTable,
    RoleAttributeTable,
    RolePermissionTable,
    RoleTable,
    ScopeTable,
    UserAttributeTable,
    UserPermissionTable,
    UserRoleTable,
    UserTable,
} from './schema/resources.js';
import type {
    AuthorizationCodeTable,
    ClientRegistrationTable,
    DeviceCodeTable,
    InitialAccessTokenTable,
    KeyTable,
    KeyTombstoneTable,
    PushedRequestTable,
    ReplayGuardTable,
    SessionTable,
    SessionTokenTable,
    UserConsentTable,
} from './schema/tokens.js';
import type {
    FederatedLoginTable,
    IdentityProviderAttributeMappingTable,
    IdentityProviderRoleMappingTable,
    IdentityProviderTable,
    MfaTicketTable,
    UserAuthenticatorTable,
    UserIdentityTable,
    UserRecoveryCodeTable,
    WebauthnChallengeTable,
} from './schema/authentication.js';
import type {
    EventAggregateTable,
    EventTable,
    WorkerLeaseTable,
} from './schema/operations.js';

/**
 * Table types as Kysely sees them, one module per area under db/schema/; this module assembles the
 * `Database` every query is typed by. Columns are snake_case; the repository layer converts to the
 * camelCase REST shape in one place (DESIGN.md §5). Ids are application-generated UUIDs.
 *
 * Cross-dialect value conventions (see db/values.ts):
 * - timestamps: `timestamptz` (PostgreSQL), `datetime(3)` (MySQL/MariaDB), ISO-8601 text (SQLite);
 *   always UTC, written and read as Date through toDbDate/fromDbDate;
 * - booleans: `boolean` (PostgreSQL), `tinyint(1)`/integer 0|1 elsewhere; read through fromDbBool;
 * - JSON values: text (serialized by the repository).
 */

export type { AttributeColumns, DbBool, DbDate } from './schema/columns.js';
export type { ClientPermissionTable, ClientRoleTable, ClientScopeTable, ClientTable, PathTable, PermissionPolicyTable, PermissionTable, PolicyTable, RealmDefaultRoleTable, RealmTable, RoleAttributeTable, RolePermissionTable, RoleTable, ScopeTable, UserAttributeTable, UserPermissionTable, UserRoleTable, UserTable } from './schema/resources.js';
export type { AuthorizationCodeTable, ClientRegistrationTable, DeviceCodeTable, InitialAccessTokenTable, KeyTable, KeyTombstoneTable, PushedRequestTable, ReplayGuardTable, SessionTable, SessionTokenTable, UserConsentTable } from './schema/tokens.js';
export type { FederatedLoginTable, IdentityProviderAttributeMappingTable, IdentityProviderRoleMappingTable, IdentityProviderTable, MfaTicketTable, UserAuthenticatorTable, UserIdentityTable, UserRecoveryCodeTable, WebauthnChallengeTable } from './schema/authentication.js';
export type { EventAggregateTable, EventTable, WorkerLeaseTable } from './schema/operations.js';

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
