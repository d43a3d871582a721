import { bootConsole } from '../shared/boot.js';
import { ADMIN_NAV, ADMIN_ROUTES } from './routes.js';

void bootConsole({ name: 'admin', title: 'Realmgate admin', routes: ADMIN_ROUTES, nav: ADMIN_NAV });
