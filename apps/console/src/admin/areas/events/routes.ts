import type { RouteRecordRaw } from 'vue-router';

/** The event log of a realm: the list (filter by type, actor, date; paging) and a chart of @stats. */
export const EVENT_ROUTES: RouteRecordRaw[] = [
    { path: '/realms/:realm/events', name: 'events', component: () => import('./EventList.vue'), meta: { permission: 'event_read' } },
];
