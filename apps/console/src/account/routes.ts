import type { RouteRecordRaw } from 'vue-router';
import type { NavItem } from '../shared/boot.js';

/**
 * The account console's route table (issue 18 item 4): one file per page under pages/. Profile is
 * the start; email, password, sessions, multi-factor, linked providers and consents come next.
 */
export const ACCOUNT_ROUTES: RouteRecordRaw[] = [
    { path: '/', name: 'profile', component: () => import('./pages/Profile.vue') },
    { path: '/:missing(.*)*', redirect: '/' },
];

export const ACCOUNT_NAV: NavItem[] = [
    { label: 'Profile', to: '/' },
];
