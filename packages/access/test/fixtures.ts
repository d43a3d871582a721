import { createSystemDefaultPolicy } from '../src/index.js';
import type { AuthorizationCatalog, AuthorizationCatalogPermission, AuthorizationGrant, PolicyIdentity, PolicyNodeInput } from '../src/index.js';

/** The built-in global policy bound to every provisioned permission (API.md §5). */
const SYSTEM_DEFAULT: PolicyNodeInput = createSystemDefaultPolicy();

export const REALM_A = '00000000-0000-4000-8000-00000000000a';
export const REALM_B = '00000000-0000-4000-8000-00000000000b';

export function user(realmId: string | null = REALM_A, id = 'u-1'): PolicyIdentity {
    return { id, type: 'user', realmId, realmName: realmId === null ? null : `name-${realmId.slice(-1)}`, clientId: null };
}

export function client(realmId: string | null = REALM_A, id = 'c-1'): PolicyIdentity {
    return { id, type: 'client', realmId, realmName: realmId === null ? null : `name-${realmId.slice(-1)}`, clientId: id };
}

export function definition(name: string, overrides: Partial<AuthorizationCatalogPermission> = {}): AuthorizationCatalogPermission {
    return { name, realm_id: null, client_id: null, decision_strategy: 'unanimous', policies: ['system.default'], ...overrides };
}

export function catalog(
    permissions: AuthorizationCatalogPermission[],
    policies: Record<string, PolicyNodeInput> = {},
): AuthorizationCatalog {
    return { policies: { 'system.default': SYSTEM_DEFAULT, ...policies }, permissions };
}

export function grant(name: string, overrides: Partial<AuthorizationGrant> = {}): AuthorizationGrant {
    return { name, realm_id: null, client_id: null, realm_scope: 'own', policies: [], ...overrides };
}
