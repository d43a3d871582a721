import type { Field } from '../../../shared/components/EntityForm.vue';

/**
 * The settings of each protocol the server supports (domains/identity-providers/definition.ts:
 * oidc, oauth2, ldap). Secrets (clientSecret, bindPassword) are write-only: never read back, an
 * empty field leaves the stored one as it is.
 */
export type Protocol = 'oidc' | 'oauth2' | 'ldap';

export const PROTOCOLS: { value: Protocol; label: string }[] = [
    { value: 'oidc', label: 'OpenID Connect (discovery from the issuer)' },
    { value: 'oauth2', label: 'OAuth 2.0 (endpoints given)' },
    { value: 'ldap', label: 'LDAP directory' },
];

const COMMON: Field[] = [
    { name: 'displayName', label: 'Display name', help: 'Shown on the sign-in page.' },
    { name: 'enabled', label: 'Enabled', type: 'checkbox' },
    { name: 'timeout', label: 'Timeout (ms)', help: 'For each upstream request, 100 to 60000; 5000 when empty.' },
];

const secret = (name: string, label: string): Field => ({ name, label, type: 'password', autocomplete: 'new-password', help: 'Write-only: never shown; leave empty to keep the stored one.' });

const OAUTH: Field[] = [
    { name: 'clientId', label: 'Client id', required: true },
    secret('clientSecret', 'Client secret'),
    { name: 'scope', label: 'Scope', help: 'Space-separated (RFC 6749 §3.3).' },
    { name: 'linkVerifiedEmail', label: 'Link an existing account by verified email', type: 'checkbox', help: 'Only when the upstream and the account both verified the address.' },
    {
        name: 'tokenEndpointAuthMethod', label: 'Token endpoint authentication', type: 'select',
        help: 'private_key_jwt signs with the realm\'s key: register the realm\'s JWKS (/realms/<realm>/jwks) at the upstream.',
        options: [
            { value: '', label: 'From discovery (client_secret_basic first)' },
            { value: 'client_secret_basic', label: 'client_secret_basic' },
            { value: 'client_secret_post', label: 'client_secret_post' },
            { value: 'private_key_jwt', label: 'private_key_jwt' },
        ],
    },
];

export const PROTOCOL_FIELDS: Record<Protocol, Field[]> = {
    oidc: [
        { name: 'issuer', label: 'Issuer', type: 'url', required: true, help: 'Its /.well-known/openid-configuration names the endpoints.' },
        ...OAUTH,
        ...COMMON,
    ],
    oauth2: [
        { name: 'authorizationUrl', label: 'Authorization URL', type: 'url', required: true },
        { name: 'tokenUrl', label: 'Token URL', type: 'url', required: true },
        { name: 'userinfoUrl', label: 'Userinfo URL', type: 'url', required: true },
        ...OAUTH,
        ...COMMON,
    ],
    ldap: [
        { name: 'url', label: 'URL', required: true, help: 'ldap:// or ldaps://' },
        { name: 'bindDn', label: 'Bind DN' },
        secret('bindPassword', 'Bind password'),
        { name: 'baseDn', label: 'Base DN', required: true },
        { name: 'userFilter', label: 'User filter', help: 'A parenthesised filter; {{username}} is inserted escaped (RFC 4515).' },
        { name: 'usernameAttribute', label: 'Username attribute' },
        { name: 'emailAttribute', label: 'Email attribute' },
        { name: 'groupBaseDn', label: 'Group base DN' },
        { name: 'groupFilter', label: 'Group filter', help: '{{username}} and {{dn}} are inserted escaped.' },
        { name: 'groupNameAttribute', label: 'Group name attribute' },
        { name: 'startTls', label: 'StartTLS', type: 'checkbox' },
        { name: 'tlsRejectUnauthorized', label: 'Reject an untrusted certificate', type: 'checkbox' },
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
    { value: 'field', label: 'a user field (email, firstName, lastName, displayName)' },
    { value: 'attribute', label: 'a user attribute' },
    { value: 'folder', label: 'the user\'s folder' },
];
