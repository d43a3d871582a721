import type { RouteRecordRaw } from 'vue-router';

/** Sessions of a realm: the list (filter by user or client, sort by date), revoke one, revoke a user's. */
export const SESSION_ROUTES: RouteRecordRaw[] = [
    { path: '/realms/:realm/sessions', name: 'sessions', component: () => import('./SessionList.vue'), meta: { permission: 'session_read' } },
];
