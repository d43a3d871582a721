import type { Field } from '../../../shared/components/EntityForm.vue';
import { t } from '../../../shared/i18n/i18n.js';

/** The user fields an administrator edits (API.md §3). */
export const USER_FIELDS: Field[] = [
    { name: 'displayName', label: t('common.displayName') },
    { name: 'firstName', label: t('account.firstName') },
    { name: 'lastName', label: t('list.lastName') },
    { name: 'email', label: t('account.email'), type: 'email' },
    { name: 'emailVerified', label: t('user.emailVerified'), type: 'checkbox' },
    { name: 'active', label: t('common.active'), type: 'checkbox' },
];
