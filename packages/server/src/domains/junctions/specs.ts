import { REALM_SCOPES, RealmScope } from '@realmgate/core';
import type { TableName } from '../../db/schema.js';
import { foreignKey } from '../fields.js';
import { commonFields, type FieldSpec, type RelationSpec, type ResourceSpec } from '../resource/spec.js';

/** The side of a junction that holds what the row binds: its realm is the row's realm dimension. */
export interface Holder {
    /** REST member, e.g. roleId */
    name: string;
    column: string;
    table: TableName;
    /** the related resource's spec name */
    resource: string;
}

const ROLE_HOLDER: Holder = { name: 'roleId', column: 'role_id', table: 'auth_roles', resource: 'role' };
const USER_HOLDER: Holder = { name: 'userId', column: 'user_id', table: 'auth_users', resource: 'user' };
const CLIENT_HOLDER: Holder = { name: 'clientId', column: 'client_id', table: 'auth_clients', resource: 'client' };

interface JunctionShape<T extends TableName> {
    entity: string;
    collection: string;
    table: T;
    holder: Holder;
    /** the other side and any extra columns */
    fields: FieldSpec[];
    relations: Record<string, RelationSpec>;
}

/**
 * A junction row has no realm column: every decision about it is about its holder's realm (the
 * role's for a role-permission — null for a global role —, the user's or the client's otherwise),
 * so REALM_MATCH is the holder's realm. That is what keeps realm_admin, holding the role-permission
 * writes at `own`, off the bindings of global roles (spec Authentication rule 11).
 */
function junctionSpec<T extends TableName>(shape: JunctionShape<T>): ResourceSpec<T> {
    const spec: ResourceSpec<T> = {
        entity: shape.entity,
        collection: shape.collection,
        table: shape.table,
        realm: 'referenced',
        realmReference: { column: shape.holder.column, table: shape.holder.table },
        named: false,
        fields: [],
        relations: { [shape.holder.resource]: { column: shape.holder.column, resource: shape.holder.resource }, ...shape.relations },
    };
    spec.fields = [...commonFields(spec), foreignKey(shape.holder.name, shape.holder.column), ...shape.fields];
    return spec;
}

/** Grant rows (spec "Other resource fields": realmScope own, ownOrNull, any, none; default own). */
/** The three grant tables: a definition granted to a role, a user or a client. */
export type GrantTable = 'auth_role_permissions' | 'auth_user_permissions' | 'auth_client_permissions';

function grantSpec<T extends GrantTable>(entity: string, collection: string, table: T, holder: Holder): ResourceSpec<T> {
    return junctionSpec({
        entity,
        collection,
        table,
        holder,
        fields: [
            foreignKey('permissionId', 'permission_id'),
            { name: 'realmScope', column: 'realm_scope', type: 'enum', values: REALM_SCOPES, create: 'optional', update: true, default: RealmScope.OWN },
            foreignKey('policyId', 'policy_id', { create: 'optional', update: true, nullable: true }),
        ],
        relations: {
            permission: { column: 'permission_id', resource: 'permission' },
            policy: { column: 'policy_id', resource: 'policy' },
        },
    });
}

function roleAssignmentSpec<T extends TableName>(entity: string, collection: string, table: T, holder: Holder): ResourceSpec<T> {
    return junctionSpec({
        entity,
        collection,
        table,
        holder,
        fields: [foreignKey('roleId', 'role_id')],
        relations: { role: { column: 'role_id', resource: 'role' } },
    });
}

export const rolePermissionSpec = grantSpec('role_permission', 'role-permissions', 'auth_role_permissions', ROLE_HOLDER);
export const userPermissionSpec = grantSpec('user_permission', 'user-permissions', 'auth_user_permissions', USER_HOLDER);
export const clientPermissionSpec = grantSpec('client_permission', 'client-permissions', 'auth_client_permissions', CLIENT_HOLDER);
export const userRoleSpec = roleAssignmentSpec('user_role', 'user-roles', 'auth_user_roles', USER_HOLDER);
export const clientRoleSpec = roleAssignmentSpec('client_role', 'client-roles', 'auth_client_roles', CLIENT_HOLDER);
export const clientScopeSpec = junctionSpec({
    entity: 'client_scope',
    collection: 'client-scopes',
    table: 'auth_client_scopes',
    holder: CLIENT_HOLDER,
    fields: [
        foreignKey('scopeId', 'scope_id'),
        { name: 'default', column: 'default', type: 'boolean', create: 'optional', update: true, default: false },
    ],
    relations: { scope: { column: 'scope_id', resource: 'scope' } },
});
