import type { Field } from '../../../shared/components/EntityForm.vue';
import { t } from '../../../shared/i18n/i18n.js';

/** The decision strategies of a permission's definition layer (API.md §3). */
const DECISION_STRATEGIES = [
    { value: 'unanimous', label: t('perm.unanimous') },
    { value: 'affirmative', label: t('perm.affirmative') },
    { value: 'consensus', label: t('perm.consensus') },
];

/** The permission fields an administrator edits (API.md §3). */
export const PERMISSION_FIELDS: Field[] = [
    { name: 'displayName', label: t('common.displayName') },
    { name: 'description', label: t('common.description'), type: 'textarea' },
    { name: 'decisionStrategy', label: t('list.decisionStrategy'), type: 'select', options: DECISION_STRATEGIES },
];
