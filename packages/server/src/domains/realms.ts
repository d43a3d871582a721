import { MASTER_REALM, SECURITY_PROFILES } from '@realmgate/core';
import { type ResourceDefinition } from './resource/context.js';
import { commonFields, type FieldSpec, type ResourceSpec } from './resource/spec.js';
import { builtInField, descriptionField, displayNameField, nameField } from './fields.js';
import type { SecretBox } from '../secrets/secret-box.js';
import type { KeyStore } from '../keys/store.js';
import type { DialectName } from '../db/values.js';
import { ensureConsoleClient } from '../storage/console-clients.js';
import { createRealmDefaultRole, REALM_DEFAULT_ROLES } from '../storage/default-roles.js';
import { assertDefaultRoles, refuseDefaultRolesOfNewRealm } from './realm-default-roles.js';
import { issue, validationFailed } from '../errors/app-error.js';
import { isResourceIndicator } from '../tokens/resource-indicator.js';

/** RFC 8707 §2, RFC 9068 §2.2: the default audience names a resource server as a resource indicator does. */
function assertDefaultAudience(input: Record<string, unknown>): void {
    const value = input.defaultAudience;
    if (typeof value !== 'string' || isResourceIndicator(value)) return;
    throw validationFailed([issue(['defaultAudience'], 'invalid_uri', 'must be an absolute URI without a fragment (RFC 8707 §2)')]);
}
import { realmBrandingFields } from './realm-branding.js';

const spec: ResourceSpec = {
    entity: 'realm',
    collection: 'realms',
    table: 'auth_realms',
    realm: 'self',
    named: true,
    hasBuiltIn: true,
    lists: [REALM_DEFAULT_ROLES],
    fields: [],
};
spec.fields = [
    ...commonFields(spec),
    nameField(128, '^[a-zA-Z0-9_-]{3,128}$'),
    displayNameField,
    descriptionField,
    builtInField,
    // API.md §7 "Realm settings" (migration 0005); only the multi-factor ones act so far:
    // mfaEnabled asks holders of a confirmed authenticator for a code after the password and refuses
    // them Basic; mfaRequired also refuses a password-only sign-in to users who have not enrolled
    ...(['registrationEnabled', 'emailVerificationRequired', 'mfaEnabled', 'mfaRequired'] as const).map((name): FieldSpec => ({
        name, column: name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`), type: 'boolean',
        create: 'optional', update: true, default: false, filter: true,
    })),
    // API.md §8: the FAPI 2.0 Security Profile switch, pushed authorization requests for every
    // client of the realm (RFC 9126 §5), and dynamic client registration (RFC 7591), off by default
    { name: 'securityProfile', column: 'security_profile', type: 'enum', values: SECURITY_PROFILES, nullable: true, create: 'optional', update: true, filter: true },
    ...(['requirePushedAuthorizationRequests', 'dynamicRegistrationEnabled'] as const).map((name): FieldSpec => ({
        name, column: name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`), type: 'boolean',
        create: 'optional', update: true, default: false, filter: true,
    })),
    // API.md §8: the roles every new user of the realm receives (auth_realm_default_roles, migration 0024)
    { name: 'defaultRoleIds', column: REALM_DEFAULT_ROLES.column, type: 'idList', create: 'optional', update: true },
    // RFC 9068 §2.2: the `aud` of an access token whose request named no resource (RFC 8707);
    // null: the realm's issuer URL, which every resource server of the realm accepts (migration 0026)
    { name: 'defaultAudience', column: 'default_audience', type: 'string', nullable: true, maxLength: 2048, create: 'optional', update: true, filter: true },
    // API.md §8: passkeys (WebAuthn) for the realm's users, and the offer to add one right after a
    // password sign-in; both on by default (migration 0023)
    ...(['passkeysEnabled', 'passkeyPrompt'] as const).map((name): FieldSpec => ({
        name, column: name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`), type: 'boolean',
        create: 'optional', update: true, default: true, filter: true,
    })),
    // API.md §8: the sign-in pages' logo and primary colour (migration 0025); displayName is shown beside them
    ...realmBrandingFields,
];

export const realmSpec = spec;

/**
 * Realms: a realm's own id is the realm every decision about it is about. `consoleUris`: the
 * consoles' redirect URIs (none without PUBLIC_URL), registered on each new realm's console client.
 */
export function realmsDefinition(secrets: SecretBox, keys: KeyStore, dialect: DialectName, consoleUris: readonly string[]): ResourceDefinition {
    return {
        spec,
        fields: spec.fields,
        hooks: {
            prepareCreate(_ctx, input) {
                refuseDefaultRolesOfNewRealm(input);
                assertDefaultAudience(input);
                return Promise.resolve({});
            },
            async prepareUpdate(ctx, row, input, tx) {
                assertDefaultAudience(input);
                await assertDefaultRoles(ctx, row.id, input, tx);
                return {};
            },
            // every realm gets its encryption key (secrets stored encrypted depend on it) and its
            // signing keys with it, in the creating transaction: ES256 (API.md §5) and every other
            // algorithm discovery advertises, published before they sign anything (OIDC Core §10.1.1)
            async afterCreate(_ctx, row, tx) {
                await secrets.ensureRealmKey(tx, row.id);
                await keys.ensureRealmSigningKeys(tx, row.id);
                // and its console client (storage/console-clients.ts), so its users can sign in to the
                // consoles through their own realm (/authorize signs in only the client's realm's users)
                await ensureConsoleClient(tx, dialect, { id: row.id, name: String(row.name) }, consoleUris);
                // and its default role on its list, so its new users manage their own accounts out of the box
                await createRealmDefaultRole(tx, dialect, row.id, new Date());
            },
            refuseDelete: (row) => (row.name === MASTER_REALM ? 'The master realm cannot be deleted.' : null),
        },
    };
}
