import type { RouteRecordRaw } from 'vue-router';

/**
 * Clients of a realm: list, create, and a client's page with its tabs (settings:
 * redirect URIs, grant types, first party…; scope bindings; roles; direct permissions with their realm scope; secret rotation).
 */
export const CLIENT_ROUTES: RouteRecordRaw[] = [
    { path: '/realms/:realm/clients', name: 'clients', component: () => import('./ClientList.vue'), meta: { permission: 'client_read' } },
    { path: '/realms/:realm/clients/new', name: 'client-create', component: () => import('./ClientCreate.vue'), meta: { permission: 'client_create' } },
    {
        path: '/realms/:realm/clients/:id',
        component: () => import('./ClientPage.vue'),
        meta: { permission: 'client_read' },
        children: [
            { path: '', name: 'client', component: () => import('./ClientSettings.vue'), meta: { permission: 'client_read' } },
            { path: 'scopes', name: 'client-scopes', component: () => import('./ClientScopes.vue'), meta: { permission: 'client_scope_read' } },
            { path: 'roles', name: 'client-roles', component: () => import('./ClientRoles.vue'), meta: { permission: 'client_role_read' } },
            { path: 'permissions', name: 'client-permissions', component: () => import('./ClientPermissions.vue'), meta: { permission: 'client_permission_read' } },
            { path: 'secret', name: 'client-secret', component: () => import('./ClientSecret.vue'), meta: { permission: 'client_update' } },
        ],
    },
];
