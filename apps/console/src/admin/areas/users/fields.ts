import type { Field } from '../../../shared/components/EntityForm.vue';

/** The user fields an administrator edits (API.md §3). */
export const USER_FIELDS: Field[] = [
    { name: 'displayName', label: 'Display name' },
    { name: 'firstName', label: 'First name' },
    { name: 'lastName', label: 'Last name' },
    { name: 'email', label: 'Email', type: 'email' },
    { name: 'emailVerified', label: 'Email verified', type: 'checkbox' },
    { name: 'active', label: 'Active', type: 'checkbox' },
];
