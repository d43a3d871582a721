import type { RouteRecordRaw } from 'vue-router';

/**
 * Users of a realm: list, create, and a user's page with its tabs (profile,
 * roles, permissions, sessions). The model other areas copy: one file per page, this table.
 */
export const USER_ROUTES: RouteRecordRaw[] = [
    { path: '/realms/:realm/users', name: 'users', component: () => import('./UserList.vue'), meta: { permission: 'user_read' } },
    { path: '/realms/:realm/users/new', name: 'user-create', component: () => import('./UserCreate.vue'), meta: { permission: 'user_create' } },
    {
        path: '/realms/:realm/users/:id',
        component: () => import('./UserPage.vue'),
        meta: { permission: 'user_read' },
        children: [
            { path: '', name: 'user', component: () => import('./UserProfile.vue'), meta: { permission: 'user_read' } },
            { path: 'roles', name: 'user-roles', component: () => import('./UserRoles.vue'), meta: { permission: 'user_role_read' } },
            { path: 'permissions', name: 'user-permissions', component: () => import('./UserPermissions.vue'), meta: { permission: 'user_permission_read' } },
            { path: 'sessions', name: 'user-sessions', component: () => import('./UserSessions.vue'), meta: { permission: 'session_read' } },
        ],
    },
];
