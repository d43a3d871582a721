import type { RouteRecordRaw } from 'vue-router';
import type { NavItem } from '../../../shared/boot.js';

/** Realms: list, create, edit and delete. `:realm` is a realm id. */
export const REALM_ROUTES: RouteRecordRaw[] = [
    { path: '/realms', name: 'realms', component: () => import('./RealmList.vue'), meta: { permission: 'realm_read' } },
    { path: '/realms/new', name: 'realm-create', component: () => import('./RealmCreate.vue'), meta: { permission: 'realm_create' } },
    { path: '/realms/:realm', name: 'realm', component: () => import('./RealmEdit.vue'), meta: { permission: 'realm_read' } },
];

export const REALM_NAV: NavItem[] = [
    { label: 'Realms', to: '/realms', permission: 'realm_read' },
];
