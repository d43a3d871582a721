import type { Field } from '../../../shared/components/EntityForm.vue';

/** The client fields an administrator edits (API.md §3 and §7; spec client rules). */
const GRANT_TYPES = ['authorization_code', 'refresh_token', 'client_credentials', 'password', 'urn:ietf:params:oauth:grant-type:device_code'];

export const CLIENT_FIELDS: Field[] = [
    { name: 'displayName', label: 'Display name' },
    { name: 'description', label: 'Description', type: 'textarea' },
    { name: 'active', label: 'Active', type: 'checkbox' },
    { name: 'firstParty', label: 'First party (consent is not asked)', type: 'checkbox' },
    { name: 'redirectUri', label: 'Redirect URIs', type: 'textarea', help: 'One exact URI per line.' },
    { name: 'postLogoutRedirectUri', label: 'Post-logout redirect URIs', type: 'textarea', help: 'One exact URI per line.' },
    {
        name: 'grantTypes', label: 'Grant types', type: 'select', multiple: true,
        help: 'None selected: every grant but the device code grant.',
        options: GRANT_TYPES.map((grant) => ({ value: grant, label: grant })),
    },
    {
        name: 'idTokenSignedResponseAlg', label: 'ID token signing algorithm', type: 'select',
        options: [{ value: '', label: 'Realm default (RS256)' }, { value: 'RS256', label: 'RS256' }, { value: 'ES256', label: 'ES256' }],
    },
    { name: 'baseUrl', label: 'Base URL', type: 'url' },
    { name: 'backchannelLogoutUri', label: 'Back-channel logout URI', type: 'url', help: 'OpenID Connect Back-Channel Logout 1.0: receives a logout token when a session ends.' },
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
