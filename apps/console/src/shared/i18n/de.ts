import type { MessageKey } from './en.js';
import { DE_SHARED } from './de-shared.js';
import { DE_ACCOUNT } from './de-account.js';
import { DE_ADMIN_ACCESS } from './de-admin-access.js';
import { DE_ADMIN_REALM } from './de-admin-realm.js';

/** The consoles' German strings, one for every English key (the type check of each part finds a missing one). */
export const DE: Record<MessageKey, string> = {
    ...DE_SHARED,
    ...DE_ACCOUNT,
    ...DE_ADMIN_ACCESS,
    ...DE_ADMIN_REALM,
};
