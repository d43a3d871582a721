import type { Field } from '../../../shared/components/EntityForm.vue';

/** The scope fields an administrator edits (API.md §3). */
export const SCOPE_FIELDS: Field[] = [
    { name: 'displayName', label: 'Display name', help: 'Shown on the consent page.' },
    { name: 'description', label: 'Description', type: 'textarea' },
];
