import type { ResourceDefinition } from './resource/context.js';
import { commonFields, type ResourceSpec } from './resource/spec.js';
import { builtInField, descriptionField, displayNameField, nameField } from './fields.js';

const spec: ResourceSpec = {
    entity: 'scope',
    collection: 'scopes',
    table: 'auth_scopes',
    realm: 'nullable',
    named: true,
    hasBuiltIn: true,
    relations: { realm: { column: 'realm_id', resource: 'realm' } },
    fields: [],
};
spec.fields = [...commonFields(spec), nameField(128, '^[a-zA-Z0-9_:.-]+$'), displayNameField, descriptionField, builtInField];

export const scopeSpec = spec;

export const scopesDefinition: ResourceDefinition = { spec, fields: spec.fields, hooks: {} };
