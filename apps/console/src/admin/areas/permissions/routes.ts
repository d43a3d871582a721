import type { RouteRecordRaw } from 'vue-router';

/** Permissions of a realm: list, create, and a permission's page (settings, its policies, the check). */
export const PERMISSION_ROUTES: RouteRecordRaw[] = [
    { path: '/realms/:realm/permissions', name: 'permissions', component: () => import('./PermissionList.vue'), meta: { permission: 'permission_read' } },
    { path: '/realms/:realm/permissions/new', name: 'permission-create', component: () => import('./PermissionCreate.vue'), meta: { permission: 'permission_create' } },
    { path: '/realms/:realm/permissions/:id', name: 'permission', component: () => import('./PermissionEdit.vue'), meta: { permission: 'permission_read' } },
];
