import type { RouteRecordRaw } from 'vue-router';

/**
 * Identity providers of a realm (OpenID Connect, OAuth 2.0 and LDAP upstreams): list, create (OpenID Connect, OAuth
 * 2.0, LDAP), a provider's page (settings with write-only secrets, attribute and role mappings).
 */
export const IDENTITY_PROVIDER_ROUTES: RouteRecordRaw[] = [
    { path: '/realms/:realm/identity-providers', name: 'identity-providers', component: () => import('./ProviderList.vue'), meta: { permission: 'identity_provider_read' } },
    { path: '/realms/:realm/identity-providers/new', name: 'identity-provider-create', component: () => import('./ProviderCreate.vue'), meta: { permission: 'identity_provider_create' } },
    { path: '/realms/:realm/identity-providers/:id', name: 'identity-provider', component: () => import('./ProviderEdit.vue'), meta: { permission: 'identity_provider_read' } },
];
