import { builtInField, descriptionField, displayNameField, foreignKey, nameField } from '../fields.js';
import { commonFields, type FieldSpec, type ResourceSpec } from '../resource/spec.js';

/** Names double as `:id` in URLs; `@` (reserved segments) and `/` can never be part of one. */
const POLICY_NAME_PATTERN = '^[a-zA-Z0-9_.:-]+$';

/**
 * Policies (API.md §3): the entity columns below plus the type's configuration keys at the top
 * level of bodies and records. The configuration lives in the `config` column as the validator's
 * canonical output (db/schema.ts), which is what the catalog projects (authz/policy-tree.ts), so it
 * is deliberately not a field: the resource reads and writes it through its hooks.
 */
export const policySpec: ResourceSpec<'auth_policies'> = {
    entity: 'policy',
    collection: 'policies',
    table: 'auth_policies',
    realm: 'nullable',
    named: true,
    hasBuiltIn: true,
    invalidatesCatalog: true,
    fields: [],
};
policySpec.fields = [
    ...commonFields(policySpec),
    // any type name is accepted by the schema; the access library decides which ones exist
    { name: 'type', column: 'type', type: 'string', maxLength: 64, create: 'required', update: true },
    nameField(255, POLICY_NAME_PATTERN),
    displayNameField,
    descriptionField,
    { name: 'invert', column: 'invert', type: 'boolean', create: 'optional', update: true, default: false },
    foreignKey('parentId', 'parent_id', { create: 'optional', update: true, nullable: true }),
    builtInField,
];
policySpec.relations = { parent: { column: 'parent_id', resource: 'policy' } };

export const policyFields: readonly FieldSpec[] = policySpec.fields;

/** REST members that are entity columns: everything else in a body is configuration. */
export const ENTITY_MEMBERS: ReadonlySet<string> = new Set(policyFields.map((field) => field.name));

/**
 * Members a body may not carry although the schema has to let unknown members through (they are
 * the type's configuration): the read-only columns, the internal `config` column, and `children`
 * (children of a composite are rows of their own, created with parentId).
 */
export const REFUSED_MEMBERS: ReadonlySet<string> = new Set([
    ...policyFields.filter((field) => !field.create && !field.update).map((field) => field.name),
    'config',
    'children',
]);
