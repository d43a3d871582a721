/**
 * The consoles' English strings: the source catalogue (its keys are the type every other
 * catalogue must fill) and the fallback. `{name}` marks a value put in by the page. One part per
 * console area, assembled here.
 */
import { EN_SHARED } from './en-shared.js';
import { EN_ACCOUNT } from './en-account.js';
import { EN_ADMIN_ACCESS } from './en-admin-access.js';
import { EN_ADMIN_REALM } from './en-admin-realm.js';

export const EN = {
    ...EN_SHARED,
    ...EN_ACCOUNT,
    ...EN_ADMIN_ACCESS,
    ...EN_ADMIN_REALM,
} as const;

export type MessageKey = keyof typeof EN;
