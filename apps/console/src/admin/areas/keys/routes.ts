import type { RouteRecordRaw } from 'vue-router';

/** Keys of a realm: the list (never key material), generate, disable, enable, delete with a 409 explained. */
export const KEY_ROUTES: RouteRecordRaw[] = [
    { path: '/realms/:realm/keys', name: 'keys', component: () => import('./KeyList.vue'), meta: { permission: 'key_read' } },
    { path: '/realms/:realm/keys/new', name: 'key-create', component: () => import('./KeyCreate.vue'), meta: { permission: 'key_create' } },
];
