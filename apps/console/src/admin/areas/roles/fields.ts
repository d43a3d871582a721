import type { Field } from '../../../shared/components/EntityForm.vue';
import { t } from '../../../shared/i18n/i18n.js';

/** The role fields an administrator edits (API.md §3). */
export const ROLE_FIELDS: Field[] = [
    { name: 'displayName', label: t('common.displayName') },
    { name: 'description', label: t('common.description'), type: 'textarea' },
];

/** A grant's realm scope (API.md §3 junction rows; spec realm reach). */
export const REACHES = [
    { value: 'own', label: 'own (the holder\'s realm)' },
    { value: 'ownOrNull', label: 'ownOrNull (own realm and global rows)' },
    { value: 'any', label: 'any (every realm)' },
    { value: 'none', label: 'none' },
];
