import { bootConsole } from '../shared/boot.js';
import RealmNav from './RealmNav.vue';
import { ADMIN_NAV, ADMIN_ROUTES } from './routes.js';

void bootConsole({ name: 'admin', title: 'console.admin', routes: ADMIN_ROUTES, nav: ADMIN_NAV, aside: RealmNav });
