import type { RouteRecordRaw } from 'vue-router';

/** Roles of a realm: list, create, and a role's page (settings, permissions with their realm scope). */
export const ROLE_ROUTES: RouteRecordRaw[] = [
    { path: '/realms/:realm/roles', name: 'roles', component: () => import('./RoleList.vue'), meta: { permission: 'role_read' } },
    { path: '/realms/:realm/roles/new', name: 'role-create', component: () => import('./RoleCreate.vue'), meta: { permission: 'role_create' } },
    { path: '/realms/:realm/roles/:id', name: 'role', component: () => import('./RoleEdit.vue'), meta: { permission: 'role_read' } },
];
