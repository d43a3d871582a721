import type { RouteRecordRaw } from 'vue-router';

/** Scopes of a realm: list, create, edit and delete. */
export const SCOPE_ROUTES: RouteRecordRaw[] = [
    { path: '/realms/:realm/scopes', name: 'scopes', component: () => import('./ScopeList.vue'), meta: { permission: 'scope_read' } },
    { path: '/realms/:realm/scopes/new', name: 'scope-create', component: () => import('./ScopeCreate.vue'), meta: { permission: 'scope_create' } },
    { path: '/realms/:realm/scopes/:id', name: 'scope', component: () => import('./ScopeEdit.vue'), meta: { permission: 'scope_read' } },
];
