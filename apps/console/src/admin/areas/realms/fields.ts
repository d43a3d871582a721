import type { Field } from '../../../shared/components/EntityForm.vue';

/** The realm fields an administrator edits (API.md §3 and §7 realm settings). */
export const REALM_FIELDS: Field[] = [
    { name: 'displayName', label: 'Display name' },
    { name: 'description', label: 'Description', type: 'textarea' },
    { name: 'registrationEnabled', label: 'Self-registration enabled', type: 'checkbox' },
    { name: 'emailVerificationRequired', label: 'Email verification required', type: 'checkbox' },
    { name: 'mfaEnabled', label: 'Multi-factor authentication enabled', type: 'checkbox' },
    { name: 'mfaRequired', label: 'Multi-factor authentication required', type: 'checkbox' },
];
