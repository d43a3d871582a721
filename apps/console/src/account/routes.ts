import type { RouteRecordRaw } from 'vue-router';
import type { NavItem } from '../shared/boot.js';

/**
 * The account console's route table: one file per page under pages/. Any
 * signed-in user reaches every page (no permission meta): each shows only the caller's own data.
 */
export const ACCOUNT_ROUTES: RouteRecordRaw[] = [
    { path: '/', name: 'profile', component: () => import('./pages/AccountProfile.vue') },
    { path: '/password', name: 'password', component: () => import('./pages/AccountPassword.vue') },
    { path: '/sessions', name: 'sessions', component: () => import('./pages/AccountSessions.vue') },
    { path: '/two-factor', name: 'two-factor', component: () => import('./pages/TwoFactor.vue') },
    { path: '/linked-accounts', name: 'linked-accounts', component: () => import('./pages/LinkedAccounts.vue') },
    { path: '/applications', name: 'applications', component: () => import('./pages/AccountApplications.vue') },
    { path: '/:missing(.*)*', redirect: '/' },
];

export const ACCOUNT_NAV: NavItem[] = [
    { label: 'account.nav.profile', to: '/' },
    { label: 'account.nav.password', to: '/password' },
    { label: 'account.nav.sessions', to: '/sessions' },
    { label: 'account.nav.twoFactor', to: '/two-factor' },
    { label: 'account.nav.linkedAccounts', to: '/linked-accounts' },
    { label: 'account.nav.applications', to: '/applications' },
];
