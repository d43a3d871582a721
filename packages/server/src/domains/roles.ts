import type { ResourceDefinition } from './resource/context.js';
import { assertClientOfRealm } from './client-owner.js';
import { commonFields, type ResourceSpec } from './resource/spec.js';
import { builtInField, descriptionField, displayNameField, foreignKey, nameField } from './fields.js';

const spec: ResourceSpec = {
    entity: 'role',
    collection: 'roles',
    table: 'auth_roles',
    realm: 'nullable',
    named: true,
    hasBuiltIn: true,
    relations: { realm: { column: 'realm_id', resource: 'realm' }, client: { column: 'client_id', resource: 'client' } },
    fields: [],
};
spec.fields = [
    ...commonFields(spec),
    nameField(128),
    displayNameField,
    descriptionField,
    builtInField,
    foreignKey('clientId', 'client_id', { create: 'optional', nullable: true }),
];

export const roleSpec = spec;

export const rolesDefinition: ResourceDefinition = {
    spec,
    fields: spec.fields,
    hooks: {
        async prepareCreate(_ctx, input, tx) {
            await assertClientOfRealm(tx, input.clientId, input.realmId);
            return {};
        },
    },
};
