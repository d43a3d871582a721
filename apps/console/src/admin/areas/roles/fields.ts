import type { Field } from '../../../shared/components/EntityForm.vue';
import { t } from '../../../shared/i18n/i18n.js';

/** The role fields an administrator edits (API.md §3). */
export const ROLE_FIELDS: Field[] = [
    { name: 'displayName', label: t('common.displayName') },
    { name: 'description', label: t('common.description'), type: 'textarea' },
];

/** A grant's realm scope (API.md §3 junction rows; spec realm reach). */
export const REACHES = [
    { value: 'own', label: t('reach.own') },
    { value: 'ownOrNull', label: t('reach.ownOrNull') },
    { value: 'any', label: t('reach.any') },
    { value: t('reach.none'), label: t('reach.none') },
];
