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

/** A role a realm's default roles may name: one of the realm's own (API.md §8). */
export interface RoleOption { id?: string | null; name?: string | null; clientId?: string | null }

/**
 * The realm's default roles (API.md §8 `defaultRoleIds`): every new user of the realm receives them,
 * however it is created. Choices are the realm's own roles; none chosen, new users receive nothing.
 */
export function defaultRolesField(roles: readonly RoleOption[]): Field {
    return {
        name: 'defaultRoleIds',
        label: 'Default roles',
        type: 'select',
        multiple: true,
        options: roles.filter((role) => role.id).map((role) => ({ value: String(role.id), label: `${role.name ?? role.id}${role.clientId ? ' (client role)' : ''}` })),
        help: 'Every new user of this realm receives these roles: created by an administrator, by registration or by an identity provider\'s first login. Users created earlier keep what they have.',
    };
}
