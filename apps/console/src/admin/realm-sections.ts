/**
 * The sections of one realm (the realm-level menu, RealmNav.vue): each a path below
 * /realms/:realm and the read permission that gates its link. A new realm area adds one line.
 */
export interface RealmSection { label: string; path: string; permission: string }

export const REALM_SECTIONS: RealmSection[] = [
    { label: 'Users', path: 'users', permission: 'user_read' },
    { label: 'Clients', path: 'clients', permission: 'client_read' },
    { label: 'Roles', path: 'roles', permission: 'role_read' },
    { label: 'Permissions', path: 'permissions', permission: 'permission_read' },
    { label: 'Policies', path: 'policies', permission: 'policy_read' },
    { label: 'Scopes', path: 'scopes', permission: 'scope_read' },
    { label: 'Sessions', path: 'sessions', permission: 'session_read' },
    { label: 'Keys', path: 'keys', permission: 'key_read' },
    { label: 'Identity providers', path: 'identity-providers', permission: 'identity_provider_read' },
    { label: 'Folders', path: 'folders', permission: 'path_read' },
    { label: 'Events', path: 'events', permission: 'event_read' },
];
