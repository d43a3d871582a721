import type { RouteRecordRaw } from 'vue-router';
import type { NavItem } from '../../../shared/boot.js';

/** Realms: list, create, a realm's overview (its default page) and its settings (edit, delete). `:realm` is a realm id. */
export const REALM_ROUTES: RouteRecordRaw[] = [
    { path: '/realms', name: 'realms', component: () => import('./RealmList.vue'), meta: { permission: 'realm_read' } },
    { path: '/realms/new', name: 'realm-create', component: () => import('./RealmCreate.vue'), meta: { permission: 'realm_create' } },
    { path: '/realms/:realm', name: 'realm', component: () => import('../overview/RealmOverview.vue'), meta: { permission: 'realm_read' } },
    { path: '/realms/:realm/settings', name: 'realm-settings', component: () => import('./RealmEdit.vue'), meta: { permission: 'realm_read' } },
];

export const REALM_NAV: NavItem[] = [
    { label: 'nav.realms', to: '/realms', permission: 'realm_read' },
];
