import { PermissionName } from '@realmgate/core';
import { issue, validationFailed } from '../../errors/app-error.js';
import type { PasswordHasher } from '../../secrets/passwords.js';
import type { SecretBox } from '../../secrets/secret-box.js';
import { UPSTREAM_AUTH_METHODS } from '../../storage/identity-providers.js';
import type { Columns, TableRow } from '../../storage/resource/table.js';
import { createSecretStore } from '../clients/secret.js';
import { displayNameField, nameField } from '../fields.js';
import { defineResource, type Db, type ResourceDefinition, type Tx } from '../resource/context.js';
import { readValue } from '../resource/records.js';
import { rowData } from '../resource/read.js';
import { commonFields, type FieldSpec, type ResourceSpec } from '../resource/spec.js';
import { refuseRealmMove } from '../users/identity-rules.js';
import { isLoopbackHost, type OutboundPolicy } from '../../outbound/address-policy.js';
import { outboundIssues } from '../outbound-fields.js';

const PROTOCOLS = ['oidc', 'oauth2', 'ldap'] as const;

const text = (name: string, column: string, maxLength: number, extra: Partial<FieldSpec> = {}): FieldSpec => ({
    name, column, type: 'string', nullable: true, maxLength, create: 'optional', update: true, ...extra,
});
const flag = (name: string, column: string, value: boolean): FieldSpec => ({
    name, column, type: 'boolean', create: 'optional', update: true, default: value,
});

/** The sealed columns (spec Resources "identity provider"): REST name → column. */
const SEALED = { clientSecret: 'client_secret', bindPassword: 'bind_password' } as const;

const spec: ResourceSpec<'auth_identity_providers'> = {
    entity: 'identity_provider',
    collection: 'identity-providers',
    table: 'auth_identity_providers',
    realm: 'required',
    named: true,
    relations: { realm: { column: 'realm_id', resource: 'realm' } },
    fields: [],
};
spec.fields = [
    ...commonFields(spec),
    nameField(128),
    displayNameField,
    { name: 'protocol', column: 'protocol', type: 'enum', values: PROTOCOLS, create: 'required', update: false },
    flag('enabled', 'enabled', true),
    // OpenID Connect: the issuer whose discovery document (OIDC Discovery §4) names the endpoints
    text('issuer', 'issuer', 2048),
    text('clientId', 'client_id', 255),
    // sealed under the realm's encryption key; withheld from default reads (spec Resources)
    text('clientSecret', 'client_secret', 256, { read: 'withheld' }),
    // space-separated (RFC 6749 §3.3); default `openid profile email` (OIDC) or none (OAuth 2.0)
    text('scope', 'scope', 1024),
    // OAuth 2.0 without discovery: the three endpoints
    text('authorizationUrl', 'authorization_url', 2048),
    text('tokenUrl', 'token_url', 2048),
    text('userinfoUrl', 'userinfo_url', 2048),
    // an upstream email links to an existing account only when this is on, the upstream says it is
    // verified (email_verified) and the account verified the same address (federation/provision.ts)
    flag('linkVerifiedEmail', 'link_verified_email', false),
    // RFC 6749 §2.3 at the upstream's token endpoint (API.md §8's client field name); null: from the
    // upstream's discovery, client_secret_basic first (federation/upstream-client-auth.ts)
    { name: 'tokenEndpointAuthMethod', column: 'token_endpoint_auth_method', type: 'enum', values: UPSTREAM_AUTH_METHODS, nullable: true, create: 'optional', update: true },
    // LDAP
    text('url', 'url', 2048),
    text('bindDn', 'bind_dn', 1024),
    text('bindPassword', 'bind_password', 256, { read: 'withheld' }),
    text('baseDn', 'base_dn', 1024),
    // templates: {{username}} (userFilter, groupFilter) and {{dn}} (groupFilter) are inserted as
    // escaped literal values (RFC 4515 §3; spec Authentication 19)
    text('userFilter', 'user_filter', 1024),
    text('groupFilter', 'group_filter', 1024),
    text('groupBaseDn', 'group_base_dn', 1024),
    text('usernameAttribute', 'username_attribute', 128, { pattern: '^[A-Za-z][A-Za-z0-9-]*$' }),
    text('emailAttribute', 'email_attribute', 128, { pattern: '^[A-Za-z][A-Za-z0-9-]*$' }),
    text('groupNameAttribute', 'group_name_attribute', 128, { pattern: '^[A-Za-z][A-Za-z0-9-]*$' }),
    flag('startTls', 'start_tls', false),
    flag('tlsRejectUnauthorized', 'tls_reject_unauthorized', true),
    // milliseconds for each upstream request (connect, bind, search, token); default 5000
    { name: 'timeout', column: 'timeout', type: 'integer', nullable: true, create: 'optional', update: true },
];


const HTTP_URL = /^https?:\/\/[^\s]+$/i;
const LDAP_URL = /^ldaps?:\/\/[^\s]+$/i;
const REQUIRED: Record<(typeof PROTOCOLS)[number], string[]> = {
    oidc: ['issuer', 'clientId'],
    oauth2: ['authorizationUrl', 'tokenUrl', 'userinfoUrl', 'clientId'],
    ldap: ['url', 'baseDn'],
};
const URLS: Record<string, RegExp> = { issuer: HTTP_URL, authorizationUrl: HTTP_URL, tokenUrl: HTTP_URL, userinfoUrl: HTTP_URL, url: LDAP_URL };

