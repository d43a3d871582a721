import { Type, type Static, type TObject, type TSchema } from '@sinclair/typebox';
import { bodySchemas } from '../domains/resource/body-schema.js';
import type { ResourceSpec } from '../domains/resource/spec.js';
import { realmSpec } from '../domains/realms.js';
import { roleSpec } from '../domains/roles.js';
import { scopeSpec } from '../domains/scopes.js';
import { permissionSpec } from '../domains/permissions.js';
import { policySpec } from '../domains/policies/spec.js';
import { userSpec, USER_PASSWORD_SCHEMA } from '../domains/users/definition.js';
import { clientSpec } from '../domains/clients/definition.js';

/**
 * The provisioning file format (spec Versioning "provisioning createOnly"). Every
 * entry carries the attributes of the resource's create body (`POST /<collection>`), checked by the
 * same field schemas, minus the references the file names by name instead of by id; then its
 * strategy and the bindings it declares by name. Exported for the documentation
 * (`provisioningFileJsonSchema`).
 */

/** Create-body members a file does not carry: the realm is the enclosing entry, references go by name. */
const NOT_IN_FILES = new Set(['realmId', 'clientId', 'pathId', 'accessPolicyId', 'parentId', 'defaultRoleIds']);

/** The binding members of entries: names of rows of the entry's realm (`realm…`) or global rows (`global…`). */
const BINDING_MEMBERS = [
    'globalRoles', 'realmRoles', 'globalPermissions', 'realmPermissions', 'globalScopes', 'realmScopes', 'globalPolicies', 'realmPolicies',
] as const;
export type BindingMember = (typeof BINDING_MEMBERS)[number];

/** Strategy and child members: what an entry holds beyond the resource's attributes. */
export const CONTROL_MEMBERS: ReadonlySet<string> = new Set([
    'strategy', 'mergeAttributes', ...BINDING_MEMBERS, 'roles', 'permissions', 'scopes', 'policies', 'users', 'clients', 'defaultRoles',
]);

const Names = (description: string) => Type.Array(Type.String({ minLength: 1, maxLength: 255 }), { uniqueItems: true, description });

/** The create-body attributes of a resource that a file may set, with the API's own field schemas. */
function attributesOf(spec: ResourceSpec, extra: Record<string, TSchema> = {}): Record<string, TSchema> {
    const { create } = bodySchemas(spec, spec.fields, extra);
    const required = new Set(create.required ?? []);
    const properties: Record<string, TSchema> = {};
    for (const [name, schema] of Object.entries(create.properties)) {
        if (NOT_IN_FILES.has(name)) continue;
        properties[name] = required.has(name) ? schema : Type.Optional(schema);
    }
    return properties;
}

function entry(spec: ResourceSpec, members: Record<string, TSchema>, options: { extra?: Record<string, TSchema>; open?: boolean } = {}): TObject {
    const attributes = attributesOf(spec, options.extra);
    const attributeNames = Object.keys(attributes).filter((name) => name !== 'name');
    return Type.Object({
        ...attributes,
        strategy: Type.Optional(Type.Union([Type.Literal('createOnly'), Type.Literal('merge')], {
            description: 'createOnly (default): an existing row is left alone and its bindings are applied only when the entry creates it; merge: the declared attributes are written to an existing row and missing bindings are added',
        })),
        mergeAttributes: Type.Optional(Type.Array(Type.Union(attributeNames.map((name) => Type.Literal(name))), {
            uniqueItems: true,
            description: 'with strategy merge: only these attributes are written to an existing row',
        })),
        ...members,
    }, { additionalProperties: options.open === true, title: `provisioning.${spec.entity}` });
}

const grants = (scope: 'realm' | 'global') => ({
    globalPermissions: Type.Optional(Names('global permissions granted (realm scope own)')),
    ...(scope === 'realm' ? { realmPermissions: Type.Optional(Names('permissions of the realm granted (realm scope own)')) } : {}),
});
const roleAssignments = {
    globalRoles: Type.Optional(Names('global roles assigned')),
    realmRoles: Type.Optional(Names('roles of the realm assigned')),
};

function definitions(scope: 'realm' | 'global') {
    return {
        scopes: Type.Optional(Type.Array(entry(scopeSpec, {}))),
        // a policy carries its type's configuration keys at the top level, as in the API (API.md §3)
        policies: Type.Optional(Type.Array(entry(policySpec, {}, { open: true }))),
        permissions: Type.Optional(Type.Array(entry(permissionSpec, {
            globalPolicies: Type.Optional(Names('global root policies bound to the permission')),
            ...(scope === 'realm' ? { realmPolicies: Type.Optional(Names('root policies of the realm bound to the permission')) } : {}),
        }))),
        roles: Type.Optional(Type.Array(entry(roleSpec, grants(scope)))),
    };
}

const userEntry = entry(userSpec, { ...roleAssignments, ...grants('realm') }, { extra: { password: USER_PASSWORD_SCHEMA } });

const clientEntry = entry(clientSpec, {
    ...roleAssignments,
    ...grants('realm'),
    globalScopes: Type.Optional(Names('global scopes bound to the client')),
    realmScopes: Type.Optional(Names('scopes of the realm bound to the client')),
    // spec "Other resource fields": removed; values in provisioning files are stripped silently
    scope: Type.Optional(Type.Unknown()),
    rootUrl: Type.Optional(Type.Unknown()),
});

const realmEntry = entry(realmSpec, {
    ...definitions('realm'),
    // API.md §8 defaultRoleIds, by name as every reference in a file
    defaultRoles: Type.Optional(Names('roles of the realm every new user of it receives: a realm the entry creates gets exactly these (an empty list: none); under merge, and on a built-in realm, the missing ones are added')),
    users: Type.Optional(Type.Array(userEntry)),
    clients: Type.Optional(Type.Array(clientEntry)),
});

export const ProvisioningFileSchema = Type.Object({
    ...definitions('global'),
    realms: Type.Optional(Type.Array(realmEntry)),
}, { additionalProperties: false, title: 'Realmgate provisioning file' });

export type ProvisioningFile = Static<typeof ProvisioningFileSchema>;

/** The file format as plain JSON Schema (draft 7 keywords), for documentation and editors. */
export function provisioningFileJsonSchema(): Record<string, unknown> {
    return JSON.parse(JSON.stringify(ProvisioningFileSchema)) as Record<string, unknown>;
}
