import type { Field } from '../../../shared/components/EntityForm.vue';
import { t } from '../../../shared/i18n/i18n.js';

/**
 * The settings of each protocol the server supports (domains/identity-providers/definition.ts:
 * oidc, oauth2, ldap). Secrets (clientSecret, bindPassword) are write-only: never read back, an
 * empty field leaves the stored one as it is.
 */
export type Protocol = 'oidc' | 'oauth2' | 'ldap';

export const PROTOCOLS: { value: Protocol; label: string }[] = [
    { value: 'oidc', label: t('idp.oidc') },
    { value: 'oauth2', label: t('idp.oauth2') },
    { value: 'ldap', label: t('account.ldap') },
];

const COMMON: Field[] = [
    { name: 'displayName', label: t('common.displayName'), help: t('idp.displayHelp') },
    { name: 'enabled', label: t('list.enabled'), type: 'checkbox' },
    { name: 'timeout', label: t('idp.timeout'), help: t('idp.timeoutHelp') },
];

const secret = (name: string, label: string): Field => ({ name, label, type: 'password', autocomplete: 'new-password', help: t('idp.secretHelp') });

const OAUTH: Field[] = [
    { name: 'clientId', label: t('client.id'), required: true },
    secret('clientSecret', t('client.secretTitle')),
    { name: 'scope', label: t('client.scope'), help: t('idp.scopeHelp') },
    { name: 'linkVerifiedEmail', label: t('idp.linkEmail'), type: 'checkbox', help: t('idp.linkEmailHelp') },
    {
        name: 'tokenEndpointAuthMethod', label: t('idp.tokenAuth'), type: 'select',
        help: 'private_key_jwt signs with the realm\'s key: register the realm\'s JWKS (/realms/<realm>/jwks) at the upstream.',
        options: [
            { value: '', label: t('idp.fromDiscovery') },
            { value: 'client_secret_basic', label: 'client_secret_basic' },
            { value: 'client_secret_post', label: 'client_secret_post' },
            { value: 'private_key_jwt', label: 'private_key_jwt' },
        ],
    },
];

export const PROTOCOL_FIELDS: Record<Protocol, Field[]> = {
    oidc: [
        { name: 'issuer', label: t('idp.issuer'), type: 'url', required: true, help: t('idp.issuerHelp') },
        ...OAUTH,
        ...COMMON,
    ],
    oauth2: [
        { name: 'authorizationUrl', label: t('idp.authorizationUrl'), type: 'url', required: true },
        { name: 'tokenUrl', label: t('idp.tokenUrl'), type: 'url', required: true },
        { name: 'userinfoUrl', label: t('idp.userinfoUrl'), type: 'url', required: true },
        ...OAUTH,
        ...COMMON,
    ],
    ldap: [
        { name: 'url', label: 'URL', required: true, help: 'ldap:// or ldaps://' },
        { name: 'bindDn', label: 'Bind DN' },
        secret('bindPassword', t('idp.bindPassword')),
        { name: 'baseDn', label: 'Base DN', required: true },
        { name: 'userFilter', label: t('idp.userFilter'), help: t('idp.userFilterHelp') },
        { name: 'usernameAttribute', label: t('idp.usernameAttribute') },
        { name: 'emailAttribute', label: t('idp.emailAttribute') },
        { name: 'groupBaseDn', label: t('idp.groupBaseDn') },
        { name: 'groupFilter', label: t('idp.groupFilter'), help: t('idp.groupFilterHelp') },
        { name: 'groupNameAttribute', label: t('idp.groupNameAttribute') },
        { name: 'startTls', label: 'StartTLS', type: 'checkbox' },
        { name: 'tlsRejectUnauthorized', label: t('idp.rejectUntrusted'), type: 'checkbox' },
        ...COMMON,
    ],
};

/** Form values to the API body: the timeout is a number; an emptied authentication method is unset (null). */
export function providerBody(values: Record<string, unknown>): Record<string, unknown> {
    const body = { ...values };
    if (body.tokenEndpointAuthMethod === undefined || body.tokenEndpointAuthMethod === '') body.tokenEndpointAuthMethod = null;
    if (typeof body.timeout === 'string' && body.timeout !== '' && Number.isFinite(Number(body.timeout))) body.timeout = Number(body.timeout);
    return body;
}

export const ATTRIBUTE_TARGETS = [
    { value: 'field', label: t('idp.targetField') },
    { value: 'attribute', label: t('idp.targetAttribute') },
    { value: 'folder', label: t('idp.targetFolder') },
];
