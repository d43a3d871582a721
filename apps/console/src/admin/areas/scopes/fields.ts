import type { Field } from '../../../shared/components/EntityForm.vue';
import { t } from '../../../shared/i18n/i18n.js';

/** The scope fields an administrator edits (API.md §3). */
export const SCOPE_FIELDS: Field[] = [
    { name: 'displayName', label: t('common.displayName'), help: t('scope.displayHelp') },
    { name: 'description', label: t('common.description'), type: 'textarea' },
];
