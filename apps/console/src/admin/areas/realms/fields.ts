import type { Field } from '../../../shared/components/EntityForm.vue';
import { t } from '../../../shared/i18n/i18n.js';

/** The realm fields an administrator edits (API.md §3 and §7 realm settings). */
export const REALM_FIELDS: Field[] = [
    { name: 'displayName', label: t('common.displayName') },
    { name: 'description', label: t('common.description'), type: 'textarea' },
    { name: 'registrationEnabled', label: t('realm.registration'), type: 'checkbox' },
    { name: 'emailVerificationRequired', label: t('realm.emailVerification'), type: 'checkbox' },
    { name: 'mfaEnabled', label: t('realm.mfaEnabled'), type: 'checkbox' },
    { name: 'mfaRequired', label: t('realm.mfaRequired'), type: 'checkbox' },
    // the sign-in pages' branding (API.md §8): the server's patterns decide, its `issues` show here
    { name: 'logoUrl', nullable: true, label: t('realm.logoUrl'), help: t('realm.logoUrlHelp') },
    { name: 'primaryColor', nullable: true, label: t('realm.primaryColor'), type: 'color', pickerLabel: t('realm.primaryColorPicker'), help: t('realm.primaryColorHelp') },
    // RFC 9068 §2.2: the `aud` of an access token no `resource` parameter narrowed (RFC 8707 §2: an absolute URI)
    { name: 'defaultAudience', nullable: true, label: t('realm.defaultAudience'), type: 'url', help: t('realm.defaultAudienceHelp') },
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
        label: t('realm.defaultRoles'),
        type: 'select',
        multiple: true,
        options: roles.filter((role) => role.id).map((role) => ({ value: String(role.id), label: `${role.name ?? role.id}${role.clientId ? ` ${t('realm.clientRole')}` : ''}` })),
        help: t('realm.defaultRolesHelp'),
    };
}
