import type { MessageKey } from '../shared/i18n/i18n.js';

/**
 * The sections of one realm (the realm's side menu, RealmNav.vue): each a path below
 * /realms/:realm ('' the overview) and the read permission that gates its link. A new realm area
 * adds one line.
 */
export interface RealmSection { label: MessageKey; path: string; permission: string }

export const REALM_SECTIONS: RealmSection[] = [
    { label: 'section.overview', path: '', permission: 'realm_read' },
    { label: 'section.users', path: 'users', permission: 'user_read' },
    { label: 'section.clients', path: 'clients', permission: 'client_read' },
    { label: 'section.roles', path: 'roles', permission: 'role_read' },
    { label: 'section.permissions', path: 'permissions', permission: 'permission_read' },
    { label: 'section.policies', path: 'policies', permission: 'policy_read' },
    { label: 'section.scopes', path: 'scopes', permission: 'scope_read' },
    { label: 'section.sessions', path: 'sessions', permission: 'session_read' },
    { label: 'section.keys', path: 'keys', permission: 'key_read' },
    { label: 'section.identityProviders', path: 'identity-providers', permission: 'identity_provider_read' },
    { label: 'section.folders', path: 'folders', permission: 'path_read' },
    { label: 'section.events', path: 'events', permission: 'event_read' },
    { label: 'section.settings', path: 'settings', permission: 'realm_read' },
];

/** The section a path below /realms/:realm belongs to (an entity's page belongs to its list's section). */
export function sectionOf(path: string, realmId: string): RealmSection | undefined {
    const rest = path.slice(`/realms/${realmId}`.length).replace(/^\//, '').split('/')[0] ?? '';
    return REALM_SECTIONS.find((section) => section.path === rest);
}
