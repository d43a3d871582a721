import type { RouteRecordRaw } from 'vue-router';

/** Sessions of a realm (issue 18 item 3): the list (filter by user or client, sort by date), revoke one, revoke a user's. */
export const SESSION_ROUTES: RouteRecordRaw[] = [
    { path: '/realms/:realm/sessions', name: 'sessions', component: () => import('./SessionList.vue'), meta: { permission: 'session_read' } },
];
