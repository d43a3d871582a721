import type { RouteRecordRaw } from 'vue-router';
import type { NavItem } from '../shared/boot.js';
import { REALM_NAV, REALM_ROUTES } from './areas/realms/routes.js';
import { USER_ROUTES } from './areas/users/routes.js';
import { CLIENT_ROUTES } from './areas/clients/routes.js';
import { ROLE_ROUTES } from './areas/roles/routes.js';
import { PERMISSION_ROUTES } from './areas/permissions/routes.js';
import { POLICY_ROUTES } from './areas/policies/routes.js';
import { SCOPE_ROUTES } from './areas/scopes/routes.js';
import { SESSION_ROUTES } from './areas/sessions/routes.js';
import { KEY_ROUTES } from './areas/keys/routes.js';
import { IDENTITY_PROVIDER_ROUTES } from './areas/identity-providers/routes.js';
import { FOLDER_ROUTES } from './areas/folders/routes.js';
import { EVENT_ROUTES } from './areas/events/routes.js';

/**
 * The admin console's route table: one table per area (areas/<area>/routes.ts), listed here. A new
 * area adds its file and one line to each list; a new page of an area touches only its area.
 * `meta.permission` gates the page on POST /authorization/check (in the `:realm` of the path).
 */
export const ADMIN_ROUTES: RouteRecordRaw[] = [
    { path: '/', redirect: '/realms' },
    ...REALM_ROUTES,
    ...USER_ROUTES,
    ...CLIENT_ROUTES,
    ...ROLE_ROUTES,
    ...PERMISSION_ROUTES,
    ...POLICY_ROUTES,
    ...SCOPE_ROUTES,
    ...SESSION_ROUTES,
    ...KEY_ROUTES,
    ...IDENTITY_PROVIDER_ROUTES,
    ...FOLDER_ROUTES,
    ...EVENT_ROUTES,
    { path: '/:missing(.*)*', component: () => import('./NotFound.vue') },
];

export const ADMIN_NAV: NavItem[] = [
    ...REALM_NAV,
];
