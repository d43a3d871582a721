import type { Field } from '../../../shared/components/EntityForm.vue';
import { t } from '../../../shared/i18n/i18n.js';

/** The client fields an administrator edits (API.md §3 and §7; spec client rules). */
const GRANT_TYPES = ['authorization_code', 'refresh_token', 'client_credentials', 'password', 'urn:ietf:params:oauth:grant-type:device_code'];

export const CLIENT_FIELDS: Field[] = [
    { name: 'displayName', label: t('common.displayName') },
    { name: 'description', label: t('common.description'), type: 'textarea' },
    { name: 'active', label: t('common.active'), type: 'checkbox' },
    { name: 'firstParty', label: t('client.firstParty'), type: 'checkbox' },
    { name: 'redirectUri', label: t('client.redirectUris'), type: 'textarea', help: t('client.uriPerLine') },
    { name: 'postLogoutRedirectUri', label: t('client.postLogout'), type: 'textarea', help: t('client.uriPerLine') },
    {
        name: 'grantTypes', label: t('client.grantTypes'), type: 'select', multiple: true,
        help: t('client.grantTypesHelp'),
        options: GRANT_TYPES.map((grant) => ({ value: grant, label: grant })),
    },
    {
        name: 'idTokenSignedResponseAlg', label: t('client.idTokenAlg'), type: 'select',
        options: [{ value: '', label: t('client.realmDefaultAlg') }, { value: 'RS256', label: 'RS256' }, { value: 'ES256', label: 'ES256' }],
    },
    { name: 'baseUrl', label: t('client.baseUrl'), type: 'url' },
    { name: 'backchannelLogoutUri', label: t('client.backchannel'), type: 'url', help: t('client.backchannelHelp') },
];

const URI_LISTS = ['redirectUri', 'postLogoutRedirectUri'];
const NULLABLE = ['displayName', 'description', 'baseUrl', 'backchannelLogoutUri', 'idTokenSignedResponseAlg'];

/** The record as the form shows it: URI lists one per line (the API keeps them space-separated). */
export function clientToForm(client: Record<string, unknown>): Record<string, unknown> {
    const form: Record<string, unknown> = { ...client };
    for (const key of URI_LISTS) form[key] = typeof client[key] === 'string' ? (client[key] as string).split(/\s+/).filter(Boolean).join('\n') : '';
    form.grantTypes = Array.isArray(client.grantTypes) ? client.grantTypes : [];
    form.idTokenSignedResponseAlg = client.idTokenSignedResponseAlg ?? '';
    return form;
}

/** The form's values as the API's body: an emptied field is unset (null), not left as it was. */
export function clientFromForm(values: Record<string, unknown>): Record<string, unknown> {
    const body: Record<string, unknown> = { ...values };
    for (const key of URI_LISTS) {
        const text = typeof values[key] === 'string' ? (values[key] as string).split(/\s+/).filter(Boolean).join(' ') : '';
        body[key] = text || null;
    }
    for (const key of NULLABLE) if (body[key] === undefined || body[key] === '') body[key] = null;
    body.grantTypes = Array.isArray(values.grantTypes) && values.grantTypes.length > 0 ? values.grantTypes : null;
    return body;
}
