import { bootConsole } from '../shared/boot.js';
import { ACCOUNT_NAV, ACCOUNT_ROUTES } from './routes.js';
import './account.css';

void bootConsole({ name: 'account', title: 'console.account', routes: ACCOUNT_ROUTES, nav: ACCOUNT_NAV });