/** http:// only for a loopback host (a development upstream); OIDC Core §3.1.2.1 and RFC 6749 §3.1 / §3.2 require TLS otherwise. */
function plainHttpOffLoopback(value: unknown): boolean {
    if (typeof value !== 'string' || !/^http:/i.test(value)) return false;
    try {
        return !isLoopbackHost(new URL(value).hostname);
    } catch {
        return false;
    }
}

/** The settings a protocol needs, on the row as it will be (stored values merged with the body). */
function assertSettings(merged: Record<string, unknown>, outbound: OutboundPolicy): void {
    const issues = [];
    const protocol = merged.protocol as (typeof PROTOCOLS)[number];
    for (const name of REQUIRED[protocol] ?? []) {
        if (typeof merged[name] !== 'string' || merged[name] === '') issues.push(issue([name], 'required', `is required for protocol ${protocol}`));
    }
    for (const [name, pattern] of Object.entries(URLS)) {
        if (typeof merged[name] === 'string' && !pattern.test(merged[name])) issues.push(issue([name], 'invalid_url', pattern === LDAP_URL ? 'must be an ldap:// or ldaps:// URL' : 'must be an http(s) URL'));
        else if (pattern === HTTP_URL && plainHttpOffLoopback(merged[name])) issues.push(issue([name], 'invalid_url', 'must be https (http only for a loopback host)'));
        // the server connects there (discovery, token, userinfo, JWKS, LDAP): not to its own network
        else issues.push(...outboundIssues(outbound, name, merged[name]));
    }
    const method = merged.tokenEndpointAuthMethod;
    if (typeof method === 'string' && protocol === 'ldap') issues.push(issue(['tokenEndpointAuthMethod'], 'not_applicable', 'applies to OpenID Connect and OAuth 2.0 providers only'));
    // a secret method without a secret could only fail at the upstream, on a user's sign-in
    if (typeof method === 'string' && method.startsWith('client_secret_') && (typeof merged.clientSecret !== 'string' || merged.clientSecret === '')) {
        issues.push(issue(['clientSecret'], 'required', `is required for tokenEndpointAuthMethod ${method}`));
    }
    const timeout = merged.timeout;
    if (typeof timeout === 'number' && (timeout < 100 || timeout > 60_000)) issues.push(issue(['timeout'], 'invalid_range', 'must be between 100 and 60000 milliseconds'));
    for (const name of ['userFilter', 'groupFilter']) {
        const value = merged[name];
        if (typeof value === 'string' && !(value.startsWith('(') && value.endsWith(')'))) issues.push(issue([name], 'invalid_filter', 'must be a parenthesised LDAP filter (RFC 4515)'));
    }
    if (issues.length > 0) throw validationFailed(issues);
}

/** The stored record's REST values, for merging with an update body. */
function restOf(row: TableRow<'auth_identity_providers'>): Record<string, unknown> {
    return Object.fromEntries(spec.fields.map((field) => [field.name, readValue(field, (row as Record<string, unknown>)[field.column])]));
}

/**
 * Identity providers (spec Resources, States; API.md §3, §7). The OAuth client secret and
 * the LDAP bind password are always written sealed under the realm's encryption key; a plaintext
 * left from before encryption is sealed by the next save whether or not it changed (spec States).
 * Readers whose permissions cover the provider get the plaintext through `fields=+clientSecret` /
 * `fields=+bindPassword`; with the realm key disabled the value reads null and logins fail.
 */
export function identityProvidersDefinition(deps: { db: Db; secrets: SecretBox; passwords: PasswordHasher; outbound: OutboundPolicy }): ResourceDefinition<'auth_identity_providers'> {
    const store = createSecretStore(deps);
    const seal = async (tx: Tx, realmId: string, value: unknown, stored: string | null): Promise<string | null> => {
        if (value === undefined) return stored === null || deps.secrets.isEnvelope(stored) ? stored : deps.secrets.encrypt(tx, realmId, stored);
        return typeof value === 'string' && value !== '' ? deps.secrets.encrypt(tx, realmId, value) : null;
    };
    const sealed = async (tx: Tx, realmId: string, input: Record<string, unknown>, row?: TableRow<'auth_identity_providers'>): Promise<Columns> => {
        const columns: Columns = {};
        for (const [name, column] of Object.entries(SEALED)) columns[column] = await seal(tx, realmId, input[name], row ? row[column] : null);
        return columns;
    };
    const definition: ResourceDefinition<'auth_identity_providers'> = defineResource<'auth_identity_providers'>({
        spec,
        fields: spec.fields,
        hooks: {
            // spec Endpoints: readers whose permissions cover the provider get the plaintext
            async canReadWithheld(ctx, _field, row) {
                const authorizer = await ctx.authorizer();
                return authorizer.allows(PermissionName.IDENTITY_PROVIDER_READ, rowData(definition as unknown as ResourceDefinition, row));
            },
            async revealWithheld(field, row) {
                if (field.name in SEALED) return store.reveal(deps.db, row[SEALED[field.name as keyof typeof SEALED]]);
                return readValue(field, row[field.column as keyof typeof row]);
            },
            async prepareCreate(_ctx, input, tx) {
                assertSettings(input, deps.outbound);
                return sealed(tx, String(input.realmId), input);
            },
            async prepareUpdate(_ctx, row, input, tx) {
                refuseRealmMove('identity provider', row, input);
                assertSettings({ ...restOf(row), ...input, protocol: row.protocol }, deps.outbound);
                return sealed(tx, row.realm_id, input, row);
            },
        },
    });
    return definition;
}
