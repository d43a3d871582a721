import { PermissionName } from '@realmgate/core';
import { issue, validationFailed } from '../../errors/app-error.js';
import { findRoleRealm } from '../../storage/junctions.js';
import { ownerRealm, type Owner } from '../attributes.js';
import { foreignKey } from '../fields.js';
import { defineResource, type Tx } from '../resource/context.js';
import { commonFields, type ResourceSpec } from '../resource/spec.js';

/*
 * The mappings of an identity provider (identity providers are a realm-bound resource; API.md §7): their realm is the
 * provider's, never taken from the body (as attributes take their owner's), and they are
 * administered under the provider's permissions: a mapping is part of the provider's configuration.
 */
const PROVIDER: Owner = { kind: 'identity provider', table: 'auth_identity_providers', key: 'providerId', column: 'provider_id', realm: 'required' };
const PERMISSIONS = {
    create: PermissionName.IDENTITY_PROVIDER_UPDATE,
    read: PermissionName.IDENTITY_PROVIDER_READ,
    update: PermissionName.IDENTITY_PROVIDER_UPDATE,
    delete: PermissionName.IDENTITY_PROVIDER_UPDATE,
};

/** The user fields an attribute mapping may write (the rest of a user is the realm's business). */
const MAPPED_USER_FIELDS = ['email', 'firstName', 'lastName', 'displayName'] as const;
const MAPPING_TARGETS = ['field', 'attribute', 'folder'] as const;

const attributeSpec: ResourceSpec<'auth_identity_provider_attribute_mappings'> = {
    entity: 'identity_provider_attribute_mapping',
    collection: 'identity-provider-attribute-mappings',
    table: 'auth_identity_provider_attribute_mappings',
    realm: 'required',
    named: false,
    permissions: PERMISSIONS,
    relations: { provider: { column: 'provider_id', resource: 'identity_provider' }, realm: { column: 'realm_id', resource: 'realm' } },
    fields: [],
};
attributeSpec.fields = [
    ...commonFields(attributeSpec),
    foreignKey('providerId', 'provider_id'),
    // the upstream claim (OIDC Core §5.1) or LDAP attribute
    { name: 'source', column: 'source', type: 'string', minLength: 1, maxLength: 255, create: 'required', update: true },
    // field: a user field; attribute: a user attribute of that name; folder: the user is filed under
    // the folder the value names (under the folder path targetName, when given)
    { name: 'target', column: 'target', type: 'enum', values: MAPPING_TARGETS, create: 'required', update: true },
    { name: 'targetName', column: 'target_name', type: 'string', nullable: true, maxLength: 255, create: 'optional', update: true },
];

function assertTarget(input: Record<string, unknown>): void {
    const name = input.targetName;
    if (input.target === 'field' && !MAPPED_USER_FIELDS.includes(name as (typeof MAPPED_USER_FIELDS)[number])) {
        throw validationFailed([issue(['targetName'], 'invalid_value', `must be one of ${MAPPED_USER_FIELDS.join(', ')}`)]);
    }
    if (input.target === 'attribute' && (typeof name !== 'string' || !/^\S+$/.test(name))) {
        throw validationFailed([issue(['targetName'], 'required', 'names the user attribute')]);
    }
    if (input.target === 'folder' && typeof name === 'string' && name.split('/').some((part) => part === '' || part.trim() !== part)) {
        throw validationFailed([issue(['targetName'], 'invalid_value', 'is a folder path: names separated by /')]);
    }
}

/** A mapping stays with the provider it was made for (its realm is that provider's). */
function refuseProviderMove(row: { provider_id: string }, input: Record<string, unknown>): void {
    if (input.providerId !== undefined && input.providerId !== row.provider_id) throw validationFailed([issue(['providerId'], 'immutable', 'a mapping stays with its provider')]);
}

export const identityProviderAttributeMappingsDefinition = defineResource<'auth_identity_provider_attribute_mappings'>({
    spec: attributeSpec,
    fields: attributeSpec.fields,
    hooks: {
        createRealm: ownerRealm(PROVIDER),
        async prepareCreate(_ctx, input) {
            assertTarget(input);
            return {};
        },
        async prepareUpdate(_ctx, row, input) {
            refuseProviderMove(row, input);
            assertTarget({ target: row.target, targetName: row.target_name, ...input });
            return {};
        },
    },
});

const roleSpec: ResourceSpec<'auth_identity_provider_role_mappings'> = {
    entity: 'identity_provider_role_mapping',
    collection: 'identity-provider-role-mappings',
    table: 'auth_identity_provider_role_mappings',
    realm: 'required',
    named: false,
    permissions: PERMISSIONS,
    relations: {
        provider: { column: 'provider_id', resource: 'identity_provider' },
        role: { column: 'role_id', resource: 'role' },
        realm: { column: 'realm_id', resource: 'realm' },
    },
    fields: [],
};
roleSpec.fields = [
    ...commonFields(roleSpec),
    foreignKey('providerId', 'provider_id'),
    // OIDC / OAuth 2.0: the claim holding the values (default `groups`); LDAP: unused, the values
    // are the names of the groups groupFilter finds
    { name: 'claim', column: 'claim', type: 'string', nullable: true, maxLength: 255, create: 'optional', update: true },
    { name: 'value', column: 'value', type: 'string', minLength: 1, maxLength: 1024, create: 'required', update: true },
    foreignKey('roleId', 'role_id', { update: true }),
];

/** A mapped role is one of the provider's realm or a global one. */
async function assertRole(tx: Tx, roleId: unknown, realmId: string): Promise<void> {
    if (typeof roleId !== 'string') return;
    const role = await findRoleRealm(tx, roleId.toLowerCase());
    if (!role || (role.realm_id !== null && role.realm_id !== realmId)) {
        throw validationFailed([issue(['roleId'], 'invalid_reference', "names no role of the provider's realm")]);
    }
}

export const identityProviderRoleMappingsDefinition = defineResource<'auth_identity_provider_role_mappings'>({
    spec: roleSpec,
    fields: roleSpec.fields,
    hooks: {
        createRealm: ownerRealm(PROVIDER),
        async prepareCreate(_ctx, input, tx) {
            await assertRole(tx, input.roleId, String(input.realmId));
            return {};
        },
        async prepareUpdate(_ctx, row, input, tx) {
            refuseProviderMove(row, input);
            await assertRole(tx, input.roleId, row.realm_id);
            return {};
        },
    },
});
