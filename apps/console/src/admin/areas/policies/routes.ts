import type { RouteRecordRaw } from 'vue-router';

/** Policies of a realm: the list of trees (roots), and the tree editor to create and edit one. */
export const POLICY_ROUTES: RouteRecordRaw[] = [
    { path: '/realms/:realm/policies', name: 'policies', component: () => import('./PolicyList.vue'), meta: { permission: 'policy_read' } },
    { path: '/realms/:realm/policies/new', name: 'policy-create', component: () => import('./PolicyCreate.vue'), meta: { permission: 'policy_create' } },
    { path: '/realms/:realm/policies/:id', name: 'policy', component: () => import('./PolicyEdit.vue'), meta: { permission: 'policy_read' } },
];
